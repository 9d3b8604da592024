/** The source of time for everything that counts windows or ages: injected, so tests can move it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to, for tests. */
export class FakeClock implements Clock {
  #now: number;
  constructor(start: number | string) {
    this.#now = typeof start === 'number' ? start : Date.parse(start);
  }
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    this.#now += ms;
  }
  set(at: number | string): void {
    this.#now = typeof at === 'number' ? at : Date.parse(at);
  }
}

/** An RFC 3339 date and time with its offset, in parts: `Date.parse` alone would take `2027-01-31` or `Jan 31`. */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** The days of `month` (1 to 12) of `year`, in the proleptic Gregorian calendar. */
function daysIn(year: number, month: number): number {
  // setUTCFullYear, as Date.UTC would take the years 0 to 99 for 1900 to 1999.
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(year, month, 0);
  return lastDay.getUTCDate();
}

/**
 * The first and last instants whose UTC year has four digits, 0001 to 9999: what `toISOString` writes back as
 * it was given. Year 0000, or 0001-01-01 at +01:00, would come back as `-000001-12-31T…`.
 */
const FIRST_INSTANT = -62_135_596_800_000;
const LAST_INSTANT = 253_402_300_799_999;

/** Whether an instant falls in the UTC years 0001 to 9999, which every store and `toISOString` take. */
export function isWritableInstant(ms: number): boolean {
  return ms >= FIRST_INSTANT && ms <= LAST_INSTANT;
}

/**
 * The milliseconds of an RFC 3339 date and time (`2027-01-31T00:00:00Z`, `…+02:00`), or undefined when it is
 * not one, names a time that does not exist, or falls outside the UTC years 0001 to 9999: JavaScript's own
 * parser moves `2027-02-30` to March 2nd and takes hour 24, where a client who wrote them made a mistake that
 * must be refused, not guessed at.
 */
export function parseTimestamp(text: string): number | undefined {
  const parts = TIMESTAMP.exec(text);
  if (parts === null) return undefined;
  const part = (index: number) => Number(parts[index] ?? 0);
  const [year, month, day] = [part(1), part(2), part(3)];
  const exists =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    part(4) <= 23 &&
    part(5) <= 59 &&
    part(6) <= 59 &&
    part(8) <= 23 &&
    part(9) <= 59;
  if (!exists) return undefined;
  const ms = Date.parse(text);
  return isWritableInstant(ms) ? ms : undefined;
}
