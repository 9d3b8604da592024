import type { Config } from '../config/index.js';
import { SCOPES, type Scope } from '../contract/index.js';
import {
  type ApiKeyRecord,
  createKeyManager,
  type IssuedKey,
  KeyExpiredError,
  KeyInputError,
  type KeyManager,
  KeyRevokedError,
  KeyRotatedError,
  keyView,
  MAX_GRACE_MS,
  PLANS,
  type Plan,
} from '../keys/index.js';
import { limitsFor } from '../ratelimit/index.js';
import { actionOf, parseOptions, UsageError } from './args.js';
import { KEYS_OPTIONS } from './commands.js';
import { parseDuration } from './duration.js';
import { jsonLine, notRevoked, printable } from './output.js';
import { openExistingStorage } from './storage.js';

type Action = keyof typeof KEYS_OPTIONS;

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,9}$/.test(value)) {
    throw new UsageError(`${flag} must be a positive whole number (got ${value})`, 'keys');
  }
  return Number(value);
}

function scopesOf(value: string | undefined): Scope[] | undefined {
  if (value === undefined) return undefined;
  const scopes = value.split(',').map((scope) => scope.trim());
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new UsageError(
      `--scopes takes a comma-separated list of ${SCOPES.join(', ')} (got ${value})`,
      'keys',
    );
  }
  return scopes as Scope[];
}

/** One line of `keys list`: every field printable, so a name cannot forge another line. */
function row(key: ReturnType<typeof keyView>): string {
  const limits = key.limits ? ` ${key.limits.perMinute}/min ${key.limits.perDay}/day` : '';
  const state =
    key.state === 'revoked'
      ? `revoked ${key.revokedAt}`
      : key.state === 'expired'
        ? `expired ${key.expiresAt}`
        : key.state === 'banned'
          ? `banned until ${key.bannedUntil}`
          : key.expiresAt !== null
            ? `active until ${key.expiresAt}`
            : 'active';
  const scopes = key.scopes.length === SCOPES.length ? '' : `  scopes ${key.scopes.join(',')}`;
  const successor = key.replacedBy === null ? '' : `  replaced by ${key.replacedBy}`;
  const used = `  last used ${key.lastUsedAt ?? 'never'}`;
  return `${key.id}  ${key.prefix}…  ${key.plan}${limits}  ${key.env}  "${printable(key.name)}"  created ${key.createdAt}  ${state}${successor}${used}${scopes}\n`;
}

/** What the commands print of a key just made: the key itself, once. */
function issuedText(issued: IssuedKey, what: string): string {
  const { record, key } = issued;
  return (
    `${what} API key ${record.id} (plan ${record.plan}, name "${printable(record.name)}").\n\n  ${key}\n\n` +
    'Store it now: it will not be shown again.\n'
  );
}

