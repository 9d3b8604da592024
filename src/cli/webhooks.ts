import { CLI_ACTOR } from '../audit/index.js';
import { parseTimestamp, systemClock } from '../clock/index.js';
import { DELIVERY_PAGE } from '../contract/index.js';
import {
  createWebhookManager,
  type DeliveryRecord,
  type DeliveryView,
  type EndpointView,
  WebhookInputError,
  type WebhookManager,
} from '../webhooks/index.js';
import { actionOf, parseOptions, UsageError } from './args.js';
import { type Command, WEBHOOKS_OPTIONS } from './commands.js';
import { parseDuration } from './duration.js';
import { jsonLine, printable } from './output.js';
import { openExistingStorage } from './storage.js';

type Action = keyof typeof WEBHOOKS_OPTIONS;
const STATES: readonly DeliveryRecord['state'][] = ['pending', 'delivered', 'failed'];

/** Why an endpoint takes no deliveries, in words. */
const DISABLED_WHY: Record<NonNullable<EndpointView['disabledReason']>, string> = {
  manual: 'disabled by an operator',
  gone: 'disabled: its receiver answered 410 Gone',
  failing: 'disabled: no delivery succeeded for WEBHOOKS_DISABLE_AFTER_DAYS (5 by default)',
};

const usage = (message: string) => new UsageError(message, 'webhooks');

