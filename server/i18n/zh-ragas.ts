// 简体中文：与 Ragas 往返（Ragas 同名指标、供 Ragas 加载的提示词文件、结果文件导入）。
import type { enRagas } from './en-ragas.ts';

export const zhRagas: Record<keyof typeof enRagas, string> = {
  'ragas.suggested_zh': '推荐用于中文',
  'examples.not_an_example': '示例 {n} 不是 {"input": …, "output": …} 形式。本步骤的示例形如 {shape}',
  'examples.missing': '示例 {n}：缺少 {field}。本步骤的示例形如 {shape}',
  'examples.wrong_type': '示例 {n}：{field} 应为{expected}。本步骤的示例形如 {shape}',
  'examples.not_allowed': '示例 {n}：{field} 的值不符合本步骤的要求（允许：{expected}）。',
  'examples.unknown_field': '示例 {n}：{field} 不是本步骤的字段。本步骤的示例形如 {shape}',
  'examples.type_string': '文本',
  'examples.type_number': '数字',
  'examples.type_array': '列表',
  'examples.type_object': '对象',
  'examples.type_other': '其他类型的值',
  'examples.shape': '每个示例形如：{shape}',
  'lab.add_from_label': '用标注添加',
  'lab.add_from_trace': '添加评测模型的输出',
  'lab.add_from_trace_hint': '专家标注无法决定这一步的输出：可添加评测模型上次运行时这一步的输入和输出，再在草稿中修正输出。',
  'lab.no_trace_example': '该指标还没有哪次运行记录过这一条目的这一步；请先对它运行一次该指标。',
  'lab.label_cannot_inform': '这一条目的标注无法决定这一步的输出。',
};
