// The commands of the `goldset` command line (server/cli.ts), on a terminal given to them (io/cli-out.ts):
// the process's, or a test's.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase, type DB } from './db/connection.ts';
import { migrate, MigrationError } from './db/migrate.ts';
import { createLogger } from './log.ts';
import { createAppContext, type AppContext } from './app-context.ts';
import { detectFormat, type ImportFormat } from './io/read.ts';
import { EXPORT_FORMATS, datasetRecords, spreadsheetRefusal, writeExport, writeRecordsXlsx, type ExportFormat } from './importexport/export.ts';
import { ReleaseUsageError, cmdRelease, exportRelease } from './releases/cli.ts';
import { SheetUsageError, cmdLabellingSheet, importLabellingSheet } from './labelsheet/cli.ts';
import { ExportRunError, scoreColumnsOf } from './importexport/export-scores.ts';
import { loadExampleData } from './datasets/example.ts';
import { AgreementUsageError, cmdAgreement } from './agreement/cli.ts';
import { cmdScore, ScoreUsageError } from './judge/cli.ts';
import { CalibrationUsageError, cmdGate, cmdReport } from './calibration/cli.ts';
import { cmdEstimate, cmdSample, EstimateUsageError } from './estimate/cli.ts';
import { cmdExportJudge } from './calibration/export-judge-cli.ts';
import { GoldsetFormatError, isGoldsetJsonl, restoreGoldsetJsonl } from './importexport/goldset-jsonl.ts';
import { DECLARED_TYPES, type DeclaredType } from './importexport/import-labels.ts';
import { importRefusal } from './importexport/messages.ts';
import { UserError } from './users/service.ts';
import { ArchivedError } from './datasets/archived.ts';
import { checkName, LIMITS, nameMessage } from './limits.ts';
import { translator } from './i18n/index.ts';
import { englishCount } from './i18n/english-count.ts';
import { output, type CliIo, type Out } from './io/cli-out.ts';
import { DatasetError } from './datasets/service.ts';
import { normalEmail } from './users/email.ts';
import { namedDataset } from './datasets/named.ts';

const USAGE = `usage: npm run goldset -- <command> [options]

commands:
  import FILE --dataset NAME [--language zh|en] [--format csv|jsonl|json|xlsx|goldset] [--sheet NAME]
         [--annotator EMAIL] [--criterion-type NAME=binary|categorical|ordinal|numeric|context-binary ...] [--run NAME] [--score-column NAME ...]
        import samples, responses and expert labels (human.<criterion> columns, by --annotator)
        from a Ragas-style file (or a workbook's first or named sheet) into a dataset, creating it if needed; with --run, every
        Ragas metric column (and each --score-column) becomes an imported run; rows without a system match the response with
        their question, answer and contexts
  import FILE.xlsx --dataset NAME --annotator EMAIL [--submit]
        a labelling sheet goldset made: its labels as that expert's drafts (or submitted, with --submit), all or nothing
  export --dataset NAME --format ragas-jsonl|ragas-csv|spreadsheet-csv|goldset-jsonl|xlsx --out FILE [--status approved|all] [--responses]
         [--run NAME ...] [--utf8] [--release TAG]
        ragas-*, spreadsheet-csv and xlsx: samples, or with --responses one record per response with gold labels (human.<criterion>),
        and with --run (repeatable) each run's scores in the column Ragas names the metric; ragas-jsonl escapes non-ASCII (\\uXXXX)
        unless --utf8; spreadsheet-csv: ragas-csv safe to open in Excel/LibreOffice (formula-like cells neutralised);
        goldset-jsonl: everything (samples, responses, criteria, labels, adjudications) for restore;
        --release TAG: that release's content instead of the dataset as it is now
  labelling-sheet --dataset NAME --annotator EMAIL --out FILE.xlsx [--limit N] [--language en|zh]
        the expert's labelling queue as a spreadsheet to label offline
  release --dataset NAME --tag TAG [--responses] [--note TEXT]
        freeze the dataset's approved samples (with --responses: their responses and gold labels) as a release
  user add EMAIL --role admin|expert|viewer --password-stdin [--name NAME]
  backup FILE                      online backup of the database to FILE
  score --dataset NAME --metric ID [--prompt-version N] [--concurrency N] [--run NAME] [--system NAME] [--noncommittal all|any] [--release TAG]
        score responses with a metric (with --release: that release's items, as released); the same --run name resumes an
        unfinished run; --noncommittal: answer_relevancy's rule for this run (all: Ragas 0.4, the default; any: Ragas ≤0.3),
        over the dataset's setting
  report --dataset NAME --criterion NAME --metric ID --run NAME [--threshold T] [--part all|calibration|held_out]
        the judge's scores against the experts' gold labels; recorded as the metric's latest calibration
  gate --dataset NAME --run NAME --min METRIC=VALUE ... [--min-true CRITERION=VALUE ...] [--min-agreement 0.6] [--release TAG]
        for CI: non-zero when a mean is below its minimum, or when the metric has no calibration of this run's judge (same
        judge model, embedding model, prompt versions and settings) at least as strong as the agreement minimum;
        METRIC=VALUE splits on the last '=': --min "factual_correctness(mode=f1)=0.3";
        --min-true: when the corrected (true-score) interval's lower bound is below VALUE, refused without a complete sample;
        --release: also when the run does not cover that release
  sample --dataset NAME [--system S] --size K [--seed N] [--extend SAMPLE_ID]
        draw (or extend) an estimation sample: K responses uniformly at random, first in every labeller's queue
  estimate --dataset NAME --criterion C --run R [--metric ID] [--system S] [--threshold T] [--half-width H]
        the true score: judge only, experts only on the sample, and corrected (PPI++), with the labels planner and bias
  export-judge --dataset NAME --metric KEY --out DIR [--version N]
        the metric's prompts as the files Ragas's metric.load_prompts(DIR, language) reads, and goldset-calibration.json
        (the calibration of a run that used exactly these prompt versions)
  agreement --dataset NAME --criterion NAME
        inter-expert agreement of one criterion (Krippendorff's alpha, Fleiss' and pairwise Cohen's kappa)
  example                          load the bilingual example datasets

options: --json  print one JSON object instead of text
environment: GOLDSET_DB (default data/goldset.db)`;

