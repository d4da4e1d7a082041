/**
 * Maps column names of imported files (Ragas datasets and result files, goldset's own exports)
 * to goldset fields, metric scores and expert labels.
 *
 * Ragas renamed its columns in 0.2 (question → user_input, answer → response, contexts →
 * retrieved_contexts, ground_truth → reference); both generations are accepted because teams
 * still have files from both. Matching is case-insensitive on the trimmed name with a leading BOM
 * removed. When two columns map to the same target (e.g. `question` and `user_input`), the first
 * one wins and the others are reported as ignored rather than merged, because silently picking
 * one value per row would hide a conflicting file.
 */

export type SampleField =
  | 'id'
  | 'question'
  | 'ground_truth'
  /** Ragas < 0.1 list form; Ragas itself used the first item, and so do we. */
  | 'ground_truths'
  | 'reference_contexts'
  | 'tags'
  | 'source'
  | 'notes'
  | 'status';

export type ResponseField = 'answer' | 'retrieved_contexts' | 'system' | 'model' | 'latency_ms' | 'cost';

export type ColumnTarget =
  | { kind: 'sample'; field: SampleField }
  | { kind: 'response'; field: ResponseField }
  | { kind: 'score'; metric: string }
  | { kind: 'label'; criterion: string }
  /** The unnamed index column pandas writes by default: dropped without being reported. */
  | { kind: 'index' }
  | { kind: 'ignored' };

export interface PlannedColumn {
  /** The name exactly as in the file (shown to users). */
  header: string;
  /** Normalized name used for matching. */
  key: string;
  target: ColumnTarget;
  /** Score columns of a known metric: the values it can take (others are refused with the row). */
  range?: ScoreRange;
}

/** The values a metric's score can take; a value farther than 1e-9 outside is refused. */
export interface ScoreRange {
  min: number;
  max: number;
  /** Only these values (binary metrics: 0 and 1). */
  values?: readonly number[];
}

export interface ColumnPlan {
  columns: PlannedColumn[];
  /** Headers kept only in `extra`: unknown names and duplicates, in file order. */
  ignored: string[];
  /** Header of the column feeding each sample/response field, e.g. 'question' → 'user_input'. */
  headerOf: Map<SampleField | ResponseField, string>;
  /** How many `human.<criterion>` columns there are (each may become a criterion). */
  labelColumns: number;
}

export interface ColumnOptions {
  /** Extra column names to read as metric scores (matched case-insensitively). */
  metrics?: readonly string[];
}

/** Accepted column names per goldset field, first = preferred (used in error messages and docs). */
export const ACCEPTED_HEADERS = {
  id: ['id', 'sample_id'],
  question: ['question', 'user_input'],
  ground_truth: ['ground_truth', 'reference', 'ground_truths'],
  reference_contexts: ['reference_contexts'],
  tags: ['tags'],
  source: ['source'],
  notes: ['notes'],
  status: ['status'],
  answer: ['answer', 'response'],
  retrieved_contexts: ['contexts', 'retrieved_contexts'],
  system: ['system'],
  model: ['model'],
  latency_ms: ['latency_ms'],
  cost: ['cost'],
} as const satisfies Record<string, readonly string[]>;

const SAMPLE_FIELDS: ReadonlySet<string> = new Set(['id', 'question', 'ground_truth', 'reference_contexts', 'tags', 'source', 'notes', 'status']);

const FIELD_BY_HEADER: ReadonlyMap<string, ColumnTarget> = (() => {
  const map = new Map<string, ColumnTarget>();
  for (const [field, headers] of Object.entries(ACCEPTED_HEADERS)) {
    for (const h of headers) {
      const f = h === 'ground_truths' ? 'ground_truths' : field;
      map.set(h, SAMPLE_FIELDS.has(field) ? { kind: 'sample', field: f as SampleField } : { kind: 'response', field: f as ResponseField });
    }
  }
  return map;
})();

const UNIT: ScoreRange = { min: 0, max: 1 };
const BINARY: ScoreRange = { min: 0, max: 1, values: [0, 1] };
/** Cosine-similarity metrics: Ragas does not clip them, and a cosine can be negative. */
const COSINE: ScoreRange = { min: -1, max: 1 };

/**
 * Metric columns Ragas 0.1–0.4 writes (`metric.name`; metrics with a mode append it since 0.2.14,
 * e.g. `factual_correctness(mode=f1)`, matched on the part before '('), the names of the 0.4
 * collections classes that people key their own tables by, goldset's own non-LLM metrics, and the
 * range of each (test/io/ragas-columns.test.ts checks this list against the columns measured with
 * Ragas 0.4.3). null: no range check (rubric scores are integers on the user's own scale).
 */
