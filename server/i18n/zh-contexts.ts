// 简体中文：逐条上下文的校准（评测模型对每条检索上下文的判断与专家的对照）。
import type { enContexts } from './en-contexts.ts';

export const zhContexts: Record<keyof typeof enContexts, string> = {
  'import.label_not_a_list': '第 {line} 行：评判标准 {criterion} 针对每条检索上下文，请按排名顺序给出列表，每条上下文一个值，例如 [1, 0, null]（实际为“{value}”）。',
  'import.label_unexpected_list': '第 {line} 行：评判标准 {criterion} 针对整个回答，请给出单个值，而不是列表（{value}）。',
  'import.label_list_length': '第 {line} 行：评判标准 {criterion} 有 {got} 个值，但该回答检索到 {expected} 条上下文：请按排名顺序为每条上下文给一个值（未标注的写 null）。',
};
