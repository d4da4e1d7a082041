// What a label value may be for each kind of criterion, and how raw values (forms, files) become canonical.
import { translator, type Locale } from '../i18n/index.ts';

export type CriterionKind = 'binary' | 'categorical' | 'ordinal' | 'numeric';
export type CriterionTarget = 'response' | 'context';

export interface CriterionOption { value: string; label: string }

export interface CriterionShape {
  kind: CriterionKind;
  options: CriterionOption[];
  scale_min: number | null;
  scale_max: number | null;
}

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'y', 'pass', 'passed', 'correct', 'relevant', 'ok', 'good', '是', '对', '正确', '相关', '通过']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'n', 'fail', 'failed', 'incorrect', 'wrong', 'irrelevant', 'not relevant', 'bad', '否', '错', '错误', '不相关', '不通过']);

/** A binary criterion's options when it has no labels of its own (see binaryOptionsIn for new criteria). */
export const BINARY_OPTIONS: CriterionOption[] = [{ value: '1', label: 'Yes' }, { value: '0', label: 'No' }];

/** The options a new binary criterion given no labels is stored with: in its dataset's language, as the rest of its content. */
export function binaryOptionsIn(language: Locale): CriterionOption[] {
  const t = translator(language);
  return [{ value: '1', label: t('criterion.binary_yes') }, { value: '0', label: t('criterion.binary_no') }];
}

/** The options a person picks from, in key order (key 1 = first). Numeric criteria have none. */
export function choices(c: CriterionShape): CriterionOption[] {
  if (c.kind === 'binary') return c.options.length === 2 ? c.options : BINARY_OPTIONS;
  if (c.kind === 'categorical') return c.options;
  if (c.kind === 'ordinal') {
    const out: CriterionOption[] = [];
    for (let v = c.scale_min!; v <= c.scale_max!; v++) out.push({ value: String(v), label: String(v) });
    return out;
  }
  return [];
}

/** The label of the option whose value this is; undefined for a value without one (a number, or a value no option has). */
export function optionLabel(c: CriterionShape, value: string): string | undefined {
  return choices(c).find((o) => o.value === value)?.label;
}

/** Canonical value or null when the raw value is not allowed for this criterion. */
export function canonicalValue(c: CriterionShape, raw: string): string | null {
  const text = raw.trim();
  if (!text) return null;
  switch (c.kind) {
    case 'binary': {
      const low = text.toLowerCase();
      if (TRUE_WORDS.has(low) || low === choices(c)[0]!.label.toLowerCase()) return '1';
      if (FALSE_WORDS.has(low) || low === choices(c)[1]!.label.toLowerCase()) return '0';
      return null;
    }
    case 'categorical': {
      const hit = c.options.find((o) => o.value === text) ?? c.options.find((o) => o.value.toLowerCase() === text.toLowerCase() || o.label.toLowerCase() === text.toLowerCase());
      return hit ? hit.value : null;
    }
    case 'ordinal': {
      if (!/^-?\d+(\.0+)?$/.test(text)) return null;
      const n = Math.round(Number(text));
      return n >= c.scale_min! && n <= c.scale_max! ? String(n) : null;
    }
    case 'numeric': {
      const n = Number(text);
      return text !== '' && Number.isFinite(n) && n >= 0 && n <= 1 ? String(n) : null;
    }
  }
}

/** The number a canonical value stands for, for statistics (binary 1/0, ordinal and numeric as is). */
export function numericValue(kind: CriterionKind, value: string): number | null {
  if (kind === 'categorical') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Guesses a criterion's shape from the values found in an imported column. */
export function inferShape(values: string[]): CriterionShape {
  const distinct = [...new Set(values.map((v) => v.trim()).filter(Boolean))];
  const lows = distinct.map((v) => v.toLowerCase());
  if (lows.length && lows.every((v) => TRUE_WORDS.has(v) || FALSE_WORDS.has(v))) {
    return { kind: 'binary', options: [], scale_min: null, scale_max: null }; // labels of the dataset's language when created
  }
  const nums = distinct.map(Number);
  if (distinct.length && nums.every((n) => Number.isFinite(n))) {
    if (nums.every((n) => Number.isInteger(n)) && Math.max(...nums) > 1) {
      return { kind: 'ordinal', options: [], scale_min: Math.min(1, ...nums), scale_max: Math.max(5, ...nums), };
    }
    if (nums.every((n) => n >= 0 && n <= 1)) return { kind: 'numeric', options: [], scale_min: null, scale_max: null };
  }
  return { kind: 'categorical', options: distinct.sort().map((v) => ({ value: v, label: v })), scale_min: null, scale_max: null };
}

/** Krippendorff's level of measurement for a kind of criterion. */
export function measurementLevel(kind: CriterionKind): 'nominal' | 'ordinal' | 'interval' {
  return kind === 'ordinal' ? 'ordinal' : kind === 'numeric' ? 'interval' : 'nominal';
}
