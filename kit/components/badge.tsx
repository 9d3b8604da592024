import type { ComponentChildren } from 'preact';

export type Tone = 'good' | 'warn' | 'bad' | 'neutral' | 'info';

/** A short label with a tone; the words carry the meaning, the colour only repeats it. */
export function Badge({ tone, children }: { tone: Tone; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}
