// The note under a part of a judge trace that was stored cut to goldset's limits (server/judge/stored-trace.ts).
import type { PageContext } from './layout.tsx';
import type { TraceStep } from '../server/judge/types.ts';
import { LIMITS } from '../server/limits.ts';

export function TraceCut({ ctx, step, part }: { ctx: PageContext; step: TraceStep; part: 'raw' | 'parsed' | 'messages' }) {
  const n = step.truncated?.[part];
  if (n === undefined) return null;
  const { t } = ctx;
  const text = part === 'raw' ? t('trace.raw_cut', { kept: LIMITS.judgeReply, total: n })
    : part === 'parsed' ? t('trace.parsed_cut', { total: n, limit: LIMITS.judgeReply })
    : t('trace.messages_cut', { n, limit: LIMITS.storedPrompt });
  return <p class="hint">{text}</p>;
}
