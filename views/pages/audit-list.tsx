// Audit events in words, in the reader's language: who did what to which thing, and what changed.
// Every entry renders whatever its shape: before/after may be null, a scalar, an array or a large
// object, the action may be one this view does not know (it is then named as it was recorded).
import type { PageContext } from '../layout.tsx';
import type { AuditRow } from '../../server/audit/queries.ts';
import type { MessageKey } from '../../server/i18n/index.ts';
import { diffText, type DiffPart } from '../../server/samples/diff.ts';
import { Diff } from './sample.tsx';
import { en } from '../../server/i18n/en.ts';
import { ITEM_TEXT_FIELDS, shorten, textLang } from '../components.tsx';

/** Longest text shown for one side of one field; longer values are cut (the event keeps them whole). */
const MAX_VALUE_CHARS = 1500;
/** Fields shown per event at most; the rest are counted. */
const MAX_FIELDS = 24;

const has = (_ctx: PageContext, key: string): key is MessageKey => Object.hasOwn(en, key);

function parse(json: string | null): Record<string, unknown> {
  if (json === null) return {};
  let value: unknown;
  try { value = JSON.parse(json); } catch { return { value: json }; }
  if (value === null || value === undefined) return {};
  return typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}

const cut = (text: string) => shorten(text, MAX_VALUE_CHARS + 1);

/** Fields whose values are goldset's own words (a status, a role, a criterion's kind…): the message that says a value in the reader's language. */
const VALUE_WORDS: Readonly<Record<string, (v: string) => string>> = {
  status: (v) => `status.${v}`,
  role: (v) => `role.${v}`,
  language: (v) => `lang.${v}`,
  verdict: (v) => `review.verdict_${v}`,
  // A criterion's kind, or a metric's (custom, composite).
  kind: (v) => (v === 'custom' || v === 'composite' ? `metrics.kind_${v}` : `kind.${v}`),
  target: (v) => `target.${v}`,
  output: (v) => `metrics.output_${v}`,
  part: (v) => `calib.part_${v}`,
  // What a labelling sheet's labels were saved as.
  state: (v) => (v === 'submitted' ? 'label.submitted' : `status.${v}`),
};

/** A value as a reader sees it: words for statuses, roles, languages, kinds… and yes/no; lists one item per line; the rest as JSON. */
function shown(ctx: PageContext, field: string, v: unknown): string {
  const { t } = ctx;
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return t(v ? 'audit.yes' : 'audit.no');
  if (typeof v === 'string') {
    const word = Object.hasOwn(VALUE_WORDS, field) ? VALUE_WORDS[field]!(v) : '';
    return word && has(ctx, word) ? t(word as MessageKey) : cut(v);
  }
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return cut(v.join('\n'));
  return cut(JSON.stringify(v));
}

const fieldKeys = (key: string) => [`field.${key}`, `audit.field.${key}`];

function fieldName(ctx: PageContext, key: string): string {
  for (const k of fieldKeys(key)) if (has(ctx, k)) return ctx.t(k as MessageKey);
  return key;
}

/** Whether the audit log has a name for a field an event records (else it shows the key as recorded); the tests' apps check every event they made. */
export function auditFieldNamed(key: string): boolean {
  return fieldKeys(key).some((k) => Object.hasOwn(en, k));
}

const isEmpty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/** `key`: the field as recorded (the item's own texts are marked with its dataset's language). */
export interface AuditChangeRow { field: string; key: string; parts: DiffPart[] }

/** The fields that differ between before and after, as word diffs of their shown values. */
export function auditChanges(ctx: PageContext, before: string | null, after: string | null): { rows: AuditChangeRow[]; more: number } {
  const b = parse(before), a = parse(after);
  // Fields empty on both sides (e.g. notes never written) say nothing about the change.
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])]
    .filter((f) => !(isEmpty(b[f]) && isEmpty(a[f])) && JSON.stringify(b[f]) !== JSON.stringify(a[f]));
  const rows = fields.slice(0, MAX_FIELDS).map((f) => ({ field: fieldName(ctx, f), key: f, parts: diffText(shown(ctx, f, b[f]), shown(ctx, f, a[f])) }));
  return { rows, more: Math.max(0, fields.length - MAX_FIELDS) };
}

