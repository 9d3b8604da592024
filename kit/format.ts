// Times are shown in UTC, labelled so: usage days and limits reset at UTC midnight, and operators in
// different places reading the same audit log should see the same times.

const NUMBER = new Intl.NumberFormat('en');

/** `2026-11-26 10:23 UTC`, or the fallback for a missing time. */
export function formatTime(iso: string | null | undefined, fallback = '—'): string {
  if (!iso) return fallback;
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  return `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `2026-11-26`. */
export const formatDay = (iso: string) => iso.slice(0, 10);

export const formatNumber = (value: number) => NUMBER.format(value);

/** `42%`, from a share such as 0.42. */
export const formatShare = (share: number) => `${Math.round(share * 100)}%`;

/** An RFC 3339 time from an `<input type="datetime-local">` value, which has no zone: the console's are UTC. */
export function fromDateTimeInput(value: string): string | undefined {
  const time = new Date(`${value}Z`);
  return value === '' || Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

/** The `<input type="datetime-local">` value of an RFC 3339 time, in UTC. */
export const toDateTimeInput = (iso: string | null | undefined) => (iso ? iso.slice(0, 16) : '');

/** `2026-11-26 10:23:45.120 UTC`: a request's time, to the millisecond the request log keeps. */
export function formatInstant(iso: string): string {
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  return `${time.toISOString().slice(0, 23).replace('T', ' ')} UTC`;
}

/** `12.3 ms`, `1,204 ms`: a duration as the request log measures it. */
export const formatDuration = (ms: number) => `${ms < 100 ? ms.toFixed(1) : formatNumber(Math.round(ms))} ms`;
