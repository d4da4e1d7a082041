// An email address, as goldset takes one from every entry point (the setup and user forms, the command
// line's `user add` and `--annotator`): trimmed, in lower case, and valid by zod's rule (which also
// refuses control characters and spaces).
import { z } from 'zod';

export const emailField = z.string({ error: 'err.required' }).trim().toLowerCase().min(1, { error: 'err.required' }).pipe(z.email({ error: 'err.email' }));

/** The address in the form goldset stores it, or null when it is not one. */
export function normalEmail(value: string): string | null {
  const parsed = emailField.safeParse(value);
  return parsed.success ? parsed.data : null;
}
