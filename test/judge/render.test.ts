// Prompt rendering: the system/user layout, few-shot blocks, placeholders and determinism (the
// judge cache relies on identical inputs giving byte-identical messages).

import { describe, expect, it } from 'vitest';
import { fillPlaceholders, numberedList, renderPrompt } from '../../server/judge/prompts/render.ts';
import type { PromptTemplate } from '../../server/judge/types.ts';

const template: PromptTemplate = {
  language: 'en',
  instruction: 'Split the text into statements.',
  output_format: 'Reply with {"statements": [...]}.',
  examples: [{ input: { question: 'Q?', text: 'A.' }, output: { statements: ['A.'] } }],
};

describe('renderPrompt', () => {
  it('puts instruction, output format and examples in the system message and the input as JSON in the user message', () => {
    const messages = renderPrompt(template, { question: '张伟是哪个部门的？', text: '张伟是教研部的。' });
    expect(messages).toHaveLength(2);
    expect(messages[0]).toEqual({
      role: 'system',
      content:
        'Split the text into statements.\n\nReply with {"statements": [...]}.\n\nExamples:\n\n' +
        'Input: {\n  "question": "Q?",\n  "text": "A."\n}\nOutput: {\n  "statements": [\n    "A."\n  ]\n}',
    });
    expect(messages[1]).toEqual({ role: 'user', content: 'Input: {\n  "question": "张伟是哪个部门的？",\n  "text": "张伟是教研部的。"\n}' });
  });

  it('is deterministic: the same template and input give identical messages', () => {
    const input = { question: 'q', contexts: ['a', 'b'] };
    expect(JSON.stringify(renderPrompt(template, input))).toBe(JSON.stringify(renderPrompt(template, { ...input })));
  });

  it('leaves out the examples block when there are no examples, and words it in Chinese for zh', () => {
    expect(renderPrompt({ ...template, examples: [] }, {})[0]!.content).toBe('Split the text into statements.\n\nReply with {"statements": [...]}.');
    const zh = renderPrompt({ ...template, language: 'zh' }, { text: 'x' });
    expect(zh[0]!.content).toContain('示例：\n\n输入：{');
    expect(zh[0]!.content).toContain('\n输出：{');
    expect(zh[1]!.content).toBe('输入：{\n  "text": "x"\n}');
  });

  it('fills rubric placeholders, contexts as a numbered list, and keeps the unused fields in the user message', () => {
    const rubric: PromptTemplate = { ...template, examples: [], instruction: 'Q: {{question}}\nA: {{ answer }}\nContexts:\n{{contexts}}\nUnknown: {{nope}}' };
    const messages = renderPrompt(rubric, { question: '张伟是哪个部门的？', answer: '教研部', ground_truth: '张伟是教研部的', contexts: ['牛顿发现了万有引力', '张伟 教研部工程师'] });
    expect(messages[0]!.content).toContain('Q: 张伟是哪个部门的？\nA: 教研部\nContexts:\n1. 牛顿发现了万有引力\n2. 张伟 教研部工程师\nUnknown: {{nope}}');
    expect(messages[1]!.content).toBe('Input: {\n  "ground_truth": "张伟是教研部的"\n}');
  });

  it("in 'exclusive' mode shows only what the instruction placed, with a fixed request as the user message", () => {
    const rubric: PromptTemplate = { ...template, language: 'zh', examples: [], instruction: '问题：{{question}}\n回答：{{answer}}' };
    const messages = renderPrompt(rubric, { question: 'q', answer: 'a', ground_truth: 'secret', contexts: [] }, { placeholders: 'exclusive' });
    expect(messages[0]!.content).toContain('问题：q\n回答：a');
    expect(messages[1]!.content).toBe('请评估上面说明中给出的内容（示例仅作参考），只输出 JSON 对象。');
    expect(JSON.stringify(messages)).not.toContain('secret');
  });

  it("in 'exclusive' mode an instruction without placeholders still gets every field", () => {
    const messages = renderPrompt(template, { question: 'q', answer: 'a' }, { placeholders: 'exclusive' });
    expect(messages[1]!.content).toBe('Input: {\n  "question": "q",\n  "answer": "a"\n}');
  });
});

describe('placeholders', () => {
  it('are filled in one pass, so text containing {{…}} is not expanded again', () => {
    const { text, used } = fillPlaceholders('{{answer}} / {{question}}', { answer: 'see {{question}}', question: 'Q' }, 'en');
    expect(text).toBe('see {{question}} / Q');
    expect([...used].sort()).toEqual(['answer', 'question']);
  });

  it('render an empty context list as (none) / （无）', () => {
    expect(numberedList([], 'en')).toBe('(none)');
    expect(numberedList([], 'zh')).toBe('（无）');
  });
});
