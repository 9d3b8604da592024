import { randomBytes } from 'node:crypto';
import type { Actor } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import type { Logger } from '../log/index.js';
import { type EventType, storedEvent } from '../webhooks/index.js';
import { type CheckDeps, checkDomain } from './check.js';
import {
  type DomainsConfig,
  describeDomainProblem,
  normalizeDomain,
  REDIRECT_STATUSES,
  type RedirectStatus,
} from './config.js';
import type { DomainRecord, DomainRepository, DomainState } from './types.js';
import { challengeName, verifyDomain } from './verify.js';

/** A request to add a domain that cannot be met as asked; the message says why. */
export class DomainInputError extends Error {
  override name = 'DomainInputError';
}

/** A change that conflicts with what is stored: the name is taken, or it belongs to the config file. */
export class DomainConflictError extends Error {
  override name = 'DomainConflictError';
}

/** How a new domain is served. */
export interface AddDomain {
  primary?: boolean;
  redirectTo?: string;
  redirectStatus?: number;
}

/** A domain as the CLI's `--json`, the admin API and `domains status` show it: the same object everywhere. */
export interface DomainView {
  name: string;
  source: DomainRecord['source'];
  primary: boolean;
  redirect: { to: string; status: RedirectStatus } | null;
  state: DomainRecord['state'];
  reason: string;
  fix: string | null;
  /** The records its owner adds at the DNS provider. */
  dns: { name: string; type: 'CNAME' | 'TXT'; value: string; required: boolean }[];
  addedAt: string;
  stateSince: string;
  checkedAt: string | null;
  nextCheckAt: string;
  lastCheck: DomainRecord['lastCheck'];
  certificate: DomainRecord['certificate'];
}

/** Adds, shows, checks and removes custom domains: the CLI, the admin API and the re-checks all call this. */
export interface DomainManager {
  list(): Promise<DomainRecord[]>;
  get(name: string): Promise<DomainRecord | undefined>;
  add(name: string, options: AddDomain, actor: Actor): Promise<DomainRecord>;
  /** Removes a domain; with it, whether its DNS still points here (the owner should remove the record). */
  remove(
    name: string,
    actor: Actor,
  ): Promise<{ removed: DomainRecord; stillPointsHere: boolean } | undefined>;
  /** Checks a domain now, as a person's Re-verify: waiting for a certificate starts over. */
  verify(name: string, actor: Actor): Promise<DomainRecord | undefined>;
  /** Checks the domains whose check is due, at most `limit`; resolves with how many were checked. */
  checkDue(limit: number): Promise<number>;
  /** Makes the stored file domains those of the config file (none when it has no `domains`). */
  syncFile(config: DomainsConfig | undefined): Promise<void>;
  view(record: DomainRecord): DomainView;
  /** How domains are checked here: the DNS target (null: `DOMAINS_TARGET` unset) and whether TXT is required. */
  settings(): { target: string | null; requireTxt: boolean };
}

/** How long a claimed domain is left to the instance that claimed it before another may check it. */
const CLAIM_MS = 2 * 60_000;

/** The owner-facing token of a domain's ownership record: 128 random bits. */
const newToken = () => randomBytes(16).toString('hex');

function domainName(value: string, what: string): string {
  const problem = describeDomainProblem(what, value);
  if (problem !== undefined) throw new DomainInputError(problem);
  return normalizeDomain(value);
}

/** The webhook event a domain's move into a state tells of; other moves tell none. */
const STATE_EVENTS: Partial<Record<DomainState, EventType>> = {
  verified: 'domain.verified',
  misconfigured: 'domain.misconfigured',
  certificate_failed: 'domain.certificate_failed',
};

