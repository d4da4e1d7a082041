// One random write to a dataset's labels, as the equivalence tests of kept values replay them
// (open-disagreements.test.ts, calibration-follow.test.ts): through the label service a submission
// (new or changed), a draft, a submission with the next item handed out, a hand-out, an adjudication;
// past it, as sqlite3 or another process would, an annotation or an adjudication deleted.
import { seenVersion, valueKey } from '../../server/labels/service.ts';
import type { AppContext } from '../../server/app-context.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { CurrentUser } from '../../server/http/context.ts';

export interface LabelWorld {
  ctx: AppContext;
  ds: number;
  /** Response-level criteria, every one labelled on each submission. */
  criteria: Criterion[];
  experts: CurrentUser[];
  responses: number[];
  /** The values a criterion's label or adjudication is picked from. */
  values: (c: Criterion) => readonly string[];
}

/** Makes one random write (rng decides which, by whom, on which response); says what it was and whether the label service made it. */
export function randomLabelWrite(w: LabelWorld, rng: () => number): { what: string; rid: number; tracked: boolean } {
  const { ctx, ds, criteria, experts } = w;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
  const expert = pick(experts);
  const rid = pick(w.responses);
  const target = { id: rid, dataset_id: ds };
  const values = new Map(criteria.map((c) => [valueKey(c.id, -1), pick(w.values(c))]));
  const input = { values, rationale: '', corrected_answer: '' };
  const mine = () => seenVersion(ctx.labels.mine(rid, expert.id)?.annotation);
  const op = rng();
  if (op < 0.45) {
    ctx.labels.submit(expert, target, criteria, input, mine());
    return { what: `submit ${expert.email} #${rid}`, rid, tracked: true };
  }
  if (op < 0.55) {
    ctx.labels.saveDraft(expert, target, criteria, input);
    return { what: `draft ${expert.email} #${rid}`, rid, tracked: true };
  }
  if (op < 0.65) {
    ctx.labels.submitAndHandOut(expert, target, criteria, input, mine(), 3);
    return { what: `submit and next ${expert.email} #${rid}`, rid, tracked: true };
  }
  if (op < 0.7) {
    ctx.labels.handOut(ds, expert.id, 3);
    return { what: `hand out to ${expert.email}`, rid, tracked: true };
  }
  if (op < 0.85) {
    const c = pick(criteria);
    const existing = ctx.db.prepare('SELECT version FROM adjudication WHERE response_id = ? AND criterion_id = ? AND context_index = -1').pluck().get(rid, c.id) as number | undefined;
    ctx.labels.adjudicate(experts[0]!.id, c, rid, -1, pick(w.values(c)), 'decided', existing ?? 0);
    return { what: `adjudicate #${rid} ${c.name}`, rid, tracked: true };
  }
  if (op < 0.92) {
    // An annotation deleted (its labels by cascade).
    ctx.db.prepare('DELETE FROM annotation WHERE response_id = ? AND annotator_id = ?').run(rid, expert.id);
    return { what: `annotation deleted #${rid}`, rid, tracked: false };
  }
  ctx.db.prepare('DELETE FROM adjudication WHERE response_id = ?').run(rid);
  return { what: `adjudication deleted #${rid}`, rid, tracked: false };
}
