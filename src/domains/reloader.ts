import { type Stats, unwatchFile, watchFile } from 'node:fs';
import type { Logger } from '../log/index.js';
import type { DomainsConfig } from './config.js';

/** Reads the domains of the config file: the parsed value, or the problems that make it unusable. */
export type ReadDomains = (file: string) => { value: DomainsConfig | undefined; problems: string[] };

/** The domains in force now, replaced whenever the config file is re-read successfully. */
export interface DomainReloader {
  /** The domains in force; undefined when none are configured (no Host rules apply). */
  current(): DomainsConfig | undefined;
  /** Whether there is a config file to re-read, so that domains may appear later. */
  readonly reloadable: boolean;
  /** Re-reads the config file; a file that cannot be used is logged and the domains in force are kept. */
  reload(reason: string): void;
  /** Stops watching the file. */
  close(): void;
}

/** How often the file is polled. Polling (not `fs.watch`) also sees a file replaced by rename, as editors do. */
const POLL_MS = 250;

/**
 * Keeps the domains of `file` current: re-read when the file changes and when `reload` is called (on
 * SIGHUP). Only `domains` is reloaded; the other keys of the file are read at start.
 */
export function createDomainReloader(options: {
  file: string | undefined;
  initial: DomainsConfig | undefined;
  read: ReadDomains;
  logger: Logger;
  /** Told of the domains after each successful reread. */
  onReload?: (domains: DomainsConfig | undefined) => void;
}): DomainReloader {
  const { file, read, logger } = options;
  let domains = options.initial;

  function reload(reason: string): void {
    if (file === undefined) return;
    const { value, problems } = read(file);
    if (problems.length > 0) {
      logger.error({ file, reason, problems }, 'config file refused; the domains in force are kept');
      return;
    }
    domains = value;
    options.onReload?.(value);
    logger.info(
      { file, reason, primary: value?.primary, redirects: [...(value?.redirects.keys() ?? [])] },
      'domains reloaded',
    );
  }

  const onChange = (current: Stats, previous: Stats) => {
    if (current.mtimeMs !== previous.mtimeMs || current.size !== previous.size) reload('file changed');
  };
  // Not persistent: watching the file must not keep a stopping process alive.
  if (file !== undefined) watchFile(file, { interval: POLL_MS, persistent: false }, onChange);

  return {
    current: () => domains,
    reloadable: file !== undefined,
    reload,
    close() {
      if (file !== undefined) unwatchFile(file, onChange);
    },
  };
}
