// What of a score's trace is kept: each step's prompt messages and the judge's reply, cut to the
// limits of server/limits.ts (the score itself is computed from the whole reply before this). A
// 10 MB reply is kept as its first LIMITS.judgeReply characters, and the step says how long it was,
// so the trace view can say it is cut. Traces stored before the limit are cut the same way when shown.
import { clip, LIMITS } from '../limits.ts';
import type { Trace, TraceStep } from './types.ts';

/** Errors quote replies and messages; a few thousand characters say what went wrong. */
const ERROR_CHARS = 4_000;

function boundStep(step: TraceStep): TraceStep {
  const truncated: NonNullable<TraceStep['truncated']> = { ...step.truncated };
  let raw = step.raw;
  if (raw !== null && raw.length > LIMITS.judgeReply) {
    truncated.raw = raw.length;
    raw = clip(raw, LIMITS.judgeReply).text;
  }
  let parsed = step.parsed;
  const parsedText = parsed === null || parsed === undefined ? '' : JSON.stringify(parsed);
  if (parsedText.length > LIMITS.judgeReply) {
    truncated.parsed = parsedText.length;
    parsed = null;
  }
  const messages = step.messages.map((m) => {
    if (m.content.length <= LIMITS.storedPrompt) return m;
    truncated.messages = (truncated.messages ?? 0) + 1;
    return { ...m, content: clip(m.content, LIMITS.storedPrompt).text };
  });
  const error = step.error !== undefined ? clip(step.error, ERROR_CHARS).text : undefined;
  const cut = Object.keys(truncated).length > 0;
  return { ...step, raw, parsed, messages, ...(error !== undefined ? { error } : {}), ...(cut ? { truncated } : {}) };
}

/** The trace as stored and shown: every step within the limits, and the computation's texts (an error's message) too. */
export function boundTrace(trace: Trace): Trace {
  const explained = trace.explained?.map((line) => line.params === undefined ? line
    : { ...line, params: Object.fromEntries(Object.entries(line.params).map(([k, v]) => [k, typeof v === 'string' ? clip(v, ERROR_CHARS).text : v])) });
  return { ...trace, steps: trace.steps.map(boundStep), computation: clip(trace.computation, ERROR_CHARS).text, ...(explained ? { explained } : {}) };
}
