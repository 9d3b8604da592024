import type { FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { ApiError } from '../errors/index.js';

/** The largest request body accepted, in bytes (DESIGN.md section 3). */
export const BODY_LIMIT = 16 * 1024;

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

function parseJsonBody(request: FastifyRequest, text: string): unknown {
  const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ApiError(
      'unsupported_media_type',
      `Request bodies must be UTF-8 JSON; charset ${charset} is not accepted`,
    );
  }
  if (text.length === 0) throw new ApiError('validation_failed', 'Request body is required');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('malformed_json', 'Request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null) return value;
  try {
    // Prototype poisoning: a `__proto__` or `constructor.prototype` key could alter objects built from the body.
    sjson.scan(value as Record<string, unknown>, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw new ApiError(
      'validation_failed',
      'Request body contains a forbidden property name (__proto__ or constructor)',
    );
  }
  return value;
}

/**
 * Accepts `application/json` bodies only: every other media type, `text/plain` included, is a 415.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (request, body, done) => {
      try {
        done(null, parseJsonBody(request, body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}
