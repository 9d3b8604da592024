import { useEffect, useState } from 'preact/hooks';

/** The time now, in milliseconds, again every second. */
function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** `1 h 02 min 05 s`, `4 min 09 s`, `12 s`. */
function duration(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} min ${rest} s`;
  if (minutes > 0) return `${minutes} min ${rest} s`;
  return `${seconds % 60} s`;
}

/**
 * The time left until `resetSeconds` (Unix seconds), counted down live. Rounded up, never negative, as the
 * `Retry-After` header is. Not a live region: a screen reader would be told every second.
 */
export function Countdown({ resetSeconds }: { resetSeconds: number }) {
  const left = Math.max(0, Math.ceil(resetSeconds - useNow() / 1000));
  return (
    <time dateTime={new Date(resetSeconds * 1000).toISOString()} data-testid="countdown">
      {left === 0 ? 'now' : `in ${duration(left)}`}
    </time>
  );
}
