// Runs on a release: which responses such a run scores, and whether a run covers a release (the CI gate).
import type { AppContext } from '../app-context.ts';
import type { RunRow, Selection } from '../judge/run-queries.ts';
import { evalSetOf, type ReleaseRow } from './service.ts';
import { englishCount } from '../i18n/english-count.ts';

/** The selection of a run limited to a release (and, optionally, one system's responses of it). */
export function releaseSelection(app: Pick<AppContext, 'releases' | 'responses' | 'db'>, release: ReleaseRow, system: string): Selection {
  let ids = app.releases.responseIdsForRun(release);
  if (system) {
    const bySystem = app.db.prepare<[string, string], number>('SELECT id FROM response WHERE id IN (SELECT value FROM json_each(?)) AND system = ?').pluck();
    ids = bySystem.all(JSON.stringify(ids), system) as number[];
  }
  return { release: { id: release.id, tag: release.tag, hash: release.hash }, response_ids: ids };
}

/**
 * Why a run does not cover a release, or null when it does: it must have been limited to this
 * release (same hash, so the same content) and have a score (of any status) for every item of it.
 */
export function coverageProblem(app: Pick<AppContext, 'db' | 'releases'>, run: RunRow, release: ReleaseRow): string | null {
  const on = evalSetOf(run.selection);
  if (!on) return `run "${run.name}" was scored on the unreleased working copy, not on release ${release.tag} (score it with --release ${release.tag})`;
  if (on.hash !== release.hash) return `run "${run.name}" was scored on release ${on.tag}, not on ${release.tag}`;
  const items = app.releases.responseIdsForRun(release);
  const missing = app.db.prepare<[string, number], number>(`SELECT count(*) FROM json_each(?) j
    WHERE NOT EXISTS (SELECT 1 FROM score s WHERE s.run_id = ? AND s.response_id = j.value)`).pluck().get(JSON.stringify(items), run.id) as number;
  if (missing > 0) return `run "${run.name}" has no score for ${missing} of the ${englishCount(items.length, 'item')} of release ${release.tag}`;
  return null;
}
