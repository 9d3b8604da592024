import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Config } from '../config/index.js';
import {
  isConfiguredDomain,
  isDomainName,
  normalizeDomain,
  parseDomains,
  type Verification,
  verifyDomain,
  verifyWithRetries,
} from '../domains/index.js';
import type { Storage } from '../storage/index.js';
import { parseOptions, UsageError } from './args.js';
import { printable } from './output.js';
import { openExistingStorage } from './storage.js';

export const DOMAINS_USAGE = `Usage:
  petstore domains verify <domain> --target <dns target> [--resolver host:port]
                          [--ca letsencrypt.org] [--wait [seconds]]

Checks the domain's DNS with real queries: a subdomain needs a CNAME equal to the target, with no A or
AAAA record beside it; an apex (a name with its own SOA record) needs an ALIAS or ANAME record, so it must
resolve to the target's addresses; CAA records must allow the CA. Every failure is printed with its fix.
On success the verification is recorded, and the TLS ask check answers 200 for the domain while it is
configured. --resolver picks the DNS server (default: the system's); --wait retries until it verifies,
backing off from 2 s to 30 s, for at most the given seconds (default 300).
Exit codes: 0 verified, 1 not verified, 2 wrong arguments.`;

/** `--wait` without seconds waits this long: DNS changes usually propagate within minutes. */
const DEFAULT_WAIT_SECONDS = 300;

/** `--wait` takes an optional value, which parseArgs cannot express: take it out first. */
function takeWait(args: string[]): { rest: string[]; waitSeconds: number | undefined } {
  const rest: string[] = [];
  let waitSeconds: number | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const inline = /^--wait=(.*)$/.exec(arg);
    if (arg !== '--wait' && inline === null) {
      rest.push(arg);
      continue;
    }
    if (waitSeconds !== undefined) throw new UsageError('--wait is given more than once', 'domains');
    const next = args[index + 1];
    let value = inline?.[1];
    if (value === undefined && next !== undefined && /^\d+$/.test(next)) {
      value = next;
      index++;
    }
    if (value !== undefined && !/^[1-9]\d{0,5}$/.test(value)) {
      throw new UsageError(`--wait takes a number of seconds from 1 to 999999 (got ${value})`, 'domains');
    }
    waitSeconds = value === undefined ? DEFAULT_WAIT_SECONDS : Number(value);
  }
  return { rest, waitSeconds };
}

/** `host:port`, `host` (port 53), `[v6]:port` or `v6`: node's resolver takes addresses only, not names. */
function parseResolver(value: string): string {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  const plain = /^([^:]+)(?::(\d{1,5}))?$/.exec(value);
  const [, host = '', port = '53'] = bracketed ?? plain ?? (isIP(value) === 6 ? [value, value] : []);
  const kind = isIP(host);
  if (kind === 0 || Number(port) < 1 || Number(port) > 65535) {
    throw new UsageError(
      `--resolver must be an IP address with an optional port, as 127.0.0.1:53 (got ${value})`,
      'domains',
    );
  }
  return kind === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

function domainArgument(flag: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`domains verify needs ${flag}`, 'domains');
  const domain = normalizeDomain(value);
  if (!isDomainName(domain))
    throw new UsageError(`${flag} must be a domain name such as docs.example.com (got ${value})`, 'domains');
  return domain;
}

function parseVerifyArgs(args: string[]) {
  const { rest, waitSeconds } = takeWait(args);
  const { values, positionals } = parseOptions(
    rest,
    { target: { type: 'string' }, resolver: { type: 'string' }, ca: { type: 'string' } },
    'domains',
  );
  if (positionals.length !== 1) throw new UsageError('domains verify takes exactly one domain', 'domains');
  return {
    domain: domainArgument('<domain>', positionals[0]),
    target: domainArgument('--target', values.target),
    ca: domainArgument('--ca', values.ca ?? 'letsencrypt.org'),
    resolver: values.resolver === undefined ? undefined : parseResolver(values.resolver),
    waitSeconds,
  };
}

/**
 * Prints what passed and every problem with its fix. They quote DNS records (a CNAME, a CAA value), which
 * whoever runs the zone writes: anything unprintable in them is escaped, so a record cannot drive the
 * operator's terminal.
 */
function report(result: Verification, out: NodeJS.WritableStream): void {
  for (const passed of result.passed) out.write(`  ok    ${printable(passed)}\n`);
  for (const { problem, fix } of result.problems) {
    out.write(`  FAIL  ${printable(problem)}\n        Fix: ${printable(fix)}\n`);
  }
}

/** `petstore domains …`: returns the exit code (0 verified, 1 not verified). */
export async function domainsCommand(
  args: string[],
  config: Config,
  out: NodeJS.WritableStream,
): Promise<number> {
  const [action, ...rest] = args;
  if (action !== 'verify') {
    throw new UsageError(
      action === undefined ? 'domains needs an action: verify' : `unknown domains action: ${action}`,
      'domains',
    );
  }
  const options = parseVerifyArgs(rest);
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (options.resolver !== undefined) resolver.setServers([options.resolver]);
  const check = { domain: options.domain, target: options.target, ca: options.ca };
  // Before any DNS query: a verification that could not be recorded would be waited for in vain.
  const storage = await openExistingStorage(config);
  try {
    return await verifyAndRecord(check, options.waitSeconds, resolver, storage, config, out);
  } finally {
    await storage.close();
  }
}

async function verifyAndRecord(
  check: { domain: string; target: string; ca: string },
  waitSeconds: number | undefined,
  resolver: Resolver,
  storage: Storage,
  config: Config,
  out: NodeJS.WritableStream,
): Promise<number> {
  out.write(`Verifying ${check.domain} against ${check.target} (CA ${check.ca}).\n`);
  const result =
    waitSeconds === undefined
      ? await verifyDomain(resolver, check)
      : await verifyWithRetries(() => verifyDomain(resolver, check), {
          limitMs: waitSeconds * 1000,
          onRetry: (last, delayMs) =>
            out.write(
              `  not yet: ${printable(last.problems[0]?.problem ?? 'not verified')}; retrying in ${Math.round(delayMs / 1000)} s\n`,
            ),
        });
  if (result.kind !== 'unknown') {
    const why =
      result.kind === 'apex' ? 'it has its own SOA record' : 'it has a CNAME or no SOA record of its own';
    out.write(`${result.domain} is ${result.kind === 'apex' ? 'an apex' : 'a subdomain'}: ${why}.\n`);
  }
  report(result, out);
  if (!result.verified) {
    out.write(
      `Not verified: ${result.problems.length} problem(s). DNS changes can take up to 48 hours to propagate; --wait retries.\n`,
    );
    return 1;
  }

  await storage.domains.markVerified(result.domain, result.target, new Date().toISOString());
  out.write(`Verified ${result.domain}; recorded.\n`);
  if (!isConfiguredDomain(parseDomains(config.domains).value, result.domain)) {
    out.write(
      `Note: ${result.domain} is not in the domains of PETSTORE_CONFIG; it is served, and gets a certificate, once it is.\n`,
    );
  }
  return 0;
}
