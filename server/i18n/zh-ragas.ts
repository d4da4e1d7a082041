// 简体中文：与 Ragas 往返（Ragas 同名指标、供 Ragas 加载的提示词文件、结果文件导入）。
import type { enRagas } from './en-ragas.ts';

export const zhRagas: Record<keyof typeof enRagas, string> = {
  'ragas.suggested_zh': '推荐用于中文',
};
