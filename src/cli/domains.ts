import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { CLI_ACTOR } from '../audit/index.js';
import { systemClock } from '../clock/index.js';
import {
  checkDepsOf,
  createDomainManager,
  DomainConflictError,
  DomainInputError,
  type DomainManager,
  type DomainRecord,
  describeDomainProblem,
  normalizeDomain,
  ownHosts,
  type Verification,
  verifyDomain,
  verifyWithRetries,
} from '../domains/index.js';
import { actionOf, parseOptions, UsageError } from './args.js';
import { type Command, DOMAINS_OPTIONS } from './commands.js';
import { jsonLine, printable } from './output.js';
import { openExistingStorage } from './storage.js';

const { wait: _wait, ...VERIFY_PARSED } = DOMAINS_OPTIONS.verify;

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
  if (value === undefined) throw new UsageError(`domains needs ${flag}`, 'domains');
  const problem = describeDomainProblem(flag, value);
  if (problem !== undefined) throw new UsageError(problem, 'domains');
  return normalizeDomain(value);
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

/** A domain as `domains status` prints it for people. */
function describe(view: ReturnType<DomainManager['view']>, out: NodeJS.WritableStream): void {
  const role =
    view.redirect !== null
      ? `redirects to ${view.redirect.to} (${view.redirect.status})`
      : view.primary
        ? 'primary'
        : 'serves the reference';
  out.write(
    `${printable(view.name)}: ${view.state} (${view.source === 'file' ? 'config file' : 'added'}; ${role})\n`,
  );
  out.write(`  ${printable(view.reason)}\n`);
  if (view.fix !== null) out.write(`  Fix: ${printable(view.fix)}\n`);
  if (view.certificate !== null) {
    out.write(`  Certificate: ${printable(view.certificate.issuer)}, until ${view.certificate.expiresAt}\n`);
  }
  out.write(`  Checked: ${view.checkedAt ?? 'not yet'}; next check: ${view.nextCheckAt}\n`);
  out.write('  DNS records:\n');
  for (const record of view.dns) {
    const value = record.type === 'TXT' ? `"${record.value}"` : record.value;
    out.write(
      `    ${printable(record.name)} ${record.type} ${printable(value)}${record.required ? '' : ' (optional)'}\n`,
    );
  }
}

function parseAddArgs(args: string[]) {
  const { values, positionals } = parseOptions(args, DOMAINS_OPTIONS.add, 'domains');
  if (positionals.length !== 1) throw new UsageError('domains add takes exactly one domain', 'domains');
  const status = values.status;
  if (status !== undefined && !/^\d{3}$/.test(status)) {
    throw new UsageError(`--status takes 301, 302, 307 or 308 (got ${status})`, 'domains');
  }
  if (status !== undefined && values['redirect-to'] === undefined) {
    throw new UsageError('--status goes with --redirect-to', 'domains');
  }
  return {
    name: domainArgument('<domain>', positionals[0]),
    options: {
      ...(values.primary === true ? { primary: true } : {}),
      ...(values['redirect-to'] !== undefined
        ? { redirectTo: domainArgument('--redirect-to', values['redirect-to']) }
        : {}),
      ...(status !== undefined ? { redirectStatus: Number(status) } : {}),
    },
    json: values.json === true,
  };
}

/** One domain argument and `--json`, for list, status and remove. */
function parseNamed(action: 'list' | 'status' | 'remove', args: string[], takesName: boolean) {
  const { values, positionals } = parseOptions(args, DOMAINS_OPTIONS[action], 'domains');
  if (positionals.length !== (takesName ? 1 : 0)) {
    throw new UsageError(
      `domains ${action} takes ${takesName ? 'exactly one domain' : 'no domain'}`,
      'domains',
    );
  }
  return { name: takesName ? domainArgument('<domain>', positionals[0]) : '', json: values.json === true };
}

