import { randomBytes } from 'node:crypto';
import type { AuditEntry } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import { ADMIN_API, ROLES, type Role, roleAllows } from '../contract/index.js';
import { keyDigest } from '../keys/index.js';
import type { AdminTokenRecord } from './tokens.js';

/**
 * A browser session as stored: the SHA-256 digest of its two secrets (the cookie's value and the one the
 * console sends in `X-Petstore-Session`), never either of them.
 */
export interface SessionRecord {
  digest: string;
  /** The admin token it was made with: its changes are audited as that token's. */
  tokenId: string;
  createdAt: string;
  /** The last request it made, updated at most once a minute (`TOUCH_EVERY_MS`). */
  lastSeenAt: string;
  /** Its absolute end: 12 hours after sign-in, however busy it is. */
  expiresAt: string;
  endedAt: string | null;
}

/** Where sessions are kept: the storage implements it, so that every instance accepts every session. */
export interface SessionRepository {
  /** Stores a new session, with its audit entry in the same transaction. */
  insert(record: SessionRecord, audit: AuditEntry): Promise<void>;
  find(digest: string): Promise<SessionRecord | undefined>;
  /** Moves the last request of a session that has not ended. */
  touch(digest: string, at: string): Promise<void>;
  /** Ends a session (the first time stands), audited; false if it had already ended or never was. */
  end(digest: string, at: string, audit: AuditEntry): Promise<boolean>;
  /** Deletes the sessions that ended or expired before `before`; they can never come back. */
  prune(before: string): Promise<number>;
}

/** How long a session lives without a request, and at most. */
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 12 * 3_600_000;
/** A session's last request is written at most this often: its idle end is exact to within this. */
const TOUCH_EVERY_MS = 60_000;
/** Ended and expired sessions are kept a day (for nothing but a look), then pruned as new ones start. */
const KEPT_AFTER_END_MS = 86_400_000;

/** A session as the admin API shows it: never the cookie's value or its digest. */
export interface SessionView {
  tokenId: string;
  tokenName: string;
  role: Role;
  /** The admin operations the role allows, for the console to offer only those. */
  operations: readonly string[];
  createdAt: string;
  expiresAt: string;
  idleExpiresAt: string;
}

/** What identifies a session: both of its secrets. */
export interface SessionCredentials {
  /** The cookie's value, which the browser sends by itself. */
  cookie: string;
  /** The second secret, which only the console's own script sends, in `X-Petstore-Session`. */
  secret: string;
}

export interface Sessions {
  /**
   * Starts a session for a token; answers its two secrets (each shown once: the cookie's value to the browser,
   * the other to the console's script) and the session.
   */
  start(token: AdminTokenRecord): Promise<{ credentials: SessionCredentials; view: SessionView }>;
  /**
   * The session of both secrets and its token, if it is live: not ended, within its idle and absolute ends,
   * and its token not revoked (in memory, as for tokens sent in `Authorization`). A request of the console
   * made in the background (`active` false, a page refreshing itself) does not count as the person's activity.
   */
  identify(
    credentials: SessionCredentials,
    active: boolean,
  ): Promise<{ view: SessionView; token: AdminTokenRecord; digest: string } | undefined>;
  /** Ends the session of a digest `identify` answered; false if it was not live. */
  end(digest: string, token: AdminTokenRecord): Promise<boolean>;
}

/** The admin operations each role may call, in the document's order. */
const OPERATIONS_OF = new Map<Role, readonly string[]>(
  ROLES.map((role) => [
    role,
    ADMIN_API.operations
      .filter((operation) => operation.role === undefined || roleAllows(role, operation.role))
      .map((operation) => operation.operationId),
  ]),
);

const operationsOf = (role: Role) => OPERATIONS_OF.get(role) ?? [];

/**
 * The secrets: 32 random bytes each, base64url, with a prefix that says what they are. A cookie is not scoped
 * by port, so over plain HTTP on loopback any other local server the operator's browser visits receives it;
 * the second secret lives in the console's own storage, which is scoped by origin, port included, and no
 * browser sends it by itself.
 */
const COOKIE_PREFIX = 'pss_';
const SECRET_PREFIX = 'pssh_';
const COOKIE_PATTERN = /^pss_[A-Za-z0-9_-]{43}$/;
const SECRET_PATTERN = /^pssh_[A-Za-z0-9_-]{43}$/;

/** The stored digest of a session's secrets; undefined when either is not one of ours. */
function digestOf({ cookie, secret }: SessionCredentials): string | undefined {
  if (!COOKIE_PATTERN.test(cookie) || !SECRET_PATTERN.test(secret)) return undefined;
  return keyDigest(`${cookie}.${secret}`);
}

export function createSessions(deps: {
  sessions: SessionRepository;
  /** The live token of an id (not revoked), from the authenticator's memory. */
  tokenById: (id: string) => AdminTokenRecord | undefined;
  /** Rereads the tokens, if the budget allows, for an id `tokenById` did not know (a token made elsewhere). */
  recheckToken: (id: string) => Promise<void> | undefined;
  clock: Clock;
}): Sessions {
  const { sessions, tokenById, recheckToken, clock } = deps;
  /** The token of a session, reread once when this instance has not seen it yet. */
  async function tokenOf(id: string): Promise<AdminTokenRecord | undefined> {
    const known = tokenById(id);
    if (known !== undefined) return known;
    await recheckToken(id);
    return tokenById(id);
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  const view = (record: SessionRecord, token: AdminTokenRecord, lastSeen: number): SessionView => ({
    tokenId: token.id,
    tokenName: token.name,
    role: token.role,
    operations: operationsOf(token.role),
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    idleExpiresAt: iso(Math.min(lastSeen + SESSION_IDLE_MS, Date.parse(record.expiresAt))),
  });
  const audit = (token: AdminTokenRecord, at: string, action: 'session.started' | 'session.ended') => ({
    at,
    actor: token.id,
    action,
    target: token.id,
    details: {},
  });

  return {
    async start(token) {
      const now = clock.now();
      const credentials = {
        cookie: COOKIE_PREFIX + randomBytes(32).toString('base64url'),
        secret: SECRET_PREFIX + randomBytes(32).toString('base64url'),
      };
      const record: SessionRecord = {
        digest: digestOf(credentials) as string,
        tokenId: token.id,
        createdAt: iso(now),
        lastSeenAt: iso(now),
        expiresAt: iso(now + SESSION_MAX_MS),
        endedAt: null,
      };
      await sessions.prune(iso(now - KEPT_AFTER_END_MS));
      await sessions.insert(record, audit(token, record.createdAt, 'session.started'));
      return { credentials, view: view(record, token, now) };
    },
    async identify(credentials, active) {
      const digest = digestOf(credentials);
      if (digest === undefined) return undefined;
      const record = await sessions.find(digest);
      if (record === undefined || record.endedAt !== null) return undefined;
      const token = await tokenOf(record.tokenId);
      const now = clock.now();
      const lastSeen = Date.parse(record.lastSeenAt);
      if (token === undefined || now >= Date.parse(record.expiresAt) || now >= lastSeen + SESSION_IDLE_MS)
        return undefined;
      if (!active || now - lastSeen < TOUCH_EVERY_MS)
        return { view: view(record, token, lastSeen), token, digest };
      await sessions.touch(digest, iso(now));
      return { view: view(record, token, now), token, digest };
    },
    end(digest, token) {
      const at = iso(clock.now());
      return sessions.end(digest, at, audit(token, at, 'session.ended'));
    },
  };
}
