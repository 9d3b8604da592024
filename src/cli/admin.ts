import { ACTOR_KINDS, type ActorKind, AUDIT_PAGE, isRole, ROLES, type Role } from '../contract/index.js';
import { createAdminTokenManager, makerNames, type TokenMaker, tokenMaker } from '../identity/index.js';
import { KeyInputError } from '../keys/index.js';
import { actionOf, parseOptions, UsageError } from './args.js';
import { ADMIN_TOKENS_OPTIONS, AUDIT_OPTIONS, type Command } from './commands.js';
import { jsonLine, notRevoked, printable } from './output.js';
import { openExistingStorage } from './storage.js';

/** `petstore admin-tokens …`: returns the exit code. */
export const adminTokensCommand: Command = async (args, config, out, err) => {
  const [action, rest] = actionOf(args, ADMIN_TOKENS_OPTIONS, 'admin-tokens', 'create, list or revoke');
  const { values, positionals } = parseOptions(rest, ADMIN_TOKENS_OPTIONS[action], 'admin-tokens');
  const json = (values as { json?: boolean }).json === true;
  if (action !== 'revoke' && positionals.length > 0) {
    throw new UsageError(`unexpected argument: ${positionals.join(' ')}`, 'admin-tokens');
  }
  if (action === 'revoke' && positionals.length !== 1) {
    throw new UsageError('admin-tokens revoke takes one token id', 'admin-tokens');
  }

  const role = (values as { role?: string }).role ?? 'owner';
  if (!isRole(role)) {
    throw new UsageError(
      `--role must be one of ${ROLES.join(', ')} (got ${printable(role)})`,
      'admin-tokens',
    );
  }

  const storage = await openExistingStorage(config);
  try {
    const tokens = createAdminTokenManager({ adminTokens: storage.adminTokens });
    if (action === 'create') {
      const { record, token } = await tokens.create((values as { name?: string }).name, role as Role);
      out.write(
        json
          ? jsonLine({
              id: record.id,
              name: record.name,
              role: record.role,
              prefix: record.prefix,
              createdAt: record.createdAt,
              token,
            })
          : `Created admin token ${record.id} ("${printable(record.name)}", ${record.role}).\n\n  ${token}\n\nStore it now: it will not be shown again.\n`,
      );
      return 0;
    }
    if (action === 'list') {
      const [records, people] = await Promise.all([tokens.list(), storage.people.all()]);
      const names = makerNames(records, people);
      // As the admin API shows them: never the digest; who made each, named.
      const listed = records.map(({ digest: _digest, createdBy, ...shown }) => ({
        ...shown,
        createdBy: tokenMaker(createdBy, names),
      }));
      if (json) out.write(jsonLine({ tokens: listed }));
      else if (listed.length === 0)
        out.write('No admin tokens. Create one with: petstore admin-tokens create\n');
      else {
        for (const token of listed) {
          const state = token.revokedAt === null ? 'active' : `revoked ${token.revokedAt}`;
          out.write(
            `${token.id}  ${token.prefix}…  "${printable(token.name)}"  ${token.role}  created ${token.createdAt} by ${makerText(token.createdBy)}  ${state}\n`,
          );
        }
      }
      return 0;
    }
    const id = positionals[0] as string;
    if (!(await tokens.revoke(id))) {
      err.write(`petstore: no admin token has the id ${printable(id)}\n`);
      return 1;
    }
    // Said only once the row reads revoked: a trigger in the database, or a change made at the same
    // moment, can undo the update after it ran.
    const now = (await tokens.list()).find((token) => token.id === id);
    if (now?.revokedAt == null) {
      err.write(`petstore: ${notRevoked(id)}\n`);
      return 1;
    }
    out.write(`Revoked ${id}. Servers refuse it within 5 seconds.\n`);
    return 0;
  } catch (error) {
    if (error instanceof KeyInputError) throw new UsageError(error.message, 'admin-tokens');
    throw error;
  } finally {
    await storage.close();
  }
};

/** Who made a token, for a line of `admin-tokens list`. */
function makerText(maker: TokenMaker): string {
  if (maker === null) return '(not recorded)';
  if (maker.kind === 'cli') return 'cli';
  const name = maker.name === null ? '' : ` "${printable(maker.name)}"`;
  return `${maker.kind} ${maker.id}${name}`;
}

const WHOLE = /^(0|[1-9]\d{0,15})$/;

/** `petstore audit list`: returns the exit code. */
export const auditCommand: Command = async (args, config, out) => {
  const [, rest] = actionOf(args, AUDIT_OPTIONS, 'audit');
  const { values, positionals } = parseOptions(rest, AUDIT_OPTIONS.list, 'audit');
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals.join(' ')}`, 'audit');
  for (const flag of ['after', 'limit'] as const) {
    const value = values[flag];
    if (value !== undefined && !WHOLE.test(value)) {
      throw new UsageError(`--${flag} must be a whole number (got ${value})`, 'audit');
    }
  }
  // The admin API's page, so that a script moving between the two gets the same answers.
  const limit = values.limit === undefined ? AUDIT_PAGE.default : Number(values.limit);
  if (limit < 1 || limit > AUDIT_PAGE.max) {
    throw new UsageError(`--limit must be 1 to ${AUDIT_PAGE.max} (got ${limit})`, 'audit');
  }

  const kind = values['actor-kind'];
  if (kind !== undefined && !(ACTOR_KINDS as readonly string[]).includes(kind)) {
    throw new UsageError(
      `--actor-kind must be one of ${ACTOR_KINDS.join(', ')} (got ${printable(kind)})`,
      'audit',
    );
  }

  const storage = await openExistingStorage(config);
  try {
    const events = await storage.audit.list({
      after: values.after === undefined ? 0 : Number(values.after),
      limit,
      ...(values.target !== undefined ? { target: values.target } : {}),
      ...(values.actor !== undefined ? { actor: values.actor } : {}),
      ...(kind !== undefined ? { actorKind: kind as ActorKind } : {}),
    });
    if (values.json === true) out.write(jsonLine({ events }));
    else if (events.length === 0) out.write('No audit events.\n');
    else {
      for (const event of events) {
        out.write(
          `${event.id}  ${event.at}  ${printable(event.actor)}  ${event.action}  ${printable(event.target)}  ${printable(JSON.stringify(event.details))}\n`,
        );
      }
    }
    return 0;
  } finally {
    await storage.close();
  }
};
