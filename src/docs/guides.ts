/** One guide: `docs/<slug>.md` in the package, served at `/docs/guides/<slug>`. */
export interface Guide {
  slug: string;
  /** The file's own first heading (a test holds them equal). */
  title: string;
  /** One line for the lists of guides: the index page, `/docs` and the README. */
  summary: string;
  /** Whom it is for: people calling the API, or people running the service. */
  part: 'using' | 'running' | 'working';
}

/** Where the guides are served. */
export const GUIDES_PATH = '/docs/guides';

/** Where one guide is served. */
export const guideUrl = (slug: string) => `${GUIDES_PATH}/${slug}`;

/** The guides, in the order the lists show them. Each is a file of `docs/`, and every such file is one. */
export const GUIDES: readonly Guide[] = [
  {
    slug: 'api',
    title: 'The API',
    summary:
      'Operations, idempotent retries, rate limits, errors, pagination, the versioning policy, browser clients.',
    part: 'using',
  },
  {
    slug: 'client',
    title: 'The client',
    summary: 'The typed TypeScript client, its retries and its errors.',
    part: 'using',
  },
  {
    slug: 'reference',
    title: 'The reference: try it, code samples, your key',
    summary: 'This reference, its Try it panel and code samples, and your key’s own page.',
    part: 'using',
  },
  {
    slug: 'configuration',
    title: 'Configuration',
    summary: 'Every setting, the config file, the data directory, the command line.',
    part: 'running',
  },
  {
    slug: 'keys-and-admin-api',
    title: 'Keys, the admin API and the console',
    summary: 'API keys, scopes, rotation and audit; the admin API; the console.',
    part: 'running',
  },
  {
    slug: 'people-and-roles',
    title: 'People and roles',
    summary: 'The roles of admin tokens, what each may do, and who did what in the audit.',
    part: 'running',
  },
  {
    slug: 'custom-domains',
    title: 'Custom domains',
    summary: 'Publishing the reference at your own domains: states, checks, certificates with Caddy.',
    part: 'running',
  },
  {
    slug: 'scaling-out',
    title: 'Scaling out',
    summary: 'Moving from SQLite to PostgreSQL with petstore copy; many instances on PostgreSQL and Redis.',
    part: 'running',
  },
  {
    slug: 'production',
    title: 'Production',
    summary:
      'The installed package, processes and signals, the systemd unit, the TLS front, PostgreSQL and Redis.',
    part: 'running',
  },
  {
    slug: 'observability',
    title: 'Observability',
    summary: 'Logs, the access log, metrics and tracing.',
    part: 'running',
  },
  {
    slug: 'request-log',
    title: 'Request log',
    summary:
      'Every request findable by its id, key, status or time: what is kept, for how long, at what cost.',
    part: 'running',
  },
  {
    slug: 'webhooks',
    title: 'Webhooks',
    summary: 'Signed events to your endpoints: retries, the delivery log, replay, and the catalogue.',
    part: 'running',
  },
  {
    slug: 'upgrades-and-backups',
    title: 'Upgrades and backups',
    summary:
      'Upgrading one server or several with no downtime, the migration policy; backups and restores on either backend.',
    part: 'running',
  },
  {
    slug: 'durability-and-speed',
    title: 'Durability and speed',
    summary: 'What a 201 promises, and how the speed is measured.',
    part: 'running',
  },
  {
    slug: 'development',
    title: 'Development',
    summary: 'Commands, layout and tests, for working on the service itself.',
    part: 'working',
  },
];

/** Guides that moved, by their old slug: their old address answers 301 to the new one, so links keep working. */
export const MOVED_GUIDES: Readonly<Record<string, string>> = {
  // 1.4 and before: the guide's file was named for half of what it holds.
  performance: 'durability-and-speed',
};

/** The headings of the lists of guides, by part. */
export const GUIDE_PARTS: Readonly<Record<Guide['part'], string>> = {
  using: 'Using the API',
  running: 'Running the service',
  working: 'Working on it',
};

/** An image of the guides: a plain file name in `docs/`, nothing above or beside it. */
export const GUIDE_IMAGE = /^[a-z0-9-]+\.png$/;

/**
 * Where a link of a guide goes on the server. Another guide (`scaling-out.md#when-postgresql-fails`) becomes
 * its page; the changelog the reference, which shows it; an anchor or an absolute URL stays as it is. A file of
 * the repository that the server does not serve (`../deploy/Caddyfile`) has no address: undefined.
 */
export function guideHref(href: string, slugs: ReadonlySet<string>): string | undefined {
  if (href.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(href)) return href;
  const [file = '', fragment] = href.split('#', 2);
  const slug = /^([a-z0-9-]+)\.md$/.exec(file)?.[1];
  if (slug !== undefined && slugs.has(slug))
    return `${guideUrl(slug)}${fragment === undefined ? '' : `#${fragment}`}`;
  if (file === '../CHANGELOG.md') return '/docs';
  if (file === '../README.md') return GUIDES_PATH;
  return undefined;
}
