import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { AuditEntry } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import { ADMIN_API, personName, ROLES, type Role, roleAllows } from '../contract/index.js';
import { keyDigest } from '../keys/index.js';
import type { PersonRecord } from '../people/index.js';
import type { AdminTokenRecord } from './admin-tokens.js';

/**
 * Who makes a request to the admin API: an admin token (sent, or of the console session it started) or a
 * person signed in with OpenID Connect. Its id is the actor of its changes and the key of its rate limit.
 */
export interface AdminPrincipal {
  /** `adm_…` for a token, `per_…` for a person. */
  id: string;
  /** For people to read: the token's name, or the person's name or email. */
  name: string;
  role: Role;
}

/**
 * A browser session as stored: the SHA-256 digest of its two secrets (the cookie's value and the one the
 * console sends in `X-Petstore-Session`), never either of them. It is a token's or a person's.
 */
export interface SessionRecord {
  digest: string;
  /** The admin token it was made with: its changes are audited as that token's. Null for a person's. */
  tokenId: string | null;
  /** The person who signed in with OpenID Connect; null for a token's session. */
  personId: string | null;
  /** A person's session: the role their groups gave at sign-in (a token's session has its token's). */
  role: Role | null;
  /**
   * A person's refresh token, sealed with a key made from the session's two secrets, which are never stored:
   * the database alone cannot open it. Null for a token's session, or when the provider gave none.
   */
  refreshToken: string | null;
  /** When the provider was last asked about the person (`PersonRecheck`); null for a token's session. */
  checkedAt: string | null;
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
  /**
   * Ends every live session of a person, audited once, and answers how many ended. With `revoking`, in the
   * same transaction, also revokes every live token the person made (directly or through their tokens, as
   * `AdminTokenRepository.madeByPeople` lists them), each audited with `revoking`'s entry for it; answers them.
   */
  endOfPerson(
    personId: string,
    at: string,
    audit: AuditEntry,
    revoking?: (tokenId: string) => AuditEntry,
  ): Promise<{ ended: number; revoked: AdminTokenRecord[] }>;
  /**
   * Takes the turn to ask the provider about a session's person: moves `checkedAt` from `seen` to `at`, and
   * answers false when another request (on any instance) moved it first.
   */
  claimCheck(digest: string, seen: string, at: string): Promise<boolean>;
  /** Keeps the refresh token a provider gave in place of the one before (sealed). */
  keepRefreshToken(digest: string, sealed: string): Promise<void>;
  /** Deletes the sessions that ended or expired before `before`; they can never come back. */
  prune(before: string): Promise<number>;
}

/**
 * How a person's session is checked with their provider while it lasts: every `everyMs` at their next
 * request, with their refresh token. `ended`: the provider refused it or the person's groups give no role
 * any more, so the session ends, saying why; undefined: the provider could not be asked, so the session
 * goes on and is checked at the next request.
 */
