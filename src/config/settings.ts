import { type Env, EnvSchema } from './env.js';

/** One setting as `petstore config` shows it: its value in effect and where that value came from. */
export interface Setting {
  name: string;
  /** The value in effect; null when unset and nothing stands in for it. */
  value: string | null;
  /** `env`: the environment; `file`: the PETSTORE_CONFIG file; `default`: the service's own. */
  source: 'env' | 'file' | 'default' | 'unset';
  /** For a default derived from something else, what it came from (the data directory's rule, say). */
  origin?: string;
  /** What it takes, as errors about it say. */
  description: string;
  /** A URL, which may hold a password: hide it when printing (`printableUrl`). */
  url: boolean;
}

/** Every environment variable of the service, in the order of its schema. */
export const SETTING_NAMES = Object.keys(EnvSchema.properties) as (keyof Env)[];

/**
 * Variables that exist for the tests alone (docs/development.md): `petstore config` shows one only when it is
 * set, and no `--help` offers it to operators.
 */
export const TESTING_AIDS: readonly (keyof Env)[] = [
  'PETSTORE_CLOCK_OFFSET_MS',
  'WEBHOOKS_RETRY_DELAYS_MS',
  'WEBHOOKS_LEASE_MS',
  'OIDC_RECHECK_MS',
];

/** The variables an operator sets: every one but the testing aids, in the order of the schema. */
export const OPERATOR_SETTINGS = SETTING_NAMES.filter((name) => !TESTING_AIDS.includes(name));

/** What a variable takes, and its default, for a command's `--help`: `  PORT  a TCP port, 0 to 65535 (default 8080)`. */
export function settingsHelp(names: readonly (keyof Env)[]): string {
  const width = Math.max(...names.map((name) => name.length));
  return names
    .map((name) => {
      const schema = EnvSchema.properties[name] as { description?: string; default?: string };
      const fallback = schema.default === undefined ? '' : ` (default ${schema.default})`;
      return `  ${name.padEnd(width)}  ${schema.description ?? ''}${fallback}`;
    })
    .join('\n');
}

/** The variables every command that opens the database reads. */
export const STORAGE_SETTINGS: readonly (keyof Env)[] = [
  'DATABASE_URL',
  'PETSTORE_DATA_DIR',
  'PETSTORE_CONFIG',
];

/** A schema's own default for a variable, if it has one. */
export function defaultOf(name: keyof Env): string | undefined {
  return (EnvSchema.properties[name] as { default?: string }).default;
}

/** The description of a variable, as `settingsHelp` shows it. */
export function descriptionOf(name: keyof Env): string {
  return (EnvSchema.properties[name] as { description?: string }).description ?? '';
}
