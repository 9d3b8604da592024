import { CERTIFICATE_GRACE_MS, nextCheckDelay } from './schedule.js';
import type { CertificateProbe } from './tls-probe.js';
import type { CheckOutcome, DomainCheckResult, DomainRecord, DomainState } from './types.js';
import { type DnsQueries, type Finding, verifyDomain } from './verify.js';

/** What a check looks at, and where. */
export interface CheckDeps {
  dns: DnsQueries;
  /** The name customers point their CNAME at (`DOMAINS_TARGET`); unset, nothing can be verified. */
  target: string | undefined;
  /** The CA the TLS front gets certificates from, for the CAA check. */
  ca: string;
  /** Whether the ownership TXT record is required (`DOMAINS_REQUIRE_TXT=on`). */
  requireTxt: boolean;
  certificate: CertificateProbe;
}

/** The states a domain leaves for `misconfigured`, not `pending`, when its DNS goes wrong. */
const WAS_LIVE: ReadonlySet<DomainState> = new Set([
  'verified',
  'active',
  'certificate_failed',
  'misconfigured',
]);

/** The states in which the TLS front may already have a certificate for the domain, so it is looked for. */
const WAITING_OR_SERVED: ReadonlySet<DomainState> = new Set(['verified', 'active', 'certificate_failed']);

const sentence = (findings: Finding[], pick: (finding: Finding) => string) => findings.map(pick).join(' ');

/**
 * Checks one domain and says where it stands now (see `DomainState`). `restart` is a re-verify asked for by
 * a person: a domain waiting for its certificate gets a new 30 minutes, as the spec's "Re-verify" starts a
 * new attempt. A resolver that does not answer changes nothing but the time of the next check.
 */
export async function checkDomain(
  record: DomainRecord,
  deps: CheckDeps,
  now: number,
  options: { restart?: boolean } = {},
): Promise<DomainCheckResult> {
  const at = new Date(now).toISOString();
  const result = (
    state: DomainState,
    outcome: CheckOutcome,
    reason: string,
    fix: string | null,
    since?: number,
  ): DomainCheckResult => {
    const stateSince =
      since !== undefined ? new Date(since).toISOString() : state === record.state ? record.stateSince : at;
    return {
      state,
      reason,
      fix,
      stateSince,
      checkedAt: at,
      nextCheckAt: new Date(now + nextCheckDelay(state, now - Date.parse(stateSince), outcome)).toISOString(),
      lastCheck: outcome,
      certificate: state === 'active' ? record.certificate : null,
    };
  };
  if (deps.target === undefined) {
    return result(
      record.state,
      'could_not_check',
      'Could not check: the service has no DNS target to compare with',
      'The operator sets DOMAINS_TARGET to the name customers point their CNAME at.',
    );
  }
  const verification = await verifyDomain(deps.dns, {
    domain: record.name,
    target: deps.target,
    ca: deps.ca,
    ...(deps.requireTxt ? { token: record.token } : {}),
  });
  if (verification.unanswered) {
    const problem = verification.problems[0]?.problem ?? 'the DNS server did not answer';
    return result(record.state, 'could_not_check', `Could not check: ${problem}`, record.fix);
  }
  const wrong = verification.problems.filter((finding) => finding.about !== 'caa');
  if (wrong.length > 0) {
    return result(
      WAS_LIVE.has(record.state) ? 'misconfigured' : 'pending',
      'failed',
      sentence(wrong, (finding) => finding.problem),
      sentence(wrong, (finding) => finding.fix),
    );
  }

  if (!WAITING_OR_SERVED.has(record.state)) {
    // Until now the TLS front was refused a certificate for it (the ask check): from now it may get one.
    return result('verified', 'passed', 'DNS is right; the TLS front may now get its certificate', null);
  }
  const probe = await deps.certificate(record.name);
  if (probe.served) {
    const active = result(
      'active',
      'passed',
      `DNS is right and a certificate from ${probe.issuer} is served`,
      null,
    );
    return { ...active, certificate: { issuer: probe.issuer, expiresAt: probe.expiresAt } };
  }
  // Waiting for a certificate since it was verified (or since a person asked to try again).
  const waiting = record.state === 'verified' || record.state === 'certificate_failed';
  const since = waiting && !options.restart ? Date.parse(record.stateSince) : now;
  const caa = verification.problems.filter((finding) => finding.about === 'caa');
  if (record.state === 'certificate_failed' && !options.restart) {
    return result(
      'certificate_failed',
      'failed',
      stillFailing(record, probe.reason, caa),
      fixOf(record, caa),
    );
  }
  if (now - since >= CERTIFICATE_GRACE_MS) {
    return result(
      'certificate_failed',
      'failed',
      stillFailing(record, probe.reason, caa),
      fixOf(record, caa),
    );
  }
  return result(
    'verified',
    'passed',
    `DNS is right; no certificate is served yet (${probe.reason})`,
    caa.length > 0 ? sentence(caa, (finding) => finding.fix) : null,
    since,
  );
}

function stillFailing(record: DomainRecord, probeReason: string, caa: Finding[]): string {
  const why = caa.length > 0 ? ` ${sentence(caa, (finding) => finding.problem)}` : '';
  return `No certificate for ${record.name} within 30 minutes of verification (${probeReason}).${why}`;
}

function fixOf(record: DomainRecord, caa: Finding[]): string {
  const then = `then re-verify: petstore domains verify ${record.name}`;
  return caa.length > 0
    ? `${sentence(caa, (finding) => finding.fix)} Then re-verify: petstore domains verify ${record.name}`
    : `Check that the TLS front asks this service before issuing (/internal/tls/ask) and can reach its CA, ${then}`;
}