export const KNOWN_METRICS: ReadonlyMap<string, ScoreRange | null> = new Map<string, ScoreRange | null>([
  ...['answer_correctness', 'answer_relevancy', 'response_relevancy', 'answer_similarity', 'semantic_similarity'].map((m) => [m, COSINE] as const),
  ...[
    'faithfulness', 'faithfulness_with_hhem', 'context_precision', 'context_recall', 'context_utilization', 'context_relevancy', 'context_relevance',
    'context_entity_recall', 'context_entities_recall', 'llm_context_precision_with_reference', 'llm_context_precision_without_reference',
    'context_precision_with_reference', 'context_precision_without_reference', 'non_llm_context_precision_with_reference', 'llm_context_recall',
    'non_llm_context_recall', 'id_based_context_precision', 'id_based_context_recall', 'factual_correctness', 'noise_sensitivity',
    'noise_sensitivity_relevant', 'noise_sensitivity_irrelevant', 'nv_accuracy', 'nv_context_relevance', 'nv_response_groundedness',
    'answer_accuracy', 'response_groundedness', 'quoted_spans_alignment', 'non_llm_string_similarity', 'string_distance', 'bleu_score',
    'rouge_score', 'chrf_score', 'summary_score', 'data_compare_score', 'tool_call_accuracy', 'tool_call_f1', 'topic_adherence',
    'bleu_zh', 'rouge_l_zh',
  ].map((m) => [m, UNIT] as const),
  ...[
    'exact_match', 'string_present', 'harmfulness', 'maliciousness', 'coherence', 'correctness', 'conciseness', 'faithful_rate', 'relevance_rate',
    'multi_modal_faithfulness', 'multi_modal_relevance', 'llm_sql_equivalence_with_reference', 'sql_semantic_equivalence', 'agent_goal_accuracy',
  ].map((m) => [m, BINARY] as const),
  ...[
    'domain_specific_rubrics', 'instance_rubrics', 'instance_specific_rubrics', 'rubrics_score_with_reference', 'rubrics_score_without_reference',
    'labelled_rubrics_score', 'reference_free_rubrics_score',
  ].map((m) => [m, null] as const),
]);

/** The range of a known metric's score column (by its name before any '(mode=…)'), null when unchecked or unknown. */
export function scoreRange(metric: string): ScoreRange | null {
  return KNOWN_METRICS.get(metric) ?? KNOWN_METRICS.get(/^([a-z0-9_]+)\(/.exec(metric)?.[1] ?? '') ?? null;
}

const LABEL_PREFIX = 'human.';
const PANDAS_INDEX = /^unnamed: \d+$/;

export function normalizeHeader(header: string): string {
  return header.replace(/^\uFEFF/, '').trim().toLowerCase();
}

function isMetric(key: string, explicit: ReadonlySet<string>): boolean {
  if (explicit.has(key) || KNOWN_METRICS.has(key)) return true;
  const paren = /^([a-z0-9_]+)\(.*\)$/.exec(key);
  return paren !== null && KNOWN_METRICS.has(paren[1] as string);
}

/** Classifies one header on its own (no duplicate detection; see `planColumns`). */
export function classifyColumn(header: string, options: ColumnOptions = {}, explicit?: ReadonlySet<string>): ColumnTarget {
  const key = normalizeHeader(header);
  const field = FIELD_BY_HEADER.get(key);
  if (field) return field;
  if (key.startsWith(LABEL_PREFIX)) {
    const criterion = key.slice(LABEL_PREFIX.length).trim();
    return criterion === '' ? { kind: 'ignored' } : { kind: 'label', criterion };
  }
  const metrics = explicit ?? explicitMetrics(options);
  // Score ids are the normalized header, so `factual_correctness(mode=f1)` and
  // `factual_correctness(mode=precision)` stay different metrics.
  if (isMetric(key, metrics)) return { kind: 'score', metric: key };
  if (key === '' || PANDAS_INDEX.test(key)) return { kind: 'index' };
  return { kind: 'ignored' };
}

function explicitMetrics(options: ColumnOptions): ReadonlySet<string> {
  return new Set((options.metrics ?? []).map(normalizeHeader));
}

/** The slot a target fills in a row; two columns with the same slot are duplicates. */
function slotOf(target: ColumnTarget): string | null {
  switch (target.kind) {
    case 'sample':
      return `field:${target.field === 'ground_truths' ? 'ground_truth' : target.field}`;
    case 'response':
      return `field:${target.field}`;
    case 'score':
      return `score:${target.metric}`;
    case 'label':
      return `label:${target.criterion}`;
    default:
      return null;
  }
}

export function planColumns(headers: readonly string[], options: ColumnOptions = {}): ColumnPlan {
  const explicit = explicitMetrics(options);
  const seen = new Set<string>();
  const plan: ColumnPlan = { columns: [], ignored: [], headerOf: new Map(), labelColumns: 0 };
  for (const header of headers) {
    let target = classifyColumn(header, options, explicit);
    const slot = slotOf(target);
    if (slot !== null) {
      if (seen.has(slot)) target = { kind: 'ignored' };
      else seen.add(slot);
    }
    if (target.kind === 'ignored') plan.ignored.push(header);
    if (target.kind === 'label') plan.labelColumns++;
    if (target.kind === 'sample' || target.kind === 'response') {
      plan.headerOf.set(target.field === 'ground_truths' ? 'ground_truth' : target.field, header);
    }
    // A column named as a score column by the user is taken as it is; a known metric's values are checked.
    const range = target.kind === 'score' && !explicit.has(target.metric) ? scoreRange(target.metric) : null;
    plan.columns.push(range ? { header, key: normalizeHeader(header), target, range } : { header, key: normalizeHeader(header), target });
  }
  return plan;
}

/** True when the plan can produce a question (CSV files without one fail at the header). */
export function hasQuestionColumn(plan: ColumnPlan): boolean {
  return plan.headerOf.has('question');
}
