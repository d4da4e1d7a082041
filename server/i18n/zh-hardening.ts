// 简体中文：输入上限、权限、版本冲突与密钥相关的提示。
import type { enHardening } from './en-hardening.ts';

export const zhHardening: Record<keyof typeof enHardening, string> = {
  'err.too_long_limit': '内容过长：最多 {limit} 个字符。',
  'err.limit_too_long': '内容过长：共 {length} 个字符，最多 {limit} 个。',
  'err.limit_items': '条目过多：最多 {limit} 条。',
  'err.limit_item_long': '第 {item} 条过长：最多 {limit} 个字符。',
  'err.nul_character': '内容含有 NUL 字符（\\0），goldset 不保存此类字符。',
  'err.limit_options': '一个评判标准最多 {limit} 个选项（当前 {count} 个）。',
  'err.limit_option_text': '每个选项最多 {limit} 个字符。',
  'err.limit_criteria': '一个评测集最多 {limit} 个评判标准。',
  'err.too_deep': '请求中列表和对象的嵌套超过 {limit} 层。',
  'err.criterion_conflict': '在你编辑期间，其他人保存了“{name}”，下方显示的是对方保存的内容。你填写的说明是：{guidelines}',
  'err.dataset_conflict': '在你编辑期间，其他人修改了“{name}”的设置。你的修改仍保留在表单中，请对照当前设置检查后再次保存。',
  'err.assignment_conflict': '在此期间，其他人修改了该评测集的设置或标注人员，下方显示的是当前分配。请重新进行修改。',
  'err.approve_own_edit': '这个样本最后由你修改，需要由其他专家审核通过。',
  'review.err_conflict': '在此期间，其他人已对该条目给出复核结论或设置了金标准，下方显示的是对方的记录。你的选择仍保留在表单中，再次保存即可替换。',
};