export function createDomainManager(deps: {
  domains: DomainRepository;
  checks: CheckDeps;
  /** The service's own names (`ownHosts`): never a custom domain, so no domain can take them over. */
  ownHosts: ReadonlySet<string>;
  clock: Clock;
  logger?: Logger;
  /** Called after every change this process made, so its own servers need not wait for the next poll. */
  onChange?: () => void;
}): DomainManager {
  const { domains, checks, clock, logger } = deps;
  const at = () => new Date(clock.now()).toISOString();
  const changed = () => deps.onChange?.();

  function fresh(name: string, routing: Pick<DomainRecord, 'primary' | 'redirectTo' | 'redirectStatus'>) {
    const now = at();
    return {
      name,
      source: 'api',
      ...routing,
      state: 'pending',
      reason: 'Added; not checked yet',
      fix: null,
      token: newToken(),
      addedAt: now,
      stateSince: now,
      checkedAt: null,
      nextCheckAt: now,
      lastCheck: null,
      certificate: null,
    } satisfies DomainRecord;
  }

  /** Whether the DNS of `name` points at the target; false when it cannot be told. */
  async function pointsHere(name: string): Promise<boolean> {
    if (checks.target === undefined) return false;
    try {
      const found = await verifyDomain(checks.dns, { domain: name, target: checks.target, ca: checks.ca });
      return !found.unanswered && found.problems.every((finding) => finding.about === 'caa');
    } catch {
      return false;
    }
  }

  /** Checks a domain and stores the result; a change of state is logged, audited and told. */
  async function check(record: DomainRecord, actor: Actor, restart: boolean) {
    const result = await checkDomain(record, checks, clock.now(), { restart });
    const moved = result.state !== record.state;
    const told = moved ? STATE_EVENTS[result.state] : undefined;
    const entry =
      moved || restart
        ? {
            at: result.checkedAt ?? at(),
            actor,
            action: restart ? ('domain.reverified' as const) : ('domain.state_changed' as const),
            target: record.name,
            details: { from: record.state, to: result.state, reason: result.reason },
            ...(told === undefined
              ? {}
              : { event: storedEvent(told, manager.view({ ...record, ...result }), clock.now()) }),
          }
        : undefined;
    const stored = await domains.recordCheck(record.name, result, entry);
    if (moved) {
      logger?.info(
        { domain: record.name, from: record.state, to: result.state, reason: result.reason },
        'custom domain changed state',
      );
      changed();
    }
    return stored;
  }

  const manager: DomainManager = {
    list: () => domains.list(),
    get: (name) => domains.get(normalizeDomain(name)),
    async add(value, options, actor) {
      const name = domainName(value, 'The domain');
      if (deps.ownHosts.has(name)) {
        throw new DomainConflictError(
          `${name} is one of this service's own names (HOST, or the host of PETSTORE_PRODUCTION_URL or PETSTORE_STAGING_URL): it is served as the service itself, never as a custom domain`,
        );
      }
      const redirectTo =
        options.redirectTo === undefined ? null : domainName(options.redirectTo, 'The redirect target');
      if (redirectTo === name) throw new DomainInputError(`${name} cannot redirect to itself`);
      if (redirectTo !== null && options.primary) {
        throw new DomainInputError('A domain that redirects cannot be the primary one');
      }
      const status = options.redirectStatus ?? 301;
      if (options.redirectStatus !== undefined && redirectTo === null) {
        throw new DomainInputError('A redirect status needs a redirect target');
      }
      if (!(REDIRECT_STATUSES as readonly number[]).includes(status)) {
        throw new DomainInputError(
          `The redirect status must be 301 (documented), 302, 307 or 308 (got ${status})`,
        );
      }
      if (redirectTo !== null) {
        const target = await domains.get(redirectTo);
        if (target?.redirectTo != null) {
          throw new DomainInputError(`${redirectTo} itself redirects: redirect to where it leads instead`);
        }
      }
      const record = fresh(name, {
        primary: options.primary === true,
        redirectTo,
        redirectStatus: redirectTo === null ? null : (status as RedirectStatus),
      });
      const entry = {
        at: record.addedAt,
        actor,
        action: 'domain.added' as const,
        target: name,
        details: { primary: record.primary, redirectTo, redirectStatus: record.redirectStatus },
      };
      const conflict = await domains.add(record, entry);
      if (conflict !== undefined) {
        throw new DomainConflictError(
          conflict.name !== name
            ? `${conflict.name} is the primary domain: remove it first, or add ${name} without primary`
            : conflict.source === 'file'
              ? `${name} is declared in the config file (PETSTORE_CONFIG)`
              : `${name} is already added`,
        );
      }
      changed();
      return record;
    },
    async remove(value, actor) {
      const name = normalizeDomain(value);
      const record = await domains.get(name);
      if (record === undefined) return undefined;
      if (record.source === 'file') {
        throw new DomainConflictError(`${name} is declared in the config file: remove it there`);
      }
      const entry = {
        at: at(),
        actor,
        action: 'domain.removed' as const,
        target: name,
        details: {},
        event: storedEvent('domain.removed', manager.view(record), clock.now()),
      };
      const removal = await domains.remove(name, entry);
      if (removal.outcome === 'none') return undefined;
      if (removal.outcome === 'redirected_to') {
        // Removing it would leave those redirecting to a name served nowhere.
        throw new DomainConflictError(
          `${name} is the target of the redirect${removal.from.length > 1 ? 's' : ''} of ${removal.from.join(', ')}: remove ${removal.from.length > 1 ? 'those' : 'that one'} first`,
        );
      }
      changed();
      // Served no longer, wherever DNS points; but a name left pointing here could be claimed by whoever adds
      // it next, so its owner is told to remove the record.
      return { removed: record, stillPointsHere: await pointsHere(name) };
    },
    async verify(value, actor) {
      const record = await domains.get(normalizeDomain(value));
      return record === undefined ? undefined : check(record, actor, true);
    },
    async checkDue(limit) {
      const now = clock.now();
      const due = await domains.claimDue(
        new Date(now).toISOString(),
        new Date(now + CLAIM_MS).toISOString(),
        limit,
      );
      for (const record of due) {
        try {
          await check(record, 'checker', false);
        } catch (error) {
          // Its claim runs out and another check tries again; the others go on.
          logger?.warn({ err: error, domain: record.name }, 'could not check a custom domain');
        }
      }
      return due.length;
    },
    async syncFile(config) {
      const records: DomainRecord[] = [];
      if (config !== undefined) {
        records.push(fresh(config.primary, { primary: true, redirectTo: null, redirectStatus: null }));
        for (const redirect of config.redirects.values()) {
          records.push(
            fresh(redirect.from, {
              primary: false,
              redirectTo: redirect.to,
              redirectStatus: redirect.status,
            }),
          );
        }
      }
      await domains.syncFile(
        records.map((record) => ({ ...record, source: 'file' })),
        at(),
      );
      changed();
    },
    settings: () => ({ target: checks.target ?? null, requireTxt: checks.requireTxt }),
    view(record) {
      const dns: DomainView['dns'] = [];
      if (checks.target !== undefined) {
        dns.push({ name: record.name, type: 'CNAME', value: checks.target, required: true });
      }
      dns.push({
        name: challengeName(record.name),
        type: 'TXT',
        value: record.token,
        required: checks.requireTxt,
      });
      return {
        name: record.name,
        source: record.source,
        primary: record.primary,
        redirect:
          record.redirectTo === null || record.redirectStatus === null
            ? null
            : { to: record.redirectTo, status: record.redirectStatus },
        state: record.state,
        reason: record.reason,
        fix: record.fix,
        dns,
        addedAt: record.addedAt,
        stateSince: record.stateSince,
        checkedAt: record.checkedAt,
        nextCheckAt: record.nextCheckAt,
        lastCheck: record.lastCheck,
        certificate: record.certificate,
      };
    },
  };
  return manager;
}