function parseVerifyArgs(args: string[]) {
  const { rest, waitSeconds } = takeWait(args);
  const { values, positionals } = parseOptions(rest, VERIFY_PARSED, 'domains');
  if (positionals.length !== 1) throw new UsageError('domains verify takes exactly one domain', 'domains');
  return {
    json: values.json === true,
    domain: domainArgument('<domain>', positionals[0]),
    target: values.target === undefined ? undefined : domainArgument('--target', values.target),
    ca: values.ca === undefined ? undefined : domainArgument('--ca', values.ca),
    resolver: values.resolver === undefined ? undefined : parseResolver(values.resolver),
    waitSeconds,
  };
}

type Action = keyof typeof DOMAINS_OPTIONS;

/** `petstore domains …`: returns the exit code. */
export const domainsCommand: Command = async (args, config, out) => {
  const [action, rest] = actionOf(args, DOMAINS_OPTIONS, 'domains');
  const parsed = {
    add: () => parseAddArgs(rest),
    verify: () => parseVerifyArgs(rest),
    other: () => parseNamed(action as Exclude<Action, 'add' | 'verify'>, rest, action !== 'list'),
  };
  const add = action === 'add' ? parsed.add() : undefined;
  const verify = action === 'verify' ? parsed.verify() : undefined;
  const named = add === undefined && verify === undefined ? parsed.other() : undefined;
  const options = {
    ...config.domainChecks,
    ...(verify?.target !== undefined ? { target: verify.target } : {}),
    ...(verify?.ca !== undefined ? { ca: verify.ca } : {}),
    ...(verify?.resolver !== undefined ? { resolver: verify.resolver } : {}),
  };
  const storage = await openExistingStorage(config);
  try {
    const manager = createDomainManager({
      domains: storage.domains,
      checks: checkDepsOf(options, systemClock),
      ownHosts: ownHosts(config),
      clock: systemClock,
    });
    try {
      if (add !== undefined) return await addDomain(manager, add, out);
      if (verify !== undefined) return await verifyNamed(manager, verify, options, out);
      const { name, json } = named as { name: string; json: boolean };
      if (action === 'list') return await listDomains(manager, json, out);
      if (action === 'status') return await showDomain(manager, name, json, out);
      return await removeDomain(manager, name, out);
    } catch (error) {
      if (error instanceof DomainInputError) throw new UsageError(error.message, 'domains');
      if (error instanceof DomainConflictError) {
        out.write(`${printable(error.message)}\n`);
        return 1;
      }
      throw error;
    }
  } finally {
    await storage.close();
  }
};

async function addDomain(
  manager: DomainManager,
  request: ReturnType<typeof parseAddArgs>,
  out: NodeJS.WritableStream,
): Promise<number> {
  const record = await manager.add(request.name, request.options, CLI_ACTOR);
  const view = manager.view(record);
  if (request.json) {
    out.write(jsonLine(view));
    return 0;
  }
  out.write(`Added ${view.name} (pending). At your DNS provider, add:\n`);
  for (const entry of view.dns) {
    const value =
      entry.type === 'TXT' ? `"${entry.value}"` : `${entry.value} (TTL 3600; an apex needs ALIAS or ANAME)`;
    out.write(
      `  ${entry.name} ${entry.type} ${value}${entry.required ? '' : ' (optional: proves you own it)'}\n`,
    );
  }
  if (!view.dns.some((entry) => entry.type === 'CNAME')) {
    out.write('  (no CNAME target is configured: the operator sets DOMAINS_TARGET)\n');
  }
  out.write(`Running servers check it within a minute; see: petstore domains status ${view.name}\n`);
  return 0;
}

