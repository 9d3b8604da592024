import type { CaaRecord, SoaRecord } from 'node:dns';
import { setTimeout as sleep } from 'node:timers/promises';
import { normalizeDomain } from './config.js';

/** The DNS queries verification makes; node's `dns.promises.Resolver` answers them all. */
export interface DnsQueries {
  resolveCname(name: string): Promise<string[]>;
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  resolveCaa(name: string): Promise<CaaRecord[]>;
  resolveSoa(name: string): Promise<SoaRecord>;
  resolveTxt(name: string): Promise<string[][]>;
}

/** One reason a domain does not verify, and what its owner should change at the DNS provider. */
export interface Finding {
  /** `dns`: where the name points; `ownership`: the TXT record that proves it; `caa`: which CAs may issue. */
  about: 'dns' | 'ownership' | 'caa';
  problem: string;
  fix: string;
}

export interface Verification {
  domain: string;
  target: string;
  /** How the name was classified (see `verifyDomain`); unknown when the DNS server did not answer. */
  kind: 'apex' | 'subdomain' | 'unknown';
  verified: boolean;
  /** Whether a DNS query went unanswered (timeout, refusal): then nothing could be concluded. */
  unanswered: boolean;
  /** The checks that passed, for the operator to read. */
  passed: string[];
  problems: Finding[];
}

/** The TTL the platform documents for the CNAME record. */
const DOCUMENTED_TTL = 3600;

/** A query the DNS server did not answer (timeout, refusal, server failure): nothing can be concluded. */
class DnsQueryError extends Error {
  override name = 'DnsQueryError';
}

/** The records of one query; none when the name does not exist or has no records of that type. */
async function records<T>(type: string, name: string, query: Promise<T[]>): Promise<T[]> {
  try {
    return await query;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
    throw new DnsQueryError(`The DNS query ${type} ${name} failed (${code ?? (error as Error).message})`);
  }
}

/**
 * Whether a name holds an SOA record, that is, is the apex of a zone. A resolver answers an SOA query for
 * any other name with no SOA in the answer: no data, or (behind an alias) a reply node reads as EBADRESP.
 */
async function hasOwnSoa(dns: DnsQueries, name: string): Promise<boolean> {
  const soa = dns.resolveSoa(name).then(
    (record) => [record],
    (error: NodeJS.ErrnoException) => (error.code === 'EBADRESP' ? [] : Promise.reject(error)),
  );
  return (await records('SOA', name, soa)).length > 0;
}

/** The names CAA is looked up at, closest first: the domain, then each parent up to the TLD (RFC 8659 3). */
function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  return labels.map((_label, index) => labels.slice(index).join('.'));
}

/**
 * The tag of a CAA record as node gives it: the one key besides `critical` and `type` (Node 24 adds `type`,
 * always `CAA`).
 */
function caaTag(record: CaaRecord): { tag: string; value: string } {
  const [tag = '', value = ''] =
    Object.entries(record).find(([key]) => key !== 'critical' && key !== 'type') ??
    ([] as unknown as [string, string]);
  return { tag: tag.toLowerCase(), value: String(value) };
}

/** The tags a CA is expected to understand (RFC 8659 4, RFC 8657, RFC 9495). */
const KNOWN_CAA_TAGS = new Set(['issue', 'issuewild', 'iodef', 'issuemail', 'contactemail', 'contactphone']);

/**
 * Whether the closest CAA set allows `ca` to issue a (non-wildcard) certificate for `domain` (RFC 8659):
 * the set of the domain, else of its closest parent that has one; no set anywhere allows every CA. Within
 * the set, `issue` properties name the allowed CAs (`issue ";"` allows none); a set without `issue` allows
 * every CA; a critical property of an unknown tag forbids issuance.
 */
async function checkCaa(dns: DnsQueries, domain: string, ca: string, result: Verification): Promise<void> {
  for (const name of selfAndParents(domain)) {
    const set = (await records('CAA', name, dns.resolveCaa(name))).map((record) => ({
      ...caaTag(record),
      critical: (record.critical & 128) !== 0,
    }));
    if (set.length === 0) continue;
    const unknownCritical = set.filter((property) => property.critical && !KNOWN_CAA_TAGS.has(property.tag));
    for (const property of unknownCritical) {
      result.problems.push({
        about: 'caa',
        problem: `The CAA record of ${name} has a critical property "${property.tag}" that CAs do not know, so none will issue`,
        fix: `Remove that CAA record of ${name}, or clear its critical flag.`,
      });
    }
    const issuers = set
      .filter((property) => property.tag === 'issue')
      .map((property) => normalizeDomain(property.value.split(';')[0] ?? ''));
    if (issuers.length === 0 || issuers.includes(ca)) {
      if (unknownCritical.length === 0) result.passed.push(`CAA records at ${name} allow ${ca}`);
      return;
    }
    const allowed = issuers.filter(Boolean);
    result.problems.push({
      about: 'caa',
      problem: `The CAA records at ${name} allow ${allowed.length > 0 ? `only ${allowed.join(', ')}` : 'no CA'}, not ${ca}, so no certificate can be issued`,
      fix: `Add a CAA record at ${name}: ${name} CAA 0 issue "${ca}" (keep the others your other certificates need).`,
    });
    return;
  }
  result.passed.push(`No CAA records at ${domain} or its parents: every CA may issue`);
}