export interface PersonRecheck {
  everyMs: number;
  check(
    refreshToken: string,
    person: PersonRecord,
  ): Promise<{ refreshToken: string } | { ended: string } | undefined>;
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
  tokenId: string | null;
  tokenName: string | null;
  person: { id: string; subject: string; email: string | null; name: string | null } | null;
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

/** A session just started: its two secrets, each shown once (the cookie's value to the browser, the other to
 * the console's script), and the session. */
export interface StartedSession {
  credentials: SessionCredentials;
  view: SessionView;
}

export interface Sessions {
  /** Starts a session for a token. */
  start(token: AdminTokenRecord): Promise<StartedSession>;
  /** Starts a session for a person just signed in, with the role their groups give and their refresh token. */
  startForPerson(person: PersonRecord, refreshToken: string | undefined): Promise<StartedSession>;
  /**
   * The session of both secrets and who it is, if it is live: not ended, within its idle and absolute ends,
   * its token not revoked (in memory, as for tokens sent in `Authorization`), its person still let in by
   * their provider when it was last asked. A request of the console made in the background (`active` false,
   * a page refreshing itself) does not count as the person's activity.
   */
  identify(
    credentials: SessionCredentials,
    active: boolean,
  ): Promise<{ view: SessionView; principal: AdminPrincipal; digest: string } | undefined>;
  /** Ends the session of a digest `identify` answered; false if it was not live. */
  end(digest: string, principal: AdminPrincipal): Promise<boolean>;
  /**
   * Ends every live session of a person, as `actor` asked, and with `revokeTokens` revokes every live token
   * they made too, in one unit of work: how many sessions ended, and the tokens revoked.
   */
  endOfPerson(
    personId: string,
    actor: string,
    revokeTokens: boolean,
  ): Promise<{ ended: number; revoked: AdminTokenRecord[] }>;
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

/**
 * A refresh token is kept sealed (AES-256-GCM) under a key derived (HKDF) from the session's two secrets:
 * only a request that carries them can open it, so a copy of the database holds no usable token.
 */
function sealingKey({ cookie, secret }: SessionCredentials): Buffer {
  return Buffer.from(hkdfSync('sha256', `${cookie}.${secret}`, '', 'petstore session refresh token', 32));
}

function seal(credentials: SessionCredentials, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(credentials), iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), sealed]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

function unseal(credentials: SessionCredentials, sealed: string): string | undefined {
  const [version, iv, tag, text] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || tag === undefined || text === undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(credentials), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(text, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return undefined;
  }
}

/** Whose a session is, as its view says it: a token's, or a person's with the role their groups gave. */
type Holder = Pick<SessionView, 'tokenId' | 'tokenName' | 'person' | 'role'>;

const tokenHolder = (token: AdminTokenRecord): Holder => ({
  tokenId: token.id,
  tokenName: token.name,
  person: null,
  role: token.role,
});

const personHolder = (person: PersonRecord, role: Role): Holder => ({
  tokenId: null,
  tokenName: null,
  person: { id: person.id, subject: person.subject, email: person.email, name: person.name },
  role,
});

/** A person as a principal. */
const personPrincipal = (person: PersonRecord, role: Role): AdminPrincipal => ({
  id: person.id,
  name: personName(person),
  role,
});

export function createSessions(deps: {
  sessions: SessionRepository;
  /** The live token of an id (not revoked), from the authenticator's memory. */
  tokenById: (id: string) => AdminTokenRecord | undefined;
  /** Rereads the tokens, if the budget allows, for an id `tokenById` did not know (a token made elsewhere). */
  recheckToken: (id: string) => Promise<void> | undefined;
  /** The people who sign in with OpenID Connect. */
  people: { find(id: string): Promise<PersonRecord | undefined> };
  /** How a person's session is checked with their provider; undefined when sign-in with one is off. */
  recheck: PersonRecheck | undefined;
  clock: Clock;
}): Sessions {
  const { sessions, tokenById, recheckToken, people, recheck, clock } = deps;
  /** The token of a session, reread once when this instance has not seen it yet. */
  async function tokenOf(id: string): Promise<AdminTokenRecord | undefined> {
    const known = tokenById(id);
    if (known !== undefined) return known;
    await recheckToken(id);
    return tokenById(id);
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  const view = (record: SessionRecord, holder: Holder, lastSeen: number): SessionView => ({
    ...holder,
    operations: operationsOf(holder.role),
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    idleExpiresAt: iso(Math.min(lastSeen + SESSION_IDLE_MS, Date.parse(record.expiresAt))),
  });
  const audit = (
    actor: string,
    at: string,
    action: 'session.started' | 'session.ended',
    details: Record<string, unknown> = {},
  ): AuditEntry => ({ at, actor, action, target: actor, details });

  async function begin(
    record: Omit<SessionRecord, 'digest' | 'createdAt' | 'lastSeenAt' | 'expiresAt' | 'endedAt'>,
    entry: (at: string) => AuditEntry,
    credentials: SessionCredentials,
    now: number,
  ) {
    const full: SessionRecord = {
      ...record,
      digest: digestOf(credentials) as string,
      createdAt: iso(now),
      lastSeenAt: iso(now),
      expiresAt: iso(now + SESSION_MAX_MS),
      endedAt: null,
    };
    await sessions.prune(iso(now - KEPT_AFTER_END_MS));
    await sessions.insert(full, entry(full.createdAt));
    return full;
  }
  const newCredentials = (): SessionCredentials => ({
    cookie: COOKIE_PREFIX + randomBytes(32).toString('base64url'),
    secret: SECRET_PREFIX + randomBytes(32).toString('base64url'),
  });

  /**
   * Asks the provider about a person's session when its turn has come (one request of all instances asks);
   * false when the session ended for it.
   */
  async function stillLetIn(
    record: SessionRecord,
    person: PersonRecord,
    credentials: SessionCredentials,
    now: number,
  ): Promise<boolean> {
    const { checkedAt, refreshToken } = record;
    if (recheck === undefined || checkedAt === null || refreshToken === null) return true;
    if (now < Date.parse(checkedAt) + recheck.everyMs) return true;
    if (!(await sessions.claimCheck(record.digest, checkedAt, iso(now)))) return true;
    const token = unseal(credentials, refreshToken);
    if (token === undefined) return true;
    const outcome = await recheck.check(token, person);
    if (outcome === undefined) return true;
    if ('ended' in outcome) {
      const at = iso(now);
      await sessions.end(record.digest, at, audit(person.id, at, 'session.ended', { reason: outcome.ended }));
      return false;
    }
    if (outcome.refreshToken !== token)
      await sessions.keepRefreshToken(record.digest, seal(credentials, outcome.refreshToken));
    return true;
  }

  return {
    async start(token) {
      const now = clock.now();
      const credentials = newCredentials();
      const record = await begin(
        { tokenId: token.id, personId: null, role: null, refreshToken: null, checkedAt: null },
        (at) => audit(token.id, at, 'session.started'),
        credentials,
        now,
      );
      return { credentials, view: view(record, tokenHolder(token), now) };
    },
    async startForPerson(person, refreshToken) {
      const now = clock.now();
      const credentials = newCredentials();
      const record = await begin(
        {
          tokenId: null,
          personId: person.id,
          role: person.role,
          refreshToken: refreshToken === undefined ? null : seal(credentials, refreshToken),
          checkedAt: iso(now),
        },
        (at) => audit(person.id, at, 'session.started', { role: person.role, issuer: person.issuer }),
        credentials,
        now,
      );
      return { credentials, view: view(record, personHolder(person, person.role), now) };
    },
    async identify(credentials, active) {
      const digest = digestOf(credentials);
      if (digest === undefined) return undefined;
      const record = await sessions.find(digest);
      if (record === undefined || record.endedAt !== null) return undefined;
      const now = clock.now();
      const lastSeen = Date.parse(record.lastSeenAt);
      if (now >= Date.parse(record.expiresAt) || now >= lastSeen + SESSION_IDLE_MS) return undefined;
      let holder: Holder;
      let principal: AdminPrincipal;
      if (record.personId !== null) {
        const person = await people.find(record.personId);
        if (person === undefined || !(await stillLetIn(record, person, credentials, now))) return undefined;
        const role = record.role ?? 'viewer';
        holder = personHolder(person, role);
        principal = personPrincipal(person, role);
      } else {
        const token = record.tokenId === null ? undefined : await tokenOf(record.tokenId);
        if (token === undefined) return undefined;
        holder = tokenHolder(token);
        principal = token;
      }
      if (!active || now - lastSeen < TOUCH_EVERY_MS)
        return { view: view(record, holder, lastSeen), principal, digest };
      await sessions.touch(digest, iso(now));
      return { view: view(record, holder, now), principal, digest };
    },
    end(digest, principal) {
      const at = iso(clock.now());
      return sessions.end(digest, at, audit(principal.id, at, 'session.ended'));
    },
    endOfPerson(personId, actor, revokeTokens) {
      const at = iso(clock.now());
      return sessions.endOfPerson(
        personId,
        at,
        { at, actor, action: 'person.sessions_ended', target: personId, details: {} },
        // As a token's revocation is audited, naming the person it was revoked with.
        revokeTokens
          ? (tokenId) => ({
              at,
              actor,
              action: 'admin_token.revoked',
              target: tokenId,
              details: { person: personId },
            })
          : undefined,
      );
    },
  };
}
