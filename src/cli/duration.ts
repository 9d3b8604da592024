import { UsageError } from './args.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A duration as operators write one: a whole number and `s`, `m`, `h` or `d` (`30d`, `24h`), or `0`.
 * Returns milliseconds. @throws UsageError naming the flag
 */
export function parseDuration(flag: string, value: string, command: string): number {
  if (value === '0') return 0;
  const match = /^([1-9]\d{0,5})([smhd])$/.exec(value);
  if (match === null) {
    throw new UsageError(
      `${flag} takes a whole number and s, m, h or d, such as 30d or 24h (got ${value})`,
      command,
    );
  }
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