/** `--events a,b`: the names as given, for the manager to judge against the catalogue. */
function eventsOf(value: string): string[] {
  return value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** A time of `--since` or `--failed-since`: an RFC 3339 time, or a duration back from now. */
function timeOf(flag: string, value: string): number {
  const at = parseTimestamp(value);
  if (at !== undefined) return at;
  try {
    return systemClock.now() - parseDuration(flag, value, 'webhooks');
  } catch {
    throw usage(
      `${flag} takes a duration back from now (15m, 2h, 7d) or an RFC 3339 time such as 2026-11-28T09:00:00Z (got ${value})`,
    );
  }
}

/** The state of an endpoint in a word or two: `enabled`, or `disabled (failing)`. */
const stateOf = (view: EndpointView) =>
  view.enabled ? 'enabled' : `disabled (${view.disabledReason ?? 'manual'})`;

/**
 * One line of `webhooks list`. Everything read from storage is escaped: a URL or a description written
 * through another door (the admin API, the database) cannot drive the operator's terminal.
 */
function row(view: EndpointView): string {
  const failing = view.failingSince === null ? '' : `  failing since ${view.failingSince}`;
  const description = view.description === '' ? '' : `  "${printable(view.description)}"`;
  return `${printable(view.id)}  ${stateOf(view)}  ${printable(view.url)}  ${printable(view.events.join(','))}${failing}${description}\n`;
}

/** An endpoint as `show` and the changes print it for people. */
function describe(view: EndpointView): string {
  const lines = [
    `${printable(view.id)}: ${view.enabled ? 'enabled' : DISABLED_WHY[view.disabledReason ?? 'manual']}`,
    `  URL: ${printable(view.url)}`,
    `  Events: ${printable(view.events.join(', '))}`,
  ];
  if (view.description !== '') lines.push(`  Description: "${printable(view.description)}"`);
  lines.push(
    view.failingSince === null
      ? '  Failing: no'
      : `  Failing since ${view.failingSince}: every attempt since has failed`,
  );
  if (view.previousSecretUntil !== null) {
    lines.push(`  The secret before the last rotation signs too until ${view.previousSecretUntil}`);
  }
  lines.push(`  Created ${view.createdAt}; changed ${view.updatedAt}`);
  return `${lines.join('\n')}\n`;
}

/** One line of `webhooks deliveries`. */
function deliveryRow(delivery: DeliveryView): string {
  const status = delivery.lastStatus === null ? '' : `  last status ${delivery.lastStatus}`;
  const next = delivery.nextAttemptAt === null ? '' : `  next attempt ${delivery.nextAttemptAt}`;
  return `${delivery.id}  ${delivery.createdAt}  ${printable(delivery.eventType)}  ${delivery.state}  attempts ${delivery.attempts}${status}${next}  ${printable(delivery.eventId)}\n`;
}

/** What add and rotate-secret print of a secret: the secret itself, this once. */
function secretText(what: string, secret: string): string {
  return `${what}\n\n  ${secret}\n\nStore it now: it will not be shown again. Receivers verify every delivery's signature with it.\n`;
}

/** A positive whole number no larger than JavaScript counts exactly: a delivery's id. */
function deliveryIdOf(value: string): number {
  if (!/^[1-9]\d{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw usage(
      `a delivery id is a positive whole number, as 'webhooks deliveries' lists them (got ${value})`,
    );
  }
  return Number(value);
}

/** `petstore webhooks …`: returns the exit code. */
export const webhooksCommand: Command = async (args, config, out, err) => {
  const [action, rest] = actionOf(args, WEBHOOKS_OPTIONS, 'webhooks');
  const { values, positionals } = parseOptions(rest, WEBHOOKS_OPTIONS[action], 'webhooks');
  const options = values as Record<string, string | boolean | undefined>;
  const text = (name: string) => options[name] as string | undefined;
  const json = options.json === true;
  const notFound = (id: string) => {
    err.write(`petstore: no webhook endpoint has the id ${printable(id)}\n`);
    return 1;
  };
  /** The one endpoint id an action takes. */
  const onlyId = () => {
    const [id, ...extra] = positionals;
    if (id === undefined || extra.length > 0) throw usage(`webhooks ${action} takes one endpoint id`);
    return id;
  };

  // The arguments are read before the database is opened; the manager judges the values (URL, event types).
  let run: (webhooks: WebhookManager) => Promise<number>;
  switch (action as Action) {
    case 'list': {
      if (positionals.length > 0) throw usage('webhooks list takes only --json');
      run = async (webhooks) => {
        const views = await webhooks.list();
        if (json) out.write(jsonLine(views));
        else if (views.length === 0) {
          out.write('No webhook endpoints. Add one: petstore webhooks add <url> --events <types>\n');
        } else for (const view of views) out.write(row(view));
        return 0;
      };
      break;
    }
    case 'add': {
      const [url, ...extra] = positionals;
      if (url === undefined || extra.length > 0) throw usage('webhooks add takes one URL');
      const events = text('events');
      if (events === undefined) {
        throw usage('webhooks add needs --events, a comma-separated list of event types');
      }
      const description = text('description');
      run = async (webhooks) => {
        const { endpoint, secret } = await webhooks.create(
          { url, events: eventsOf(events), ...(description !== undefined ? { description } : {}) },
          CLI_ACTOR,
        );
        if (json) {
          out.write(jsonLine({ ...endpoint, secret }));
          return 0;
        }
        out.write(
          secretText(
            `Added webhook endpoint ${endpoint.id} for ${printable(endpoint.events.join(', '))}, to ${printable(endpoint.url)}. Its signing secret:`,
            secret,
          ),
        );
        out.write(`Send it a test event: petstore webhooks test ${endpoint.id}\n`);
        return 0;
      };
      break;
    }
    case 'show': {
      const id = onlyId();
      run = async (webhooks) => {
        const view = await webhooks.get(id);
        if (view === undefined) return notFound(id);
        out.write(json ? jsonLine(view) : describe(view));
        return 0;
      };
      break;
    }
    case 'update': {
      const id = onlyId();
      const [url, events, description] = [text('url'), text('events'), text('description')];
      if (url === undefined && events === undefined && description === undefined) {
        throw usage('webhooks update needs --url, --events or --description');
      }
      run = async (webhooks) => {
        const view = await webhooks.update(
          id,
          {
            ...(url !== undefined ? { url } : {}),
            ...(events !== undefined ? { events: eventsOf(events) } : {}),
            ...(description !== undefined ? { description } : {}),
          },
          CLI_ACTOR,
        );
        if (view === undefined) return notFound(id);
        out.write(json ? jsonLine(view) : `Updated ${describe(view)}`);
        return 0;
      };
      break;
    }
    case 'enable':
    case 'disable': {
      const id = onlyId();
      const enabled = action === 'enable';
      run = async (webhooks) => {
        const view = await webhooks.update(id, { enabled }, CLI_ACTOR);
        if (view === undefined) return notFound(id);
        out.write(
          enabled
            ? `Enabled ${id}: its deliveries go again, those that waited first.\n`
            : `Disabled ${id}: its deliveries wait until it is enabled again (petstore webhooks enable ${id}).\n`,
        );
        return 0;
      };
      break;
    }
    case 'remove': {
      const id = onlyId();
      run = async (webhooks) => {
        if (!(await webhooks.delete(id, CLI_ACTOR))) return notFound(id);
        out.write(`Removed ${id} with its deliveries and their log: nothing more is sent to it.\n`);
        return 0;
      };
      break;
    }
    case 'rotate-secret': {
      const id = onlyId();
      run = async (webhooks) => {
        const rotated = await webhooks.rotateSecret(id, CLI_ACTOR);
        if (rotated === undefined) return notFound(id);
        const { endpoint, secret } = rotated;
        if (json) {
          out.write(jsonLine({ ...endpoint, secret }));
          return 0;
        }
        out.write(secretText(`Rotated the signing secret of ${id}. The new one:`, secret));
        out.write(
          `The secret before it still signs every delivery beside the new one until ${endpoint.previousSecretUntil}: deploy the new one to the receiver before then.\n`,
        );
        return 0;
      };
      break;
    }
    case 'test': {
      const id = onlyId();
      const type = text('type');
      run = async (webhooks) => {
        const endpoint = await webhooks.get(id);
        if (endpoint === undefined) return notFound(id);
        if (!endpoint.enabled) {
          err.write(
            `petstore: ${id} is ${DISABLED_WHY[endpoint.disabledReason ?? 'manual']}: enable it first (petstore webhooks enable ${id}), then send a test event\n`,
          );
          return 1;
        }
        const sent = await webhooks.test(id, type);
        if (sent === undefined) return notFound(id);
        if (json) out.write(jsonLine(sent));
        else {
          out.write(
            `Queued test event ${sent.eventId} (${sent.type}) for ${id}. A running server sends it within seconds; see petstore webhooks deliveries ${id}\n`,
          );
        }
        return 0;
      };
      break;
    }
    case 'deliveries': {
      const id = onlyId();
      const [state, since, limit] = [text('state'), text('since'), text('limit')];
      if (state !== undefined && !(STATES as readonly string[]).includes(state)) {
        throw usage(`--state takes ${STATES.join(', ')} (got ${state})`);
      }
      if (limit !== undefined && (!/^[1-9]\d{0,2}$/.test(limit) || Number(limit) > DELIVERY_PAGE.max)) {
        throw usage(`--limit must be 1 to ${DELIVERY_PAGE.max} (got ${limit})`);
      }
      const from = since === undefined ? undefined : timeOf('--since', since);
      run = async (webhooks) => {
        const deliveries = await webhooks.deliveries(id, {
          ...(state !== undefined ? { state: state as DeliveryRecord['state'] } : {}),
          ...(from !== undefined ? { since: from } : {}),
          limit: limit === undefined ? DELIVERY_PAGE.default : Number(limit),
        });
        if (deliveries === undefined) return notFound(id);
        if (json) out.write(jsonLine(deliveries));
        else if (deliveries.length === 0) out.write(`No deliveries of ${id}.\n`);
        else for (const delivery of deliveries) out.write(deliveryRow(delivery));
        return 0;
      };
      break;
    }
    case 'replay': {
      const [id, deliveryId, ...extra] = positionals;
      const failedSince = text('failed-since');
      if (
        id === undefined ||
        extra.length > 0 ||
        (deliveryId === undefined) === (failedSince === undefined)
      ) {
        throw usage('webhooks replay takes <id> <deliveryId>, or <id> --failed-since <time>');
      }
      if (deliveryId !== undefined) {
        const number = deliveryIdOf(deliveryId);
        run = async (webhooks) => {
          const outcome = await webhooks.replay(id, number);
          if (outcome === 'not_found') {
            if ((await webhooks.get(id)) === undefined) return notFound(id);
            err.write(`petstore: ${printable(id)} has no delivery ${number}\n`);
            return 1;
          }
          if (outcome === 'under_way') {
            err.write(
              `petstore: an attempt of delivery ${number} is under way: replay it once the attempt is in its log\n`,
            );
            return 1;
          }
          out.write(
            json
              ? jsonLine(outcome)
              : outcome.nextAttemptAt === null
                ? `Delivery ${number} of ${id} (${printable(outcome.eventId)}) is pending again, with the same event id; it goes once the endpoint is enabled (petstore webhooks enable ${id}).\n`
                : `Delivery ${number} of ${id} (${printable(outcome.eventId)}) is due again now, with the same event id; a running server sends it.\n`,
          );
          return 0;
        };
      } else {
        const since = timeOf('--failed-since', failedSince as string);
        run = async (webhooks) => {
          const replayed = await webhooks.replayFailed(id, since);
          if (replayed === undefined) return notFound(id);
          const from = new Date(since).toISOString();
          const when = (await webhooks.get(id))?.enabled
            ? 'due again now; a running server sends them'
            : `pending again; they go once the endpoint is enabled (petstore webhooks enable ${id})`;
          out.write(
            json
              ? jsonLine({ replayed })
              : replayed === 0
                ? `No delivery of ${id} made since ${from} has failed; nothing to replay.\n`
                : `${replayed} failed ${replayed === 1 ? 'delivery' : 'deliveries'} of ${id} made since ${from} ${replayed === 1 ? 'is' : 'are'} ${when}.\n`,
          );
          return 0;
        };
      }
      break;
    }
  }

  const storage = await openExistingStorage(config);
  try {
    // No dispatcher here: a running server finds what this queues on its next look, within a second.
    return await run(
      createWebhookManager({
        repository: storage.webhooks,
        clock: systemClock,
        policy: config.webhooks.policy,
      }),
    );
  } catch (error) {
    if (error instanceof WebhookInputError) throw usage(error.message);
    throw error;
  } finally {
    await storage.close();
  }
};
