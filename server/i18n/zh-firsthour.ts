// 简体中文：标注历史、下一步操作、待办、示例演练、校准建议、留出集计数、运行需求与费用。
import type { enFirsthour } from './en-firsthour.ts';

export const zhFirsthour: Record<keyof typeof enFirsthour, string> = {
  'fh.key_history': '标注历史中的上一条 / 下一条',
  'fh.history': '我的标注历史',
  'fh.history_title': '我的标注历史',
  'fh.history_lead': '你在本评测集中标注过或领取过的所有条目，最新的在前。打开任意一条即可修改标注；在工作台中按 B 和 N 沿此列表前后移动。',
  'fh.history_filters': '筛选标注历史',
  'fh.history_search': '搜索问题和回答',
  'fh.history_count': '共 {n} 条',
  'fh.history_none': '没有符合条件的条目。',
  'fh.history_first': '这是你标注历史中的第一条。',
  'fh.history_last': '这是你标注历史中最新的一条。',
  'fh.continue_queue': '继续标注队列',
  'fh.forward': '前进',
  'fh.your_labels': '我的标注',
  'fh.when': '时间',
  'fh.state_draft': '草稿',
  'fh.any_state': '全部状态',
  'fh.any_value': '全部标注值',
  'fh.recent': '最近标注',
  'fh.start_lead': '条目逐条分发，标注数最少的优先。你正在处理的条目会为你保留。',
  'fh.next_steps': '下一步',
  'fh.next_disagreements': '{n} 处专家分歧待裁决',
  'fh.next_review': '{n} 个样本等你审核',
  'fh.labels_left': '本评测集仍需的标注：{n} 份。',
};