type Opts = Record<string, string | boolean | string[] | undefined>;

/** A refusal the user can act on: printed as the message, exit code 2. */
class UsageError extends Error {}

async function readStdin(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin()) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

function need(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`missing ${name}\n\n${USAGE}`);
  return value;
}

async function cmdImport(ctx: AppContext, positionals: string[], o: Opts, out: Out): Promise<number> {
  const file = need(positionals[0], 'FILE');
  if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
  if (o.format === 'goldset' || (!o.format && await isGoldsetJsonl(file))) {
    const { datasetId, counts } = await restoreGoldsetJsonl(ctx.db, ctx.audit, file, { actorId: null, name: o.dataset as string | undefined });
    out.print(`restored "${ctx.datasets.get(datasetId)!.name}": ${Object.entries(counts).map(([k, v]) => englishCount(v, k, k === 'criterion' ? 'criteria' : `${k}s`)).join(', ')}`,
      { ok: true, restored: true, dataset: ctx.datasets.get(datasetId)!.name, dataset_id: datasetId, ...counts });
    return 0;
  }
  const sheet = await importLabellingSheet(ctx, file, o, out);
  if (sheet !== null) return sheet;
  const name = need((o.dataset as string | undefined)?.trim(), '--dataset NAME');
  const language = (o.language as string | undefined) ?? 'en';
  if (language !== 'zh' && language !== 'en') throw new UsageError('--language must be zh or en');
  const format = (o.format as ImportFormat | undefined) ?? detectFormat(file);
  if (!format || !['csv', 'jsonl', 'json', 'xlsx'].includes(format)) throw new UsageError('cannot tell the format: use --format csv|jsonl|json|xlsx');
  let ensured;
  try { ensured = ctx.datasets.ensure(null, name, language); } catch (err) {
    // A new dataset's name is held to the New dataset form's rules, in its words.
    if (err instanceof DatasetError) throw new UsageError(`--dataset: ${translator(ctx.config.cliLocale)(err.key, err.params)}`);
    throw err;
  }
  const { dataset, created } = ensured;
  const annotatorId = o.annotator ? annotatorFor(ctx, String(o.annotator)) : undefined;
  const scoreColumns = ([o['score-column'] ?? []].flat() as string[]).map((c) => c.trim()).filter((c) => c !== '');
  const result = await ctx.imports.importFile(null, dataset.id, file, {
    format, filename: file, sheet: o.sheet as string | undefined, annotatorId, criterionTypes: criterionTypes(o['criterion-type']), runName: o.run as string | undefined, scoreColumns,
  });
  if (!result.ok) {
    // What is wrong with the file, in the user's language (config.cliLocale), as the import page says it.
    const { wholeFile, messages } = importRefusal(result, ctx.config.cliLocale);
    if (wholeFile) throw new UsageError(messages.join('\n'));
    const t = translator(ctx.config.cliLocale);
    const more = result.totalErrors - messages.length;
    if (out.json) out.print('', { ok: false, dataset: dataset.name, dataset_created: created, errors: messages, total_errors: result.totalErrors });
    else out.problem(`${t('import.nothing_imported')}\n${messages.join('\n')}${more > 0 ? `\n${t('import.more_errors', { n: more })}` : ''}`);
    return 1;
  }
  const n = englishCount;
  out.print(`imported ${n(result.rows, 'row')} into "${dataset.name}": ${n(result.created, 'new sample')}, ${result.matched} matched existing` +
    `, ${n(result.responsesCreated, 'new response')}, ${n(result.labels, 'label')}` +
    (result.matchedWithoutSystem ? `; ${n(result.matchedWithoutSystem, 'row')} without a system matched existing responses by question, answer and contexts`
      + (result.sharedAcrossSystems ? ` (${result.sharedAcrossSystems} of them the identical answers of several systems, which got the same scores)` : '') : '') +
    (result.criteriaCreated.length ? `; created criteria: ${result.criteriaCreated.join(', ')}` : '') +
    (result.scoreRuns.length ? `; scores imported as run "${o.run}": ${result.scoreRuns.map((r) => `${r.metric} (${r.scored} scored, ${r.missing} without score)`).join(', ')}`
      : result.scoreColumns.length ? `; score columns not imported (give --run NAME): ${result.scoreColumns.join(', ')}` : '') +
    (result.differs.length ? `; ${n(result.differs.length, 'row differs', 'rows differ')} from existing samples (kept): rows ${result.differs.slice(0, 20).join(', ')}` : '') +
    (result.ignoredColumns.length ? `; ignored columns: ${result.ignoredColumns.join(', ')}` : ''),
  { ok: true, dataset: dataset.name, dataset_id: dataset.id, dataset_created: created, rows: result.rows, created: result.created, matched: result.matched,
    differs: result.differs, responses_created: result.responsesCreated, responses_matched: result.responsesMatched,
    matched_without_system: result.matchedWithoutSystem, shared_across_systems: result.sharedAcrossSystems, labels: result.labels,
    criteria_created: result.criteriaCreated, labels_without_answer: result.labelsWithoutAnswer, score_columns: result.scoreColumns, score_runs: result.scoreRuns, ignored_columns: result.ignoredColumns });
  // The rows are committed; a server running on the same file does not know about them, so the
  // search index is completed here rather than left to its background indexer.
  ctx.searchIndex.catchUp();
  return 0;
}

