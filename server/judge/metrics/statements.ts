// The statement-extraction step shared by answer_correctness and faithfulness: its reply schema
// and the clean-up applied to what the judge returned.

import { z } from 'zod';

export const StatementsSchema = z.object({ statements: z.array(z.string()) });
/** The step's input: the text (an answer or a ground truth) and the question it replies to. */
export const StatementsInput = z.object({ question: z.string(), text: z.string() });

/** Statements as the judge gave them, trimmed, without blank entries. */
export function cleanStatements(statements: readonly string[]): string[] {
  return statements.map((s) => s.trim()).filter((s) => s !== '');
}