/** Where an event's thing can be looked at, if anywhere. */
function linkOf(e: AuditRow): string | null {
  const after = parse(e.after);
  const response = typeof after.response === 'number' ? after.response : null;
  switch (e.entity_type) {
    case 'sample': return e.entity_id !== null ? `/samples/${e.entity_id}` : null;
    case 'dataset': return e.entity_id !== null ? `/datasets/${e.entity_id}` : null;
    case 'run': return e.entity_id !== null ? `/runs/${e.entity_id}` : null;
    case 'label': case 'adjudication': return response !== null ? `/responses/${response}` : null;
    case 'criterion': case 'prompt': case 'metric': return e.dataset_id !== null ? `/datasets/${e.dataset_id}/${e.entity_type === 'criterion' ? 'criteria' : 'metrics'}` : null;
    case 'import': return e.dataset_id !== null ? `/datasets/${e.dataset_id}` : null;
    default: return null;
  }
}

/** "submitted sample #19 for review": the catalogue's sentence for the action, or the recorded action word for one it does not know. */
export function auditSentence(ctx: PageContext, e: AuditRow): { text: string; thing: string } {
  const { t } = ctx;
  const entity = has(ctx, `audit.entity.${e.entity_type}`) ? t(`audit.entity.${e.entity_type}` as MessageKey) : e.entity_type;
  const thing = e.entity_id !== null ? `${entity} #${e.entity_id}` : entity;
  const key = `audit.act.${e.entity_type}.${e.action}`;
  return { text: has(ctx, key) ? t(key as MessageKey, { thing }) : t('audit.act.other', { thing, action: e.action }), thing };
}

function What({ ctx, e }: { ctx: PageContext; e: AuditRow }) {
  const { text, thing } = auditSentence(ctx, e);
  const href = linkOf(e);
  const at = text.indexOf(thing);
  if (!href || at < 0) return <>{text}</>;
  return <>{text.slice(0, at)}<a href={href}>{thing}</a>{text.slice(at + thing.length)}</>;
}

function Change({ ctx, e }: { ctx: PageContext; e: AuditRow }) {
  const { rows, more } = auditChanges(ctx, e.before, e.after);
  if (!rows.length) return <span class="sub">—</span>;
  const lang = e.entity_type === 'sample' && e.dataset_language ? textLang(e.dataset_language) : undefined;
  return (
    <dl class="kv compact">
      {rows.map((c) => <><dt>{c.field}</dt><dd lang={ITEM_TEXT_FIELDS.has(c.key) ? lang : undefined}><Diff parts={c.parts} /></dd></>)}
      {more > 0 && <><dt /><dd class="sub">{ctx.t('audit.more_fields', { n: more })}</dd></>}
    </dl>
  );
}

export function AuditList({ ctx, events }: { ctx: PageContext; events: AuditRow[] }) {
  const { t } = ctx;
  return (
    <table class="table audit">
      <thead><tr><th scope="col" class="nowrap">{t('audit.when')}</th><th scope="col" class="nowrap">{t('audit.who')}</th><th scope="col">{t('audit.what')}</th><th scope="col">{t('audit.change')}</th></tr></thead>
      <tbody>
        {events.map((e) => (
          <tr key={e.id}>
            <td class="sub nowrap">{e.at.slice(0, 19).replace('T', ' ')}</td>
            <td>{e.actor_email ?? t('audit.system')}</td>
            <td><What ctx={ctx} e={e} /></td>
            <td><Change ctx={ctx} e={e} /></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
