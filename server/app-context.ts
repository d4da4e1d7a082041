// The services one goldset instance runs on; built once at start and handed to routes and the CLI.
import type { Config } from './config.ts';
import type { DB } from './db/connection.ts';
import type { Logger } from './log.ts';
import { auditQueries } from './audit/queries.ts';
import { userService } from './users/service.ts';
import { datasetService } from './datasets/service.ts';
import { sampleService } from './samples/service.ts';
import { importService } from './importexport/import-service.ts';
import { SqliteSessionStore } from './http/session-store.ts';
import { criterionService } from './criteria/service.ts';
import { labelService } from './labels/service.ts';
import { responseQueries } from './responses/queries.ts';
import { tokenService } from './api/tokens.ts';
import { judgeSettings } from './judge/settings.ts';
import { promptStore } from './judge/prompt-store.ts';
import { metricRegistry } from './judge/registry.ts';
import { metricSettingsStore } from './judge/metric-settings.ts';
import { runManager } from './judge/runner.ts';
import { calibrationService } from './calibration/service.ts';
import { contextCalibrationService } from './calibration/context-service.ts';
import { searchIndexer } from './samples/search-index.ts';
import { derivedCache, type DerivedCache } from './db/derived-cache.ts';
import { groupCommit } from './db/group-commit.ts';
import { accessFacts } from './access/facts.ts';
import { releaseService } from './releases/service.ts';
import { waitingQueries } from './datasets/waiting.ts';
import { holdoutLookQueries } from './calibration/holdout-looks.ts';
import { estimateService } from './estimate/service.ts';

/** `derived`: the kept values' cache, when not the connection's own (the labelling thread's records its writes). */
export function createAppContext(db: DB, config: Config, log: Logger, options: { derived?: DerivedCache } = {}) {
  const audit = auditQueries(db);
  const datasets = datasetService(db, audit);
  const samples = sampleService(db, audit);
  const criteria = criterionService(db, audit);
  const settings = judgeSettings(db, config, audit);
  const prompts = promptStore(db, audit);
  const registry = metricRegistry(db, audit);
  const metricSettings = metricSettingsStore(db, audit);
  const searchIndex = searchIndexer(db, log);
  const derived = options.derived ?? derivedCache(db);
  const group = groupCommit(db, log, () => derived.clear());
  const labels = labelService(db, audit, derived, group);
  const releases = releaseService(db, audit);
  return {
    db, config, log, audit, derived, group,
    access: accessFacts(db),
    users: userService(db, audit, { passwordCost: config.passwordCost }),
    datasets,
    samples,
    criteria,
    labels,
    responses: responseQueries(db),
    searchIndex,
    imports: importService(db, audit, { datasets, criteria, labels, searchIndex }),
    tokens: tokenService(db, audit),
    judgeSettings: settings,
    prompts,
    registry,
    metricSettings,
    runner: runManager(db, log, audit, { settings, prompts, registry, metricSettings, releases, alone: group.alone }),
    calibration: calibrationService(db, audit, derived),
    contextCalibration: contextCalibrationService(db, derived),
    releases,
    waiting: waitingQueries(db),
    holdoutLooks: holdoutLookQueries(db),
    estimates: estimateService(db, audit, derived),
    sessionStore: new SqliteSessionStore(db),
  };
}

export type AppContext = ReturnType<typeof createAppContext>;
