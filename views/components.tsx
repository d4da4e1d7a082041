// Small shared pieces of form and list markup, so every form labels and reports errors the same way.
import type { Children } from './jsx-runtime.ts';
import type { FieldErrors } from '../server/http/forms.ts';

export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

interface FieldProps {
  name: string;
  label: string;
  errors?: FieldErrors | undefined;
  hint?: string | undefined;
  children: Children;
  id?: string | undefined;
}

/** A labelled control with its hint and its error beside it, wired up for screen readers. */
export function Field({ name, label, errors, hint, children, id }: FieldProps) {
  const error = errors?.[name];
  const fieldId = id ?? `f-${name}`;
  return (
    <div class={error ? 'field has-error' : 'field'}>
      <label for={fieldId}>{label}</label>
      {children}
      {hint && <p class="hint" id={`${fieldId}-hint`}>{hint}</p>}
      {error && <p class="error" id={`${fieldId}-error`} role="alert">{error}</p>}
    </div>
  );
}

export function FormError({ errors }: { errors?: FieldErrors | undefined }) {
  return errors?._form ? <div class="alert" role="alert">{errors._form}</div> : null;
}

export function StatusBadge({ status, label }: { status: string; label: string }) {
  return <span class={`badge status-${status}`}>{label}</span>;
}

export function Kbd({ children }: { children: Children }) {
  return <kbd>{children}</kbd>;
}
