// Who may read and write what: every decision about access to a dataset's data is made here, one
// rule per resource and action. Routes, exports, the prompt lab and the API ask these rules (through
// server/access/facts.ts, which reads the facts they need); views are handed the answers. The
// README's permission table is this file, and test/http/permissions.test.ts is generated from it.
//
// Labels are blind until one's own is in: an expert who may still label an item does not see the
// other experts' labels, rationales or its gold value before submitting their own, so nobody is
// swayed. Whoever cannot label the item — viewers, experts the dataset does not list as labellers
// (eval engineers), and adjudicators and admins, who must see every label to decide — reads them.
import type { Role } from '../http/context.ts';

/** What a decision depends on: the user's role and standing in one dataset. */
export interface Standing {
  role: Role;
  /** The dataset lists its labellers (an admin named some); otherwise every expert and admin labels. */
  labellersListed: boolean;
  /** This user is among the listed labellers. */
  listedLabeller: boolean;
  /** An admin named this user an adjudicator of the dataset. */
  listedAdjudicator: boolean;
  /** Archived datasets are read-only (only un-archiving changes them). */
  archived: boolean;
}

/** Facts about one item (a response): whether the user has submitted their own label of it. */
export interface ItemFacts { submittedOwn: boolean }

/** Facts about one sample: whether the user wrote it or last changed its content. */
export interface SampleFacts { wroteOrLastChanged: boolean }

/** Experts and admins label; when a dataset lists labellers, only they do. Viewers never. */
export function mayLabel(s: Standing): boolean {
  return s.role !== 'viewer' && (!s.labellersListed || s.listedLabeller);
}

/** Admins adjudicate every dataset; experts the datasets that name them. */
export function mayAdjudicate(s: Standing): boolean {
  return s.role === 'admin' || (s.role === 'expert' && s.listedAdjudicator);
}

/** Others' labels are readable by those who cannot be swayed by them: see the header. */
function seesLabels(s: Standing): boolean {
  return mayAdjudicate(s) || !mayLabel(s);
}

export const PERMISSIONS = {
  dataset: {
    /** Its samples, responses, criteria, runs, reports and agreement figures: every signed-in user. */
    read: (_s: Standing) => true,
    /** Samples, criteria, imports, runs, prompts, calibrations, verdicts: experts and admins, not while archived. */
    write: (s: Standing) => s.role !== 'viewer' && !s.archived,
    /** Name, language, archiving: experts and admins; while archived, only un-archiving (datasets/service.ts). */
    settings: (s: Standing) => s.role !== 'viewer',
    /** Overlap, labellers and adjudicators: admins, not while archived. */
    assign: (s: Standing) => s.role === 'admin' && !s.archived,
  },
  labels: {
    /** Label items of the dataset. */
    write: (s: Standing) => mayLabel(s) && !s.archived,
    /** Set gold values (adjudicate, correct through a review verdict). */
    adjudicate: (s: Standing) => mayAdjudicate(s) && !s.archived,
    /** Other experts' labels, rationales and the gold value of one item. */
    readItem: (s: Standing, item: ItemFacts) => seesLabels(s) || item.submittedOwn,
    /** Everyone's labels and gold values at once: exports with gold, goldset JSONL, the disagreement list. */
    readAll: (s: Standing) => seesLabels(s),
  },
  sample: {
    /** Approve: four eyes, neither the author nor whoever last changed the content. */
    approve: (s: Standing, sample: SampleFacts) => s.role !== 'viewer' && !s.archived && !sample.wroteOrLastChanged,
  },
} as const;

export type Resource = keyof typeof PERMISSIONS;
