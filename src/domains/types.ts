import type { AuditEntry } from '../audit/index.js';
import type { RedirectStatus } from './config.js';

/**
 * Where a custom domain stands (docs/custom-domains.md, "States"):
 * - `pending`: added; its DNS is not right yet (or its ownership record is missing);
 * - `verified`: its DNS is right, no certificate for it is served yet;
 * - `active`: a certificate for it is served by the TLS front;
 * - `misconfigured`: it was verified or active, and its DNS no longer points here;
 * - `certificate_failed`: verified for 30 minutes and still no certificate.
 */
export const DOMAIN_STATES = [
  'pending',
  'verified',
  'active',
  'misconfigured',
  'certificate_failed',
] as const;
export type DomainState = (typeof DOMAIN_STATES)[number];

/**
 * The states in which a domain added by the CLI or the admin API is served (its redirect followed, its
 * reference published): those whose last check found its DNS pointing here.
 */
export const SERVED_STATES: ReadonlySet<DomainState> = new Set(['verified', 'active', 'certificate_failed']);

/** The states in which the TLS front may get a certificate for the domain. */
export const CERTIFIABLE_STATES: ReadonlySet<DomainState> = new Set(['verified', 'active']);

/** Where and how domains are checked (`DOMAINS_TARGET`, `DOMAINS_CA`, `DNS_RESOLVER`, `TLS_CHECK_ADDRESS`, `DOMAINS_REQUIRE_TXT`). */
export interface DomainCheckOptions {
  /** The name customers point their CNAME at; unset, no domain can be verified. */
  target: string | undefined;
  /** The CA the TLS front gets certificates from, for the CAA check. */
  ca: string;
  /** The DNS server to ask, as `address:port`; unset, the system's. */
  resolver: string | undefined;
  /** Where the TLS front listens, as `host:port`: certificates are looked for there. */
  tlsAddress: string;
  /** Whether a domain needs its ownership TXT record to be verified. */
  requireTxt: boolean;
}

/** What the last check of a domain found: its DNS and certificate as they should be, not, or no answer. */
export type CheckOutcome = 'passed' | 'failed' | 'could_not_check';

/** The certificate the TLS front served for the domain at the last check. */
export interface CertificateSeen {
  issuer: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** A custom domain as stored: how it is served, where it stands, and when it is checked next. */
export interface DomainRecord {
  /** Lower case, no trailing dot. */
  name: string;
  /** `file`: declared in the config file's `domains` block; `api`: added with the CLI or the admin API. */
  source: 'file' | 'api';
  /** The domain the reference is published at; at most one is. */
  primary: boolean;
  /** Requests for this domain are sent there with `redirectStatus`; null: it serves the reference. */
  redirectTo: string | null;
  redirectStatus: RedirectStatus | null;
  state: DomainState;
  /** Why it is in its state, in words. */
  reason: string;
  /** What its owner should change, when something is to be changed. */
  fix: string | null;
  /** The value of the ownership record `_petstore-challenge.<name> TXT`. */
  token: string;
  /** ISO 8601 times: added, entered its state, last checked (null before the first), next check due. */
  addedAt: string;
  stateSince: string;
  checkedAt: string | null;
  nextCheckAt: string;
  lastCheck: CheckOutcome | null;
  certificate: CertificateSeen | null;
}

/** What a check or a re-verify writes back. */
export type DomainCheckResult = Pick<
  DomainRecord,
  'state' | 'reason' | 'fix' | 'stateSince' | 'checkedAt' | 'nextCheckAt' | 'lastCheck' | 'certificate'
>;

/** How a domain is served: what `add` and the config file set. */
export type DomainRouting = Pick<DomainRecord, 'primary' | 'redirectTo' | 'redirectStatus'>;

/**
 * What removing a domain did: removed it, found none, or found domains that redirect to it, which would be
 * left redirecting to a name served nowhere: then nothing is removed.
 */
export type DomainRemoval =
  | { outcome: 'removed' }
  | { outcome: 'none' }
  | { outcome: 'redirected_to'; from: readonly string[] };

/** The custom domains in storage, shared by every instance. */
export interface DomainRepository {
  /** Every domain, by name. */
  list(): Promise<DomainRecord[]>;
  get(name: string): Promise<DomainRecord | undefined>;
  /**
   * Adds a domain, unless one of that name is stored, or the domain is a primary and another is: then
   * changes nothing and resolves with that stored domain, the conflict. Resolves with undefined once added.
   * The check and the insert are one step: of adds at once on any instances, at most one primary is stored.
   */
  add(record: DomainRecord, entry: AuditEntry): Promise<DomainRecord | undefined>;
  /** Removes a domain, unless others redirect to it; checked and removed in one step. */
  remove(name: string, entry: AuditEntry): Promise<DomainRemoval>;
  /** Writes the result of a check; audited only when `entry` is given (a change of state). */
  recordCheck(name: string, result: DomainCheckResult, entry?: AuditEntry): Promise<DomainRecord | undefined>;
  /**
   * Takes the domains whose check is due at `now`, at most `limit`, and moves their next check to `until`,
   * in one step: of several instances checking at once, each domain goes to one of them.
   */
  claimDue(now: string, until: string, limit: number): Promise<DomainRecord[]>;
  /**
   * Makes the domains of the config file those given: adds the new ones as `records` have them, sets the
   * routing of those already stored (taking them over from `api` if need be), and removes file domains the
   * file no longer names. The file's primary is the primary: one added through the API stops being it.
   * Changes nothing when nothing differs. Audited per domain added, removed, or no longer primary.
   */
  syncFile(records: readonly DomainRecord[], at: string): Promise<void>;
  /** Moves with every change of a domain, so instances notice changes without rereading them all. */
  version(): Promise<number>;
}
