// `goldset agreement --dataset NAME --criterion NAME [--json]`: inter-expert agreement of one criterion.
// With --json it prints one object with exactly the keys in AGREEMENT_JSON_KEYS (other programs read them).
import type { AppContext } from '../app-context.ts';
import { AGREEMENT_JSON_KEYS, agreementFor, type Agreement } from './service.ts';
import { namedCriterion, namedDataset } from '../datasets/named.ts';
import type { Printer } from '../io/cli-out.ts';

/** A refusal the user can act on (unknown dataset or criterion, missing option): the CLI exits with code 2. */
export class AgreementUsageError extends Error {
  override name = 'AgreementUsageError';
}

function option(o: Record<string, unknown>, name: string): string {
  const v = o[name];
  if (typeof v !== 'string' || !v.trim()) throw new AgreementUsageError(`missing --${name} NAME`);
  return v.trim();
}

/** The figures other programs depend on, and nothing else. */
export function agreementJson(a: Agreement): Record<(typeof AGREEMENT_JSON_KEYS)[number], unknown> {
  return {
    n_items: a.n_items,
    n_annotators: a.n_annotators,
    level: a.level,
    krippendorff_alpha: a.krippendorff_alpha,
    fleiss_kappa: a.fleiss_kappa,
    percent_agreement: a.percent_agreement,
    pairwise_cohen_kappa: a.pairwise_cohen_kappa.map((p) => ({ a: p.a, b: p.b, n: p.n, kappa: p.kappa })),
  };
}

const num = (x: number | null) => (x === null ? '-' : x.toFixed(3));

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_c, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

export function agreementText(dataset: string, criterion: { name: string; kind: string }, a: Agreement): string {
  const fleissWhy = a.fleiss_note === 'numeric' ? ' (not for numeric scores)'
    : a.fleiss_note === 'unequal_counts' ? ' (items have different numbers of labels)' : '';
  const lines = [
    `agreement of criterion "${criterion.name}" (${criterion.kind}) in dataset "${dataset}"`,
    '',
    table([
      ['items with >= 2 labels', String(a.n_items)],
      ['labelled items', String(a.n_units)],
      ['annotators', String(a.n_annotators)],
      ['level', a.level],
      ["Krippendorff's alpha", num(a.krippendorff_alpha)],
      ["Fleiss' kappa", num(a.fleiss_kappa) + fleissWhy],
      ['percent agreement', num(a.percent_agreement)],
    ]),
  ];
  if (a.pairwise_cohen_kappa.length) {
    lines.push('', a.kappa_weights === null
      ? "pairwise (Cohen's kappa is not defined for numeric scores):"
      : `pairwise Cohen's kappa (${a.kappa_weights === 'quadratic' ? 'quadratic weights' : 'unweighted'}):`);
    lines.push(table([['a', 'b', 'n', 'kappa'], ...a.pairwise_cohen_kappa.map((p) => [p.a, p.b, String(p.n), num(p.kappa)])]));
  }
  return lines.join('\n');
}

export async function cmdAgreement(ctx: AppContext, o: Record<string, unknown>, out: Printer): Promise<number> {
  const datasetName = option(o, 'dataset');
  const criterionName = option(o, 'criterion');
  const dataset = namedDataset(ctx, datasetName, AgreementUsageError);
  const criterion = namedCriterion(ctx, dataset, criterionName, AgreementUsageError);
  const a = agreementFor(ctx, criterion);
  out.print(agreementText(dataset.name, criterion, a), agreementJson(a));
  return 0;
}
