import type { Config } from '../config/index.js';
import { type ApiKeyRecord, createKeyManager, KeyInputError, PLANS, type Plan } from '../keys/index.js';
import { parseOptions, UsageError } from './args.js';
import { jsonLine, printable } from './output.js';
import { openExistingStorage } from './storage.js';

export const KEYS_USAGE = `Usage:
  petstore keys create --plan free|pro|business|enterprise [--name NAME]
                       [--per-minute N --per-day N] [--json]
  petstore keys list [--json]
  petstore keys revoke <id>
  petstore keys unban <id>

Enterprise keys need both --per-minute and --per-day (a day at least a minute); other plans use their
plan's limits. Names are 1 to 100 characters without control characters. The key is printed once, at
creation: only its digest is stored. The commands use the database a server made (DATABASE_URL) and never
create one.`;

const OPTIONS = {
  create: {
    plan: { type: 'string' },
    name: { type: 'string' },
    'per-minute': { type: 'string' },
    'per-day': { type: 'string' },
    json: { type: 'boolean' },
  },
  list: { json: { type: 'boolean' } },
  revoke: {},
  unban: {},
} as const;

type Action = keyof typeof OPTIONS;

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,9}$/.test(value)) {
    throw new UsageError(`${flag} must be a positive whole number (got ${value})`, 'keys');
  }
  return Number(value);
}

/** The public view of a key: never the key, never its digest; its state as of `now`. */
function view(record: ApiKeyRecord, now: number) {
  const banned = record.bannedUntil !== null && Date.parse(record.bannedUntil) > now;
  return {
    id: record.id,
    name: record.name,
    plan: record.plan,
    limits: record.limits,
    prefix: record.prefix,
    env: record.env,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt,
    state: record.revokedAt !== null ? 'revoked' : banned ? 'banned' : 'active',
    bannedUntil: banned ? record.bannedUntil : null,
  };
}

/** One line of `keys list`: every field printable, so a name cannot forge another line. */
function row(key: ReturnType<typeof view>): string {
  const limits = key.limits ? ` ${key.limits.perMinute}/min ${key.limits.perDay}/day` : '';
  const state =
    key.state === 'revoked'
      ? `revoked ${key.revokedAt}`
      : key.state === 'banned'
        ? `banned until ${key.bannedUntil}`
        : 'active';
  return `${key.id}  ${key.prefix}…  ${key.plan}${limits}  ${key.env}  "${printable(key.name)}"  created ${key.createdAt}  ${state}\n`;
}

/** `petstore keys …`: returns the exit code. */
export async function keysCommand(
  args: string[],
  config: Config,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined)
    throw new UsageError('keys needs an action: create, list, revoke or unban', 'keys');
  if (!Object.hasOwn(OPTIONS, action)) throw new UsageError(`unknown keys action: ${action}`, 'keys');
  const { values, positionals } = parseOptions(rest, OPTIONS[action as Action], 'keys');
  const json = (values as { json?: boolean }).json === true;

  // The arguments are read before the database is opened; the key manager judges the values (limits, name).
  let run: (keys: ReturnType<typeof createKeyManager>) => Promise<number>;
  switch (action as Action) {
    case 'create': {
      if (positionals.length > 0)
        throw new UsageError(`unexpected argument: ${positionals.join(' ')}`, 'keys');
      const options = values as { plan?: string; name?: string; 'per-minute'?: string; 'per-day'?: string };
      const plan = options.plan;
      if (plan === undefined || !PLANS.includes(plan as Plan)) {
        throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`, 'keys');
      }
      const perMinute = positiveInteger('--per-minute', options['per-minute']);
      const perDay = positiveInteger('--per-day', options['per-day']);
      if ((perMinute === undefined) !== (perDay === undefined)) {
        throw new UsageError('--per-minute and --per-day go together', 'keys');
      }
      const input = {
        plan: plan as Plan,
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(perMinute !== undefined && perDay !== undefined ? { limits: { perMinute, perDay } } : {}),
      };
      run = async (keys) => {
        const { record, key } = await keys.create(input);
        out.write(
          json
            ? jsonLine({ ...view(record, Date.now()), key })
            : `Created API key ${record.id} (plan ${record.plan}, name "${printable(record.name)}").\n\n  ${key}\n\n` +
                'Store it now: it will not be shown again.\n',
        );
        return 0;
      };
      break;
    }
    case 'list': {
      if (positionals.length > 0) throw new UsageError('keys list takes only --json', 'keys');
      run = async (keys) => {
        const now = Date.now();
        const records = (await keys.list()).map((record) => view(record, now));
        if (json) out.write(jsonLine({ keys: records }));
        else if (records.length === 0)
          out.write('No API keys. Create one with: petstore keys create --plan free\n');
        else for (const record of records) out.write(row(record));
        return 0;
      };
      break;
    }
    case 'revoke':
    case 'unban': {
      const [id, ...extra] = positionals;
      if (id === undefined || extra.length > 0)
        throw new UsageError(`keys ${action} takes one key id`, 'keys');
      run = async (keys) => {
        if (!(await (action === 'revoke' ? keys.revoke(id) : keys.unban(id)))) {
          err.write(`petstore: no API key has the id ${printable(id)}\n`);
          return 1;
        }
        out.write(
          action === 'revoke'
            ? `Revoked ${id}. Servers refuse it within 5 seconds.\n`
            : `Lifted any ban of ${id}. Servers admit it again within 5 seconds.\n`,
        );
        return 0;
      };
      break;
    }
  }

  const storage = await openExistingStorage(config);
  try {
    return await run(createKeyManager({ apiKeys: storage.apiKeys, env: config.env }));
  } catch (error) {
    if (error instanceof KeyInputError) throw new UsageError(error.message, 'keys');
    throw error;
  } finally {
    await storage.close();
  }
}