/** `petstore keys …`: returns the exit code. */
export async function keysCommand(
  args: string[],
  config: Config,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
  /** Asks the person at the terminal a yes-or-no question; undefined when there is no terminal to ask. */
  ask?: (question: string) => Promise<boolean>,
): Promise<number> {
  const [action, rest] = actionOf(
    args,
    KEYS_OPTIONS,
    'keys',
    'create, list, show, rotate, expire, revoke or unban',
  );
  const { values, positionals } = parseOptions(rest, KEYS_OPTIONS[action], 'keys');
  const json = (values as { json?: boolean }).json === true;
  const view = (record: ApiKeyRecord) => keyView(record, Date.now(), limitsFor(config.rateLimit, record));
  const notFound = (id: string) => {
    err.write(`petstore: no API key has the id ${printable(id)}\n`);
    return 1;
  };
  /** The one key id an action takes. */
  const onlyId = () => {
    const [id, ...extra] = positionals;
    if (id === undefined || extra.length > 0) throw new UsageError(`keys ${action} takes one key id`, 'keys');
    return id;
  };

  // The arguments are read before the database is opened; the key manager judges the values (limits, name).
  let run: (keys: KeyManager) => Promise<number>;
  switch (action as Action) {
    case 'create': {
      if (positionals.length > 0)
        throw new UsageError(`unexpected argument: ${positionals.join(' ')}`, 'keys');
      const options = values as Record<string, string | undefined>;
      const plan = options.plan;
      if (plan === undefined || !PLANS.includes(plan as Plan)) {
        throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`, 'keys');
      }
      const perMinute = positiveInteger('--per-minute', options['per-minute']);
      const perDay = positiveInteger('--per-day', options['per-day']);
      if ((perMinute === undefined) !== (perDay === undefined)) {
        throw new UsageError('--per-minute and --per-day go together', 'keys');
      }
      if (options['expires-in'] !== undefined && options['expires-at'] !== undefined) {
        throw new UsageError('--expires-in and --expires-at are one or the other', 'keys');
      }
      const expiresIn =
        options['expires-in'] === undefined
          ? undefined
          : parseDuration('--expires-in', options['expires-in'], 'keys');
      if (expiresIn === 0) throw new UsageError('--expires-in must be more than 0', 'keys');
      const scopes = scopesOf(options.scopes);
      run = async (keys) => {
        const expiresAt =
          expiresIn !== undefined ? new Date(Date.now() + expiresIn).toISOString() : options['expires-at'];
        const created = await keys.create({
          plan: plan as Plan,
          ...(options.name !== undefined ? { name: options.name } : {}),
          ...(perMinute !== undefined && perDay !== undefined ? { limits: { perMinute, perDay } } : {}),
          ...(scopes !== undefined ? { scopes } : {}),
          ...(expiresAt !== undefined ? { expiresAt } : {}),
        });
        out.write(
          json ? jsonLine({ ...view(created.record), key: created.key }) : issuedText(created, 'Created'),
        );
        return 0;
      };
      break;
    }
    case 'list': {
      if (positionals.length > 0) throw new UsageError('keys list takes only --json', 'keys');
      run = async (keys) => {
        const records = (await keys.list()).map(view);
        if (json) out.write(jsonLine({ keys: records }));
        else if (records.length === 0)
          out.write('No API keys. Create one with: petstore keys create --plan free\n');
        else for (const record of records) out.write(row(record));
        return 0;
      };
      break;
    }
    case 'show': {
      const id = onlyId();
      run = async (keys) => {
        const record = await keys.get(id);
        if (record === undefined) return notFound(id);
        out.write(json ? jsonLine(view(record)) : row(view(record)));
        return 0;
      };
      break;
    }
    case 'rotate': {
      const id = onlyId();
      const grace = (values as { grace?: string }).grace;
      const graceMs = grace === undefined ? 0 : parseDuration('--grace', grace, 'keys');
      if (graceMs > MAX_GRACE_MS) throw new UsageError('--grace may be at most 30d', 'keys');
      run = async (keys) => {
        const rotated = await keys.rotate(id, graceMs);
        if (rotated === undefined) return notFound(id);
        if (json) {
          out.write(
            jsonLine({ ...view(rotated.record), key: rotated.key, previous: view(rotated.previous) }),
          );
        } else {
          out.write(issuedText(rotated, `Rotated ${id}: new`));
          out.write(`${id} keeps working until ${rotated.previous.expiresAt}; then it is refused.\n`);
        }
        return 0;
      };
      break;
    }
    case 'expire': {
      const id = onlyId();
      run = async (keys) => {
        const expired = await keys.update(id, { expiresAt: new Date().toISOString() });
        if (expired === undefined) return notFound(id);
        out.write(
          `Expired ${id} at ${expired.expiresAt}. Servers refuse it from now on (401 api_key_expired).\n`,
        );
        return 0;
      };
      break;
    }
    case 'revoke': {
      const id = onlyId();
      const yes = (values as { yes?: boolean }).yes === true;
      run = async (keys) => {
        const before = await keys.get(id);
        if (before === undefined) return notFound(id);
        const successors = await keys.successors(id);
        if (before.revokedAt !== null && successors.length === 0) {
          out.write(`${id} was already revoked at ${before.revokedAt}; nothing changed.\n`);
          return 0;
        }
        if (successors.length > 0 && !yes) {
          const named = successors.map((key) => `${key.id} (${printable(key.name)})`).join(', ');
          const question = `${id} was rotated: revoking it also revokes ${named}.`;
          if (ask === undefined) {
            err.write(
              `petstore: ${question} Run again with --yes to revoke them all, or 'petstore keys expire ${id}' to end only its grace; nothing changed\n`,
            );
            return 1;
          }
          if (!(await ask(`${question} Revoke all ${successors.length + 1}? [y/N] `))) {
            out.write('Nothing changed.\n');
            return 1;
          }
        }
        // The key and the keys rotated from it, as read back after the revoke committed: said revoked only
        // if every one reads so (see admin.ts).
        const now = await keys.revoke(id);
        if (now === undefined) return notFound(id);
        const active = [now.record, ...now.successors].find((key) => key.revokedAt === null);
        if (active !== undefined) {
          err.write(`petstore: ${notRevoked(active.id)}\n`);
          return 1;
        }
        const also = now.successors.map((key) => key.id);
        out.write(
          also.length === 0
            ? `Revoked ${id}. Servers refuse it within 5 seconds.\n`
            : `Revoked ${id} and the keys rotated from it, ${also.join(', ')}. Servers refuse them within 5 seconds.\n`,
        );
        return 0;
      };
      break;
    }
    case 'unban': {
      const id = onlyId();
      run = async (keys) => {
        if ((await keys.unban(id)) === undefined) return notFound(id);
        out.write(`Lifted any ban of ${id}. Servers admit it again within 5 seconds.\n`);
        return 0;
      };
      break;
    }
  }

  const storage = await openExistingStorage(config);
  try {
    return await run(createKeyManager({ apiKeys: storage.apiKeys, env: config.env, view }));
  } catch (error) {
    if (error instanceof KeyInputError) throw new UsageError(error.message, 'keys');
    if (
      error instanceof KeyRevokedError ||
      error instanceof KeyRotatedError ||
      error instanceof KeyExpiredError
    ) {
      err.write(`petstore: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await storage.close();
  }
}