/** The expert named by --annotator, created (without a password, to be invited later) if unknown. */
function annotatorFor(ctx: AppContext, email: string): number {
  const normalized = normalEmail(email);
  if (normalized === null) throw new UsageError(`--annotator ${email}: ${translator(ctx.config.cliLocale)('err.email')}`);
  const existing = ctx.users.queries.byEmail(normalized);
  if (existing) return existing.id;
  const id = ctx.users.queries.insert({ email: normalized, name: '', role: 'expert', password_hash: null });
  ctx.audit.record({ actorId: null, entityType: 'user', entityId: id, action: 'create_from_import', after: { email: normalized, role: 'expert' } });
  return id;
}

const KINDS = DECLARED_TYPES;

/** --criterion-type NAME=KIND, repeatable. */
function criterionTypes(values: unknown): Record<string, DeclaredType> {
  const out: Record<string, DeclaredType> = {};
  for (const v of (Array.isArray(values) ? values : values ? [values] : []) as string[]) {
    const [name, kind] = v.split('=');
    if (!name || !KINDS.includes(kind as DeclaredType)) throw new UsageError(`--criterion-type takes NAME=${KINDS.join('|')}, got ${v}`);
    out[name.trim().toLowerCase()] = kind as DeclaredType;
  }
  return out;
}

