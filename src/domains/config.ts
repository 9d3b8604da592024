/** Redirect statuses: 301 is the documented one; 302, 307 and 308 are accepted for operators who need them. */
export const REDIRECT_STATUSES = [301, 302, 307, 308] as const;
export type RedirectStatus = (typeof REDIRECT_STATUSES)[number];

/**
 * The `domains` key of the `PETSTORE_CONFIG` file, as written: the config checks its shape, `parseDomains`
 * its values (host names, statuses), with messages that name the field at fault.
 */
export interface DomainsFile {
  primary: string;
  redirects?: { from: string; to: string; status: number }[];
}

export interface Redirect {
  from: string;
  to: string;
  status: RedirectStatus;
}

/** The domains the reference is published at, host names in lower case without a trailing dot. */
export interface DomainsConfig {
  primary: string;
  /** Keyed by `from`. */
  redirects: ReadonlyMap<string, Redirect>;
}

// Letters, digits and inner hyphens, 1 to 63 per label, at least two labels: a custom domain is never a TLD.
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/**
 * A last label that makes a name an IPv4 address to URL parsers (WHATWG URL, "ends in a number": decimal
 * digits, or 0x and hex digits), so that `127.1` and `0x7f.1` reach 127.0.0.1. RFC 1123 section 2.1 keeps
 * host names from looking like this: a top-level label is never all-numeric.
 */
const NUMERIC_LABEL = /^(\d+|0x[0-9a-f]*)$/;

/** A host name in the form we compare: lower case, without the trailing dot of a fully qualified name. */
export function normalizeDomain(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/**
 * What keeps `name` (normalised) from being a host name of at least two labels, as words that follow the
 * field's name ("must be …"); undefined when it is one.
 */
export function domainNameProblem(name: string): string | undefined {
  if (!HOST_NAME.test(name)) {
    return 'must be a domain name such as docs.example.com, without scheme, port or path';
  }
  if (NUMERIC_LABEL.test(name.slice(name.lastIndexOf('.') + 1))) {
    return 'must be a domain name, not an IP address: the last label of a host name is never numeric (RFC 1123)';
  }
  return undefined;
}

/** Whether `name` (normalised) is a host name of at least two labels, and no IP address. */
export function isDomainName(name: string): boolean {
  return domainNameProblem(name) === undefined;
}

/** The problem of a name given as `value` in `field`, as a sentence: `<field> must be … (got "<value>")`. */
export function describeDomainProblem(field: string, value: string): string | undefined {
  const problem = domainNameProblem(normalizeDomain(value));
  return problem === undefined
    ? undefined
    : `${field} ${problem} (got ${JSON.stringify(value.slice(0, 100))})`;
}

function domainProblem(field: string, value: string): string | undefined {
  return describeDomainProblem(`PETSTORE_CONFIG ${field}`, value);
}

/** Checks the values of a `domains` key whose shape `DomainsFileSchema` accepted. */
export function parseDomains(file: DomainsFile | undefined): {
  value: DomainsConfig | undefined;
  problems: string[];
} {
  if (file === undefined) return { value: undefined, problems: [] };
  const problems: string[] = [];
  const primary = normalizeDomain(file.primary);
  const bad = domainProblem('domains.primary', file.primary);
  if (bad !== undefined) problems.push(bad);
  const redirects = new Map<string, Redirect>();
  (file.redirects ?? []).forEach((entry, index) => {
    const field = `domains.redirects[${index}]`;
    const from = normalizeDomain(entry.from);
    const to = normalizeDomain(entry.to);
    for (const problem of [
      domainProblem(`${field}.from`, entry.from),
      domainProblem(`${field}.to`, entry.to),
    ])
      if (problem !== undefined) problems.push(problem);
    if (!(REDIRECT_STATUSES as readonly number[]).includes(entry.status)) {
      problems.push(
        `PETSTORE_CONFIG ${field}.status must be 301 (the documented status), 302, 307 or 308 (got ${entry.status})`,
      );
    }
    if (from === primary) problems.push(`PETSTORE_CONFIG ${field}.from is the primary domain ${primary}`);
    if (from === to) problems.push(`PETSTORE_CONFIG ${field} redirects ${from} to itself`);
    if (redirects.has(from)) problems.push(`PETSTORE_CONFIG ${field}.from repeats ${from}`);
    redirects.set(from, { from, to, status: entry.status as RedirectStatus });
  });
  // A `to` that is itself redirected would chain, and two such redirects would loop forever.
  for (const { from, to } of redirects.values()) {
    if (to !== from && redirects.has(to)) {
      problems.push(
        `PETSTORE_CONFIG domains.redirects: ${from} redirects to ${to}, which is itself redirected`,
      );
    }
  }
  return problems.length > 0 ? { value: undefined, problems } : { value: { primary, redirects }, problems };
}
