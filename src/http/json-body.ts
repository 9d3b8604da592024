import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ParseError, parse as parseLeniently, printParseErrorCode } from 'jsonc-parser';
import sjson from 'secure-json-parse';
import { ApiError } from '../errors/index.js';

/** The largest request body accepted, in bytes (DESIGN.md section 3). */
export const BODY_LIMIT = 16 * 1024;

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * The first string in a parsed body that a store could not keep as given, with its path: one that is not
 * well-formed Unicode (a lone surrogate becomes U+FFFD in UTF-8) or that holds NUL (SQLite's length()
 * stops there). Iterative, so a deeply nested body cannot overflow the stack.
 */
function unstorableString(value: unknown): string | undefined {
  const pending: [unknown, string][] = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      if (!item.isWellFormed() || item.includes('\u0000')) return path === '' ? 'request body' : path;
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        const childPath = path === '' ? key : `${path}.${key}`;
        if (!key.isWellFormed() || key.includes('\u0000')) return childPath;
        pending.push([child, childPath]);
      }
    }
  }
  return undefined;
}

/** What went wrong at a place in a body that is not JSON, in words, by jsonc-parser's name for it. */
const JSON_PROBLEMS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'a character that starts no JSON value',
  InvalidNumberFormat: 'a number JSON cannot read',
  PropertyNameExpected: 'a property name in double quotes was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: 'a colon was expected',
  CommaExpected: 'a comma was expected',
  CloseBraceExpected: 'a closing } was expected',
  CloseBracketExpected: 'a closing ] was expected',
  EndOfFileExpected: 'the body should end here',
  InvalidCommentToken: 'JSON has no comments',
  UnexpectedEndOfComment: 'JSON has no comments',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfNumber: 'a number ends early',
  InvalidUnicode: 'a \\u escape needs four hexadecimal digits',
  InvalidEscapeCharacter: 'an escape JSON does not know',
  InvalidCharacter: 'a control character must be escaped in a string',
};

/**
 * Where a text that `JSON.parse` refused goes wrong, and how, as `: a value was expected at line 1, column 9`.
 * JSON.parse's own messages name no place on Node 20 and differ between versions, so the text is read again,
 * on this error path only, by a parser that reports each problem's offset (comments and trailing commas are
 * errors to it here, as to JSON).
 */
function whereJsonFails(text: string): string {
  const errors: ParseError[] = [];
  parseLeniently(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  if (first === undefined) return '';
  const before = text.slice(0, first.offset);
  const line = before.split('\n').length;
  const column = first.offset - before.lastIndexOf('\n');
  const problem = JSON_PROBLEMS[printParseErrorCode(first.error)] ?? 'not JSON';
  return `: ${problem} at line ${line}, column ${column}`;
}

function parseJsonBody(request: FastifyRequest, bytes: Buffer): unknown {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    // RFC 9110 section 15.5.16: a content coding the server does not support is a 415.
    throw new ApiError(
      'unsupported_media_type',
      `Content-Encoding ${encoding} is not accepted; send plain JSON`,
    );
  }
  const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ApiError(
      'unsupported_media_type',
      `Request bodies must be UTF-8 JSON; charset ${charset} is not accepted`,
    );
  }
  // An empty body is no body, whatever type it declares: the operation's schema says whether it needs one.
  if (bytes.length === 0) return undefined;
  // JSON exchanged between systems is UTF-8 (RFC 8259 section 8.1). Decoding other bytes would replace them
  // with U+FFFD and store text the client never sent, so they are refused instead.
  if (!isUtf8(bytes)) throw new ApiError('malformed_json', 'Request body is not valid UTF-8');
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('malformed_json', `Request body is not valid JSON${whereJsonFails(text)}`);
  }
  const unstorable = unstorableString(value);
  if (unstorable !== undefined) {
    throw new ApiError(
      'validation_failed',
      `${unstorable} must be well-formed Unicode text without NUL characters`,
    );
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
    { parseAs: 'buffer', bodyLimit: BODY_LIMIT },
    (request, body, done) => {
      try {
        done(null, parseJsonBody(request, body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}
