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

/** A host name in the form we compare: lower case, without the trailing dot of a fully qualified name. */
export function normalizeDomain(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/** Whether `name` (normalised) is a syntactically valid domain name of at least two labels. */
export function isDomainName(name: string): boolean {
  return HOST_NAME.test(name);
}

function domainProblem(field: string, value: string): string | undefined {
  return isDomainName(normalizeDomain(value))
    ? undefined
    : `PETSTORE_CONFIG ${field} must be a domain name such as docs.example.com, without scheme, port or path (got ${JSON.stringify(value)})`;
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
