import { parseArgs } from 'node:util';
import type { Config } from '../config/index.js';
import { createKeyManager, KeyInputError, PLANS } from '../keys/index.js';
import { type ApiKeyRecord, createStorage, type Plan } from '../storage/index.js';

export const KEYS_USAGE = `Usage:
  petstore keys create --plan free|pro|business|enterprise [--name NAME]
                       [--per-minute N --per-day N] [--json]
  petstore keys list [--json]
  petstore keys revoke <id>
  petstore keys unban <id>

Enterprise keys need both --per-minute and --per-day; other plans use their plan's limits.
The key is printed once, at creation: only its digest is stored.`;

/** Wrong arguments: the CLI prints the usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,9}$/.test(value))
    throw new UsageError(`${flag} must be a positive whole number (got ${value})`);
  return Number(value);
}

function parseKeysArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        plan: { type: 'string' },
        name: { type: 'string' },
        'per-minute': { type: 'string' },
        'per-day': { type: 'string' },
        json: { type: 'boolean' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The public view of a key: never the key, never its digest. */
function view(record: ApiKeyRecord) {
  return {
    id: record.id,
    name: record.name,
    plan: record.plan,
    limits: record.limits,
    prefix: record.prefix,
    env: record.env,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt,
  };
}

/** `petstore keys …`: returns the exit code. */
export async function keysCommand(
  args: string[],
  config: Config,
  out: NodeJS.WritableStream,
): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseKeysArgs(rest);
  const json = values.json === true;

  const storage = await createStorage(config.storage);
  try {
    const keys = createKeyManager({ storage, env: config.env });
    switch (action) {
      case 'create': {
        if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals.join(' ')}`);
        const plan = values.plan;
        if (plan === undefined || !PLANS.includes(plan as Plan)) {
          throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
        }
        const perMinute = positiveInteger('--per-minute', values['per-minute']);
        const perDay = positiveInteger('--per-day', values['per-day']);
        if ((perMinute === undefined) !== (perDay === undefined)) {
          throw new UsageError('--per-minute and --per-day go together');
        }
        const name = values.name;
        const { record, key } = await keys.create({
          plan: plan as Plan,
          ...(name !== undefined ? { name } : {}),
          ...(perMinute !== undefined && perDay !== undefined ? { limits: { perMinute, perDay } } : {}),
        });
        if (json) {
          out.write(`${JSON.stringify({ ...view(record), key })}\n`);
        } else {
          out.write(
            `Created API key ${record.id} (plan ${record.plan}, name "${record.name}").\n\n  ${key}\n\n` +
              'Store it now: it will not be shown again.\n',
          );
        }
        return 0;
      }
      case 'list': {
        if (positionals.length > 0 || values.plan !== undefined || values.name !== undefined) {
          throw new UsageError('keys list takes only --json');
        }
        const records = (await keys.list()).map(view);
        if (json) {
          out.write(`${JSON.stringify({ keys: records })}\n`);
        } else if (records.length === 0) {
          out.write('No API keys. Create one with: petstore keys create --plan free\n');
        } else {
          for (const record of records) {
            const limits = record.limits ? ` ${record.limits.perMinute}/min ${record.limits.perDay}/day` : '';
            const state = record.revokedAt ? `revoked ${record.revokedAt}` : 'active';
            out.write(
              `${record.id}  ${record.prefix}…  ${record.plan}${limits}  ${record.env}  "${record.name}"  ` +
                `created ${record.createdAt}  ${state}\n`,
            );
          }
        }
        return 0;
      }
      case 'revoke':
      case 'unban': {
        const [id, ...extra] = positionals;
        if (id === undefined || extra.length > 0 || Object.keys(values).length > 0) {
          throw new UsageError(`keys ${action} takes exactly one key id`);
        }
        if (!(await (action === 'revoke' ? keys.revoke(id) : keys.unban(id)))) {
          process.stderr.write(`petstore: no API key has the id ${id}\n`);
          return 1;
        }
        out.write(
          action === 'revoke'
            ? `Revoked ${id}. Servers refuse it within 5 seconds.\n`
            : `Lifted any ban of ${id}. Servers admit it again within 5 seconds.\n`,
        );
        return 0;
      }
      default:
        throw new UsageError(
          action === undefined ? 'keys needs an action' : `unknown keys action: ${action}`,
        );
    }
  } catch (error) {
    if (error instanceof KeyInputError) throw new UsageError(error.message);
    throw error;
  } finally {
    await storage.close();
  }
}