async function listDomains(
  manager: DomainManager,
  json: boolean,
  out: NodeJS.WritableStream,
): Promise<number> {
  const views = (await manager.list()).map((record) => manager.view(record));
  if (json) {
    out.write(jsonLine(views));
    return 0;
  }
  if (views.length === 0) {
    out.write('No custom domains. Add one: petstore domains add <domain>\n');
    return 0;
  }
  const rows = views.map((view) => [
    printable(view.name),
    view.state,
    view.source === 'file' ? 'config file' : 'added',
    view.redirect !== null
      ? `-> ${view.redirect.to} (${view.redirect.status})`
      : view.primary
        ? 'primary'
        : 'serves',
    view.checkedAt ?? 'not yet',
  ]);
  const header = ['DOMAIN', 'STATE', 'SOURCE', 'ROLE', 'CHECKED'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  for (const row of [header, ...rows]) {
    out.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
  return 0;
}

async function showDomain(
  manager: DomainManager,
  name: string,
  json: boolean,
  out: NodeJS.WritableStream,
): Promise<number> {
  const record = await manager.get(name);
  if (record === undefined) {
    out.write(`${name} is not a custom domain here. Add it: petstore domains add ${name}\n`);
    return 1;
  }
  if (json) out.write(jsonLine(manager.view(record)));
  else describe(manager.view(record), out);
  return 0;
}

async function removeDomain(
  manager: DomainManager,
  name: string,
  out: NodeJS.WritableStream,
): Promise<number> {
  const removed = await manager.remove(name, CLI_ACTOR);
  if (removed === undefined) {
    out.write(`${name} is not a custom domain here.\n`);
    return 1;
  }
  out.write(`Removed ${name}: every server stops serving it and no certificate is issued for it any more.\n`);
  if (removed.stillPointsHere) {
    out.write(
      `Warning: the DNS of ${name} still points here. Remove its record at your DNS provider, or whoever adds ${name} next could serve under it.\n`,
    );
  }
  return 0;
}

const isCertified = (record: DomainRecord) => record.state === 'verified' || record.state === 'active';

async function verifyNamed(
  manager: DomainManager,
  request: ReturnType<typeof parseVerifyArgs>,
  options: { target: string | undefined; ca: string; resolver: string | undefined },
  out: NodeJS.WritableStream,
): Promise<number> {
  const stored = await manager.get(request.domain);
  if (stored === undefined) return verifyOnce(request, options, out);
  let record = (await manager.verify(request.domain, CLI_ACTOR)) ?? stored;
  const deadline = Date.now() + (request.waitSeconds ?? 0) * 1000;
  let delay = 2_000;
  while (!isCertified(record) && Date.now() + delay <= deadline) {
    // With --json, stdout holds the one object only.
    if (!request.json) {
      out.write(`  not yet: ${printable(record.reason)}; retrying in ${Math.round(delay / 1000)} s\n`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 30_000);
    record = (await manager.verify(request.domain, CLI_ACTOR)) ?? record;
  }
  if (request.json) out.write(jsonLine(manager.view(record)));
  else describe(manager.view(record), out);
  return isCertified(record) ? 0 : 1;
}

/** A domain not added: its DNS checked once, as before domains had states; nothing is recorded. */
async function verifyOnce(
  request: ReturnType<typeof parseVerifyArgs>,
  options: { target: string | undefined; ca: string; resolver: string | undefined },
  out: NodeJS.WritableStream,
): Promise<number> {
  if (options.target === undefined) {
    throw new UsageError(
      `${request.domain} is not added; to check its DNS once, give --target (or set DOMAINS_TARGET)`,
      'domains',
    );
  }
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (options.resolver !== undefined) resolver.setServers([options.resolver]);
  const check = { domain: request.domain, target: options.target, ca: options.ca };
  if (!request.json) out.write(`Verifying ${check.domain} against ${check.target} (CA ${check.ca}).\n`);
  const result =
    request.waitSeconds === undefined
      ? await verifyDomain(resolver, check)
      : await verifyWithRetries(() => verifyDomain(resolver, check), {
          limitMs: request.waitSeconds * 1000,
          onRetry: (last, delayMs) => {
            if (request.json) return;
            out.write(
              `  not yet: ${printable(last.problems[0]?.problem ?? 'not verified')}; retrying in ${Math.round(delayMs / 1000)} s\n`,
            );
          },
        });
  if (request.json) {
    out.write(jsonLine(result));
    return result.verified ? 0 : 1;
  }
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
  out.write(
    `Verified ${result.domain}. It is not added: petstore domains add ${result.domain} serves it and gets it a certificate.\n`,
  );
  return 0;
}
