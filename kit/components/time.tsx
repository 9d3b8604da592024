import { formatInstant, formatTime } from '../format.js';

/**
 * A time as `2026-11-26 10:23 UTC` (`precise`: to the millisecond, as the request log keeps it), in a
 * `<time>` element that holds the exact instant (its `datetime`, and its `title` for a pointer), and may break
 * between its date and its hour but never inside either (a narrow column would otherwise break the date at
 * its hyphens).
 */
export function Time({
  iso,
  fallback = '—',
  precise = false,
}: {
  iso: string | null | undefined;
  fallback?: string;
  precise?: boolean;
}) {
  const text = precise && iso ? formatInstant(iso) : formatTime(iso, fallback);
  const space = text.indexOf(' ');
  if (!iso || space === -1) return <>{text}</>;
  return (
    <time dateTime={iso} title={iso}>
      <span class="nowrap">{text.slice(0, space)}</span> <span class="nowrap">{text.slice(space + 1)}</span>
    </time>
  );
}
