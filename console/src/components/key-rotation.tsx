import { Time } from '../../../kit/components/time.js';
import { href } from '../router.js';
import type { ApiKey } from '../types.js';

/**
 * Where a key stands in its rotations: `Rotated → key_…` with the end of its grace period (its expiry, which
 * the rotation set), and `Replaces key_…` for the key that took over from another.
 */
export function KeyRotation({ apiKey, predecessor }: { apiKey: ApiKey; predecessor?: ApiKey | undefined }) {
  const parts = [];
  if (apiKey.replacedBy !== null) {
    // A revoked key says so in its state; the end of its grace period no longer matters.
    const end = apiKey.state === 'revoked' ? null : apiKey.state === 'expired' ? 'ended' : 'works until';
    parts.push(
      <span key="successor">
        Rotated → <a href={href('keys', apiKey.replacedBy)}>{apiKey.replacedBy}</a>
        {end && (
          <span class="muted">
            , {end} <Time iso={apiKey.expiresAt} />
          </span>
        )}
      </span>,
    );
  }
  if (predecessor !== undefined) {
    parts.push(
      <span key="predecessor">
        Replaces <a href={href('keys', predecessor.id)}>{predecessor.id}</a>
      </span>,
    );
  }
  if (parts.length === 0) return <span class="muted">—</span>;
  return <span class="rotation">{parts}</span>;
}