const FAMILIES = [
  { type: 'A', query: (dns: DnsQueries, name: string) => dns.resolve4(name) },
  { type: 'AAAA', query: (dns: DnsQueries, name: string) => dns.resolve6(name) },
] as const;

/** The A and AAAA records of a name. */
async function addressesOf(dns: DnsQueries, name: string): Promise<{ A: string[]; AAAA: string[] }> {
  const [A, AAAA] = await Promise.all(
    FAMILIES.map((family) => records(family.type, name, family.query(dns, name))),
  );
  return { A: A ?? [], AAAA: AAAA ?? [] };
}

async function checkSubdomain(
  dns: DnsQueries,
  cname: string | undefined,
  result: Verification,
): Promise<void> {
  const { domain, target } = result;
  const own = await addressesOf(dns, domain);
  if (cname === undefined) {
    const blocking = FAMILIES.flatMap((family) =>
      own[family.type].map((address) => `${family.type} ${address}`),
    );
    result.problems.push(
      blocking.length > 0
        ? {
            about: 'dns',
            problem: `${domain} has ${blocking.join(', ')} and no CNAME: an existing address record blocks the CNAME`,
            fix: `Delete the ${blocking.join(', ')} record(s) of ${domain}, then add the record ${domain} CNAME ${target} (TTL ${DOCUMENTED_TTL}).`,
          }
        : {
            about: 'dns',
            problem: `${domain} has no CNAME record`,
            fix: `Add the record ${domain} CNAME ${target} (TTL ${DOCUMENTED_TTL}) at your DNS provider.`,
          },
    );
    return;
  }
  if (cname !== target) {
    result.problems.push({
      about: 'dns',
      problem: `The CNAME of ${domain} is ${cname}, not ${target}`,
      fix: `Change the CNAME record of ${domain} to ${target} (TTL ${DOCUMENTED_TTL}).`,
    });
    return;
  }
  result.passed.push(`CNAME ${domain} -> ${target}`);
  // Through a recursive resolver, the addresses of a CNAME are its target's; any other address is a record
  // beside the CNAME, which RFC 1034 section 3.6.2 forbids and which clients may be sent to instead.
  const theirs = await addressesOf(dns, target);
  for (const family of FAMILIES) {
    const foreign = own[family.type].filter((address) => !theirs[family.type].includes(address));
    if (foreign.length === 0) continue;
    result.problems.push({
      about: 'dns',
      problem: `${domain} also has ${family.type} ${foreign.join(', ')}, which conflicts with its CNAME`,
      fix: `Delete the ${family.type} record(s) ${foreign.join(', ')} of ${domain}: a name with a CNAME can have no other records.`,
    });
  }
}

async function checkApex(dns: DnsQueries, result: Verification): Promise<void> {
  const { domain, target } = result;
  const alias = `Add an ALIAS or ANAME record ${domain} -> ${target} in place of its address records (not every DNS provider offers these; if yours does not, publish at a subdomain such as docs.${domain} with a CNAME).`;
  const [own, theirs] = await Promise.all([addressesOf(dns, domain), addressesOf(dns, target)]);
  if (theirs.A.length === 0 && theirs.AAAA.length === 0) {
    result.problems.push({
      about: 'dns',
      problem: `The target ${target} has no A or AAAA records, so nothing can be compared`,
      fix: 'Check that --target is the DNS target shown in the dashboard.',
    });
    return;
  }
  // An ALIAS/ANAME is resolved by the DNS provider and shown as plain addresses: the apex must have the
  // target's addresses, family by family, and no others.
  let matches = true;
  for (const family of FAMILIES) {
    const foreign = own[family.type].filter((address) => !theirs[family.type].includes(address));
    const missing = own[family.type].length === 0 && theirs[family.type].length > 0;
    if (foreign.length > 0) {
      matches = false;
      result.problems.push({
        about: 'dns',
        problem: `The apex ${domain} has ${family.type} ${foreign.join(', ')}, not an address of ${target} (${theirs[family.type].join(', ') || 'none'})`,
        fix: alias,
      });
    } else if (missing) {
      matches = false;
      result.problems.push({
        about: 'dns',
        problem: `The apex ${domain} has no ${family.type} record, while ${target} has ${theirs[family.type].join(', ')}`,
        fix: alias,
      });
    }
  }
  if (matches) result.passed.push(`The apex ${domain} resolves to the addresses of ${target} (ALIAS/ANAME)`);
}

