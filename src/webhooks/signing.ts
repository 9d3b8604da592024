import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from './events.js';

/** The prefix of every signing secret, as the Standard Webhooks specification writes it. */
const SECRET_PREFIX = 'whsec_';

/** Bytes of a secret: 192 bits, within the specification's 24 to 64. */
const SECRET_BYTES = 24;

/** A new signing secret, `whsec_` and base64 of random bytes. Shown once, when the endpoint is made. */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The headers that sign one attempt of a delivery (Standard Webhooks, "Signature scheme"). */
export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs `payload` as attempt of message `id` made at `at`, once with each secret: during a rotation's overlap
 * the endpoint holds two, and a receiver that knows either one verifies the attempt. The signatures are the
 * reference library's own (`standardwebhooks`), so what we send is what every receiver's library checks.
 */
export function sign(id: string, at: Date, payload: string, secrets: readonly string[]): SignatureHeaders {
  if (secrets.length === 0) throw new Error('an endpoint has at least one signing secret');
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, at, payload));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    // Space-separated, each `v1,<base64>`: the specification's form for several signatures.
    'webhook-signature': signatures.join(' '),
  };
}

/**
 * The headers of one attempt of an event whose body is `body`: its content type and signatures, made at `at`
 * with each of `secrets`. Every attempt of an event carries its id as `webhook-id`, so a receiver drops a
 * repeat by it; the timestamp is the attempt's own, so a receiver's five-minute tolerance holds for a retry
 * days later.
 */
export function signedHeaders(
  id: string,
  body: string,
  secrets: readonly string[],
  at: Date,
): Record<string, string> {
  return { 'content-type': 'application/json', ...sign(id, at, body, secrets) };
}

/** One attempt's body and headers for `event`: the event as JSON, signed as {@link signedHeaders} says. */
export function signedMessage(
  event: WebhookEvent,
  secrets: readonly string[],
  at: Date,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  return { body, headers: signedHeaders(event.id, body, secrets, at) };
}
