import { WebhookVerificationError as LibraryError, Webhook } from 'standardwebhooks';
import type { WebhookEvent } from './contract.js';

/**
 * A verified event: the union of the admin document's `webhooks`, one member per event type, written from the
 * contract at each build (contract-types.mjs). `type` tells which, and narrows `data` (an `order.placed`
 * event's is an `Order`, a `key.created` event's an `ApiKey`).
 */
export type { WebhookEvent };

/** The headers of a delivery, as Node's `request.headers` or fetch's `Headers` hold them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** A delivery that is not ours: a signature that does not match, a timestamp too old, or headers missing. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

const SIGNED = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** The three signed headers, by name in any case (Node gives them in lower case, a framework may not). */
function signedHeaders(headers: WebhookHeaders): Record<string, string> {
  const byName = new Map(
    headers instanceof Headers
      ? [...headers]
      : Object.entries(headers).map(([name, value]) => [
          name.toLowerCase(),
          Array.isArray(value) ? value.join(', ') : value,
        ]),
  );
  const get = (name: string) => byName.get(name) ?? undefined;
  const found: Record<string, string> = {};
  for (const name of SIGNED) {
    const value = get(name);
    if (value === undefined) throw new WebhookVerificationError(`The delivery has no ${name} header`);
    found[name] = value;
  }
  return found;
}

/**
 * Checks a delivery with the endpoint's signing secret (`whsec_…`) and returns its event: the Standard
 * Webhooks verification, by its reference library, of the body exactly as it arrived (parse it after,
 * never before). Throws {@link WebhookVerificationError} when the signature does not match or the timestamp
 * is more than five minutes off. During a rotation each delivery carries both secrets' signatures, so the
 * new secret verifies it as soon as you deploy it.
 *
 * @example
 * const event = verifyWebhook(rawBody, request.headers, process.env.PETSTORE_WEBHOOK_SECRET);
 * if (event.type === 'order.placed') ship(event.data.id); // data is an Order here
 */
export function verifyWebhook(body: string | Buffer, headers: WebhookHeaders, secret: string): WebhookEvent {
  try {
    return new Webhook(secret).verify(body, signedHeaders(headers)) as WebhookEvent;
  } catch (error) {
    if (error instanceof LibraryError) throw new WebhookVerificationError(error.message);
    throw error;
  }
}
