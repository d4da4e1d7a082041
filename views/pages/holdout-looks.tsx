// How many times the held-out part has been looked at for a metric, shown next to a held-out check's figures.
import type { PageContext } from '../layout.tsx';

export interface HoldoutLookView { metric: string; look: number; total: number }

export function HoldoutLookNote({ ctx, looks }: { ctx: PageContext; looks: HoldoutLookView }) {
  const { t } = ctx;
  return (
    <p class={looks.total > 1 ? 'alert' : 'hint'} role="status">
      {t('fh.look_note', { look: looks.look, total: looks.total, metric: looks.metric })}
      {looks.total > 1 && <> {t('fh.look_spent')}</>}
    </p>
  );
}