async function cmdExport(ctx: AppContext, o: Opts, out: Out): Promise<number> {
  const name = need((o.dataset as string | undefined)?.trim(), '--dataset NAME');
  const format = need(o.format as string | undefined, '--format') as ExportFormat;
  if (!EXPORT_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
  const file = need(o.out as string | undefined, '--out FILE');
  const status = (o.status as string | undefined) ?? 'approved';
  if (status !== 'approved' && status !== 'all') throw new UsageError('--status must be approved or all');
  const dataset = namedDataset(ctx, name, UsageError);
  const what = format === 'goldset-jsonl' ? 'records' : o.responses ? 'responses' : 'samples';
  const wrote = (n: number) => englishCount(n, what.slice(0, -1), what);
  const runNames = [o.run ?? []].flat() as string[];
  if (runNames.length && !o.responses) throw new UsageError('--run adds score columns to --responses exports: add --responses');
  if (typeof o.release === 'string') {
    if (runNames.length) throw new UsageError('--run adds score columns to exports of the dataset as it is now, not of a release');
    const n = await exportRelease(ctx, dataset, o.release, format, Boolean(o.responses), file);
    out.print(`wrote ${wrote(n)} of release ${o.release} to ${file}`, { ok: true, dataset: dataset.name, release: o.release, [what]: n, file, format });
    return 0;
  }
  let scoreColumns;
  try { scoreColumns = scoreColumnsOf({ runs: ctx.runner.queries, registry: ctx.registry }, dataset.id, runNames); } catch (err) {
    if (err instanceof ExportRunError) throw new UsageError(translator(ctx.config.cliLocale)(err.key, err.params));
    throw err;
  }
  const src = { db: ctx.db, samples: ctx.samples.queries, criteria: ctx.criteria.forDataset(dataset.id) };
  const opts = { datasetId: dataset.id, status, responses: Boolean(o.responses), scoreColumns, utf8: Boolean(o.utf8) } as const;
  const tmp = `${file}.partial`;
  let n: number;
  if (format === 'xlsx') {
    // What does not fit in a spreadsheet is refused before the file is begun, in the Export page's words.
    const refusal = spreadsheetRefusal(ctx.db, opts, translator(ctx.config.cliLocale));
    if (refusal) throw new UsageError(refusal);
    try {
      n = await writeRecordsXlsx(datasetRecords(src, opts), fs.createWriteStream(tmp), { mtime: new Date(), sheet: dataset.name });
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  } else {
    const fd = fs.openSync(tmp, 'w');
    try {
      n = writeExport(src, opts, format, (chunk) => fs.writeSync(fd, chunk));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
  fs.renameSync(tmp, file);
  out.print(`wrote ${wrote(n)} to ${file}`, { ok: true, dataset: dataset.name, [what]: n, file, format, status });
  return 0;
}

async function cmdUser(ctx: AppContext, positionals: string[], o: Opts, out: Out, io: CliIo): Promise<number> {
  if (positionals[0] !== 'add') throw new UsageError(`unknown user command\n\n${USAGE}`);
  const t = translator(ctx.config.cliLocale);
  const given = need(positionals[1], 'EMAIL');
  const email = normalEmail(given);
  if (email === null) throw new UsageError(`${given}: ${t('err.email')}`);
  const role = need(o.role as string | undefined, '--role');
  if (role !== 'admin' && role !== 'expert' && role !== 'viewer') throw new UsageError('--role must be admin, expert or viewer');
  if (!o['password-stdin']) throw new UsageError('pass the password on standard input with --password-stdin (never on the command line)');
  const password = await readStdin(io);
  if (password.length < LIMITS.passwordMin) throw new UsageError(t('err.password_short', { limit: LIMITS.passwordMin }));
  if (password.length > LIMITS.password) throw new UsageError(t('err.too_long_limit', { limit: LIMITS.password }));
  try {
    const name = (o.name as string | undefined) ?? '';
    const nameProblem = checkName(name, LIMITS.userName);
    if (nameProblem) { const { key, params } = nameMessage(nameProblem); throw new UsageError(`--name: ${t(key, params)}`); }
    const user = await ctx.users.createUser(null, { email, name, role, password });
    out.print(`created ${role} ${user.email}`, { ok: true, id: user.id, email: user.email, role });
    return 0;
  } catch (err) {
    if (err instanceof UserError) throw new UsageError(translator(ctx.config.cliLocale)(err.key));
    throw err;
  }
}

async function cmdBackup(db: DB, positionals: string[], out: Out): Promise<number> {
  const file = need(positionals[0], 'FILE');
  if (fs.existsSync(file)) throw new UsageError(`${file} exists; choose a new file name`);
  await db.backup(file);
  out.print(`backed up to ${file}`, { ok: true, file, bytes: fs.statSync(file).size });
  return 0;
}

/** Runs one command line (without the program's name) on a terminal; the exit code: 0, 1 when it failed, 2 when it was refused. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await command(argv, io);
  } catch (err) {
    const known = err instanceof UsageError || err instanceof ArchivedError || err instanceof GoldsetFormatError || err instanceof AgreementUsageError || err instanceof ScoreUsageError || err instanceof CalibrationUsageError || err instanceof EstimateUsageError || err instanceof ReleaseUsageError || err instanceof SheetUsageError || err instanceof ConfigError || err instanceof MigrationError || (err as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS');
    const message = err instanceof Error ? err.message : String(err);
    // What went wrong may quote the data (a name, a row): written for a terminal, as every answer is (output).
    const out = output(io, argv.includes('--json'));
    if (out.json) out.print('', { ok: false, error: message });
    else out.problem(`goldset: ${message}`);
    if (!known) out.problem(String((err as Error)?.stack));
    return known ? 2 : 1;
  }
}

async function command(argv: string[], io: CliIo): Promise<number> {
  const { values: parsed, positionals } = parseArgs({
    args: argv, allowPositionals: true, strict: true,
    options: {
      dataset: { type: 'string' }, language: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' },
      status: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' }, 'password-stdin': { type: 'boolean' },
      criterion: { type: 'string' }, annotator: { type: 'string' }, run: { type: 'string', multiple: true }, metric: { type: 'string' },
      'prompt-version': { type: 'string' }, concurrency: { type: 'string' }, system: { type: 'string' },
      threshold: { type: 'string' }, part: { type: 'string' }, min: { type: 'string', multiple: true }, 'min-agreement': { type: 'string' },
      'min-true': { type: 'string', multiple: true }, size: { type: 'string' }, seed: { type: 'string' }, extend: { type: 'string' }, 'half-width': { type: 'string' },
      responses: { type: 'boolean' }, 'criterion-type': { type: 'string', multiple: true },
      version: { type: 'string' }, noncommittal: { type: 'string' }, 'score-column': { type: 'string', multiple: true }, utf8: { type: 'boolean' },
      tag: { type: 'string' }, note: { type: 'string' }, release: { type: 'string' }, sheet: { type: 'string' }, submit: { type: 'boolean' }, limit: { type: 'string' },
      json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  const o: Opts = { ...parsed };
  const [name, ...rest] = positionals;
  // --run repeats only for export (one score column set per run); every other command takes one run.
  if (name !== 'export' && Array.isArray(o.run)) o.run = o.run.at(-1);
  // Asked for, the usage is an answer (0); given instead of a command, a refusal (2).
  if (!name || o.help) { io.stdout(USAGE); return o.help ? 0 : 2; }
  const config = loadConfig(io.env);
  const db = openDatabase(config.dbFile, { synchronous: config.synchronous });
  let ctx: AppContext | undefined;
  try {
    migrate(db);
    ctx = createAppContext(db, config, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, io.stderr));
    const out = output(io, Boolean(o.json));
    switch (name) {
      case 'import': return await cmdImport(ctx, rest, o, out);
      case 'export': return await cmdExport(ctx, o, out);
      case 'release': return await cmdRelease(ctx, o, out);
      case 'labelling-sheet': return await cmdLabellingSheet(ctx, o, out);
      case 'user': return await cmdUser(ctx, rest, o, out, io);
      case 'backup': return await cmdBackup(db, rest, out);
      case 'agreement': return await cmdAgreement(ctx, o, out);
      case 'score': return await cmdScore(ctx, o, out);
      case 'report': return await cmdReport(ctx, o, out);
      case 'gate': return await cmdGate(ctx, o, out);
      case 'sample': return await cmdSample(ctx, o, out);
      case 'estimate': return await cmdEstimate(ctx, o, out);
      case 'export-judge': return cmdExportJudge(ctx, o, out);
      case 'example': {
        const ids = await loadExampleData(ctx, null);
        out.print(ids.length ? `created ${ids.length} example datasets` : 'the example datasets exist already', { ok: true, created: ids });
        return 0;
      }
      default: throw new UsageError(`unknown command: ${name}\n\n${USAGE}`);
    }
  } finally {
    // The import reader's thread, when a command started it: a test's process goes on after the command.
    await ctx?.imports.close();
    db.close();
  }
}