/** The name of the TXT record that proves a domain's owner added it here. */
export const challengeName = (domain: string) => `_petstore-challenge.${domain}`;

/**
 * The ownership record (subdomain takeover guard): `_petstore-challenge.<domain>` must hold `token`, which
 * only whoever added the domain here was shown.
 */
async function checkOwnership(dns: DnsQueries, token: string, result: Verification): Promise<void> {
  const name = challengeName(result.domain);
  const values = (await records('TXT', name, dns.resolveTxt(name))).map((chunks) => chunks.join(''));
  if (values.includes(token)) {
    result.passed.push(`TXT ${name} holds the ownership token`);
    return;
  }
  result.problems.push({
    about: 'ownership',
    problem:
      values.length === 0
        ? `${name} has no TXT record, so ownership of ${result.domain} is not proven`
        : `The TXT records of ${name} do not hold this domain's token`,
    fix: `Add the record ${name} TXT "${token}" at your DNS provider.`,
  });
}

/**
 * Checks a domain's DNS as the dashboard's Verify does. Apex or subdomain is decided without a public
 * suffix list: a name with a CNAME is a subdomain (a zone apex cannot hold one, RFC 1034 3.6.2); otherwise
 * a name that has its own SOA record is a zone apex, and any other name is a subdomain.
 * - A subdomain needs a CNAME equal to `target`; an A or AAAA record beside it is named as the conflict.
 * - An apex needs ALIAS/ANAME, which resolvers show as addresses: it must resolve to the target's.
 * - The closest CAA records must allow `ca` (RFC 8659).
 * - With `token`, the ownership TXT record must hold it.
 * A query the DNS server does not answer makes the result "not verified", with that as the problem.
 */
export async function verifyDomain(
  dns: DnsQueries,
  options: { domain: string; target: string; ca: string; token?: string },
): Promise<Verification> {
  const result: Verification = {
    domain: normalizeDomain(options.domain),
    target: normalizeDomain(options.target),
    kind: 'unknown',
    verified: false,
    unanswered: false,
    passed: [],
    problems: [],
  };
  try {
    const cname = (await records('CNAME', result.domain, dns.resolveCname(result.domain)))[0];
    const hasSoa = cname === undefined && (await hasOwnSoa(dns, result.domain));
    result.kind = hasSoa ? 'apex' : 'subdomain';
    if (hasSoa) await checkApex(dns, result);
    else await checkSubdomain(dns, cname === undefined ? undefined : normalizeDomain(cname), result);
    if (options.token !== undefined) await checkOwnership(dns, options.token, result);
    await checkCaa(dns, result.domain, normalizeDomain(options.ca), result);
  } catch (error) {
    if (!(error instanceof DnsQueryError)) throw error;
    result.unanswered = true;
    result.problems.push({
      about: 'dns',
      problem: error.message,
      fix: 'Check that the DNS server answers (choose one with --resolver host:port), then try again.',
    });
  }
  result.verified = result.problems.length === 0;
  return result;
}

/** Retry timing of `--wait`: 2 s, doubling, at most 30 s between attempts. */
const WAIT_BACKOFF = { firstMs: 2_000, maxMs: 30_000 } as const;

/**
 * Runs `attempt` until it verifies or `limitMs` has passed, waiting 2 s, 4 s, 8 s … (at most 30 s) between
 * attempts, as DNS changes take time to propagate. Resolves with the last verification.
 */
export async function verifyWithRetries(
  attempt: () => Promise<Verification>,
  options: {
    limitMs: number;
    onRetry?: (last: Verification, delayMs: number) => void;
  },
): Promise<Verification> {
  const deadline = Date.now() + options.limitMs;
  let delay: number = WAIT_BACKOFF.firstMs;
  for (;;) {
    const result = await attempt();
    const left = deadline - Date.now();
    if (result.verified || left <= 0) return result;
    const wait = Math.min(delay, left);
    options.onRetry?.(result, wait);
    await sleep(wait);
    delay = Math.min(delay * 2, WAIT_BACKOFF.maxMs);
  }
}
