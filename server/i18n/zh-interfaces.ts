// 简体中文：JSON API 的消息，以及命令行关于用户数据的回答（导入被拒）；代码（`error`、`code`）在各语言中不变。
import type { enInterfaces } from './en-interfaces.ts';

export const zhInterfaces: Record<keyof typeof enInterfaces, string> = {
  'api.unauthorized': '需要有效的 API 令牌：Authorization: Bearer <令牌>。',
  'api.forbidden_viewer': '该令牌所属用户没有写入权限（查看者角色）。',
  'api.no_dataset': '没有这个评测集。',
  'api.no_release': '该评测集中没有这个标签的版本。',
  'api.no_endpoint': '没有这个 API 接口。',
  'api.archived': '该评测集已归档，只读。',
  'api.invalid_body': '请发送由行组成的 JSON 数组，或 {"rows": [...]}；每行包含 question/user_input 和 answer/response。',
  'api.no_rows': '没有任何行。',
  'api.too_many_rows': '每个请求最多 {limit} 行；其余的请分多次发送。',
  'api.no_labels': 'API 不接受 human.<评判标准> 标注列。',
  'api.invalid_json': '请求体不是有效的 JSON。',
  'api.too_deep': '请求体中数组和对象的嵌套超过 {limit} 层。',
  'api.too_large': '请求体过大。',
  'cli.no_dataset': '没有名为“{name}”的评测集',
  'export.no_run': '没有名为“{name}”的运行。',
  'export.run_column_taken': '运行“{a}”和“{b}”都会写入列 {column}：请只导出其中一个。',
  'import.needs_annotator': '文件中有 human.<评判标准> 标注列：请用 --annotator 邮箱 指明标注者。',
  'import.score_run_goldset': '运行“{run}”的 {metric} 分数是 goldset 自己评测的：请把文件中的分数导入到另一个运行名称下。',
  'import.run_name_too_long': '运行名称有 {length} 个字符，上限为 {limit}。',
  'import.nothing_imported': '未导入任何内容。',
  'import.more_errors': '……另有 {n} 条。',
};
