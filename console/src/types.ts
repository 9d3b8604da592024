// The shapes the console reads, from the admin API's contract. admin.ts is imported, not the contract's
// index, because the index also re-exports modules written for Node, which this DOM-only build cannot check.
import type { Static } from '@sinclair/typebox';
import type {
  ApiKeyCreated as ApiKeyCreatedSchema,
  ApiKey as ApiKeySchema,
  AuditEvent as AuditEventSchema,
  DomainRemoval as DomainRemovalSchema,
  Domain as DomainSchema,
} from '../../src/contract/admin.js';

export type { ApiKeyChange, NewApiKey, NewDomain } from '../../src/contract/admin.js';
export type { PlanName, Scope } from '../../src/contract/keys.js';

export interface Limits {
  perMinute: number;
  perDay: number;
}

/** An API key, with the limits it runs under (its plan's, or its own for enterprise). */
export type ApiKey = Static<typeof ApiKeySchema> & { effectiveLimits: Limits };
export type ApiKeyCreated = Static<typeof ApiKeyCreatedSchema> & { effectiveLimits: Limits };
export type AuditEvent = Static<typeof AuditEventSchema>;
export type Domain = Static<typeof DomainSchema>;
export type DomainState = Domain['state'];
export type DomainRemoval = Static<typeof DomainRemovalSchema>;

/** A browser session, made from an admin token; the token itself never reaches the console's memory after. */
export interface Session {
  tokenId: string;
  tokenName: string;
  createdAt: string;
  expiresAt: string;
  idleExpiresAt: string;
}

export type Granularity = 'hour' | 'day';

/** The answers of one hour or one day, by outcome. */
export interface UsageBucket {
  start: string;
  success: number;
  clientErrors: number;
  rateLimited: number;
  serverErrors: number;
}

export interface UsageSeries {
  key: string | null;
  granularity: Granularity;
  from: string;
  to: string;
  buckets: UsageBucket[];
}

/** One key's use of a day, most used first. */
export interface KeyUsage extends Omit<UsageBucket, 'start'> {
  keyId: string;
  name: string;
  plan: string;
  used: number;
  perDay: number;
  perMinute: number;
  dayShare: number;
}
