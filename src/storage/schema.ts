import { API_VERSION } from '../contract/index.js';

/**
 * The migration policy (docs/upgrades-and-backups.md, "Upgrades"): expand, then contract a release later. A migration only adds
 * what the release before it can ignore, or removes what the release before it no longer uses, so the
 * release before a schema always serves it, and instances of both can run side by side on one database
 * during a rolling upgrade. Each migration says the oldest release whose code serves a database with it
 * applied; the database records it beside each version (`schema_migrations.oldest_release`), so that a
 * release meeting a schema newer than it knows can tell whether it may serve it.
 */
export const OLDEST_RELEASE_SERVING: Readonly<Record<number, string>> = {
  1: '1.0.0',
  2: '1.0.0',
  3: '1.0.0',
  4: '1.0.0',
  5: '1.0.0',
  6: '1.0.0',
  7: '1.0.0',
  8: '1.0.0',
  9: '1.0.0',
  10: '1.0.0',
  11: '1.0.0',
  12: '1.0.0',
  // Served by 1.3.0 too, which knows no roles: during a rolling upgrade from it, its instances let every
  // token do everything (docs/people-and-roles.md says to give roles once the upgrade is done).
  13: '1.0.0',
  // Served by 1.3.0: its sessions name a token, which a person's session has none of, so it refuses those.
  14: '1.0.0',
  // Served by 1.3.0: it names the columns it writes, so a token its command line makes has no maker (null).
  15: '1.0.0',
};

/** The newest schema version this release knows. */
export const SCHEMA_VERSION = Math.max(...Object.keys(OLDEST_RELEASE_SERVING).map(Number));

/** The first version whose row has an `oldest_release`: the migration that added the column. */
export const RECORDS_OLDEST_RELEASE = 11;

/** A database's schema: its version, and the oldest release that serves it. */
export interface SchemaState {
  version: number;
  oldestRelease: string;
}

/** Orders release versions (`1.10.0` after `1.9.0`). */
export function compareReleases(a: string, b: string): number {
  const [pa, pb] = [a, b].map((version) => version.split('.').map(Number));
  for (let index = 0; index < 3; index += 1) {
    const difference = (pa?.[index] ?? 0) - (pb?.[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * The schema of a database from its `schema_migrations` rows: the newest version, and the newest of the
 * oldest releases each version needs (recorded, or known to this release for the versions it knows).
 */
export function schemaOf(rows: readonly { version: number; oldest_release?: string | null }[]): SchemaState {
  let version = 0;
  let oldestRelease = '0.0.0';
  for (const row of rows) {
    version = Math.max(version, Number(row.version));
    const needs = row.oldest_release ?? OLDEST_RELEASE_SERVING[Number(row.version)];
    if (needs !== undefined && compareReleases(needs, oldestRelease) > 0) oldestRelease = needs;
  }
  return { version, oldestRelease };
}

/** A database whose schema this release can no longer serve: a newer release contracted it. */
export class SchemaTooNewError extends Error {
  constructor(where: string, state: SchemaState) {
    super(
      `the database at ${where} is at schema ${state.version}, which release ${state.oldestRelease} and later serve; ` +
        `this is release ${API_VERSION} (schema ${SCHEMA_VERSION}): run release ${state.oldestRelease} or later, or restore a backup`,
    );
    this.name = 'SchemaTooNewError';
  }
}

/** Refuses a schema this release cannot serve; a newer one that it can (by the policy) is served. */
export function checkServable(state: SchemaState, where: string): void {
  if (state.version > SCHEMA_VERSION && compareReleases(state.oldestRelease, API_VERSION) > 0) {
    throw new SchemaTooNewError(where, state);
  }
}
