import { Resolver, lookup as systemLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The longest endpoint URL taken, in characters. */
const MAX_URL = 2_048;

/** Where an endpoint may send (`WEBHOOKS_ALLOW_PRIVATE`), and how its host's name is resolved (`DNS_RESOLVER`). */
export interface TargetPolicy {
  /** Loopback, private, link-local and every other address that is not public unicast allowed too. */
  allowPrivate: boolean;
  /** `host:port` of the DNS server names are resolved with; the system's resolver when undefined. */
  resolver?: string | undefined;
}

/** Why a delivery's target is refused: it resolved to an address that is not public. */
export class TargetRefused extends Error {
  readonly code = 'ERR_WEBHOOK_TARGET';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(
      `${host} resolves to ${address}, a ${range} address: webhooks are sent only to public addresses ` +
        '(WEBHOOKS_ALLOW_PRIVATE=true allows it)',
    );
    this.name = 'TargetRefused';
  }
}

/**
 * The range of an address when it is not public unicast (`loopback`, `private`, `linkLocal`, which holds the
 * clouds' metadata address 169.254.169.254, `uniqueLocal`, `carrierGradeNat`, `6to4`, …), undefined when it is.
 * An allow-list, by ipaddr.js's table: a range it adds later is refused until it is known. An IPv4-mapped IPv6
 * address is judged as the IPv4 address it carries.
 */
export function nonPublicRange(address: string): string | undefined {
  const parsed = ipaddr.process(address);
  // IPv4-compatible IPv6 (`::/96`, deprecated by RFC 4291 but still parsed): `::127.0.0.1` and `::a9fe:a9fe`
  // carry an IPv4 address in their low 32 bits, judged as that address, as the mapped `::ffff:` form is.
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, in ipaddr.js's table already.
  if (parsed.kind() === 'ipv6') {
    const parts = (parsed as ipaddr.IPv6).parts;
    const compatible =
      parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || (parts[7] ?? 0) > 1);
    if (compatible) {
      const high = parts[6] as number;
      const low = parts[7] as number;
      const carried = new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
      const range = carried.range();
      return range === 'unicast' ? undefined : range;
    }
  }
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}

/** The URL an endpoint is made with, or why it cannot be one (a sentence for the API's error). */
export function parseWebhookUrl(text: string): URL | string {
  if (text.length > MAX_URL) return `the URL is longer than ${MAX_URL} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'the URL is not an absolute URL (https://host/path)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the URL must be http:// or https://';
  if (url.hostname === '') return 'the URL has no host';
  if (url.hash !== '') return 'the URL has a fragment (#…), which is never sent';
  return url;
}

/** What a URL's user name and password are shown as. */
export const MASK = '***';

/** The URL as logs, the audit log and the console show it: its user name and password replaced by `***`. */
export function displayUrl(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const shown = new URL(url.href);
  shown.username = MASK;
  if (shown.password !== '') shown.password = MASK;
  return shown.href;
}

/**
 * The URL with its path and query masked as well: `https://hooks.example.com/***?token=***`. A chat
 * service's or a CI's webhook URL is a capability (`…/services/T0/B0/<secret>`, `?token=…`): whoever reads it
 * can post as the operator. The audit, the events sent to other endpoints and the roles below `admin` see this
 * form; the query's names stay, as they tell the endpoints apart without giving anything away.
 */
export function maskedUrl(url: URL): string {
  const shown = new URL(displayUrl(url));
  if (shown.pathname !== '/') shown.pathname = `/${MASK}`;
  if (shown.search !== '') {
    const names = [...new Set(shown.searchParams.keys())];
    shown.search = names.map((name) => `${encodeURIComponent(name)}=${MASK}`).join('&');
  }
  // URL would write the mask's asterisks as they are; the result is for people, never requested.
  return shown.href;
}

/** A URL's host as the resolver and `isIP` take it: IPv6 literals without their brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Every address `host` resolves to, through the policy's resolver; an IP literal is its own. */
async function addressesOf(host: string, policy: TargetPolicy): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  if (policy.resolver === undefined) {
    return (await systemLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  }
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  resolver.setServers([policy.resolver]);
  const answers = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const addresses = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
  if (addresses.length === 0) {
    const failed = answers.find((answer) => answer.status === 'rejected');
    throw failed?.reason ?? new Error(`${host} has no address`);
  }
  return addresses;
}

/** Rejects with {@link TargetRefused} when any of `addresses` is not public and the policy does not allow it. */
function refuseNonPublic(host: string, addresses: readonly string[], policy: TargetPolicy): void {
  if (policy.allowPrivate) return;
  for (const address of addresses) {
    const range = nonPublicRange(address);
    if (range !== undefined) throw new TargetRefused(host, address, range);
  }
}

/**
 * Checks an endpoint's URL when it is made or changed, so that an operator hears at once that it can never
 * be sent to: a {@link TargetRefused} if its host resolves to an address that is not public. A name that
 * does not resolve yet passes (its deliveries fail and are retried), and every connection is checked again
 * by {@link guardedLookup}: the answer may change between now and then.
 */
export async function checkTarget(url: URL, policy: TargetPolicy): Promise<void> {
  const host = hostOf(url);
  let addresses: string[];
  try {
    addresses = await addressesOf(host, policy);
  } catch {
    return;
  }
  refuseNonPublic(host, addresses, policy);
}

/**
 * The `lookup` of every connection a delivery opens: it resolves the name itself and refuses one whose
 * answer holds an address that is not public, so that the address checked is the address connected to. A
 * name that answered a public address when the endpoint was made and 127.0.0.1 now (DNS rebinding) is
 * refused here. Node calls no lookup for an IP literal: {@link checkLiteral} covers those.
 */
export function guardedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    addressesOf(hostname, policy).then(
      (resolved) => {
        try {
          refuseNonPublic(hostname, resolved, policy);
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 0);
          return;
        }
        const family = typeof options.family === 'number' ? options.family : 0;
        const entries = resolved
          .map((address) => ({ address, family: isIP(address) }))
          .filter((entry) => family === 0 || entry.family === family);
        const first = entries[0];
        if (first === undefined) {
          callback(
            Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
        } else if (options.all === true) {
          (callback as unknown as (error: null, entries: { address: string; family: number }[]) => void)(
            null,
            entries,
          );
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** Throws {@link TargetRefused} when the URL's host is an IP literal that is not public and not allowed. */
export function checkLiteral(url: URL, policy: TargetPolicy): void {
  const host = hostOf(url);
  if (isIP(host) !== 0) refuseNonPublic(host, [host], policy);
}
