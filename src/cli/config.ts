import { describeSettings, OPERATOR_SETTINGS, settingsHelp } from '../config/index.js';
import { printableUrl } from '../log/index.js';
import { type OptionSpec, parseOptions, UsageError } from './args.js';
import { jsonLine, printable } from './output.js';

export const CONFIG_USAGE = `Usage: petstore config [--json]

Prints every setting in effect and where its value comes from: env (the environment), file (the
PETSTORE_CONFIG file), default (the service's own), or unset. Passwords in URLs are shown as ***. An invalid
configuration is refused as a start would refuse it, with every problem named. --json prints one object.

Settings of the environment:
${settingsHelp(OPERATOR_SETTINGS)}

The PETSTORE_CONFIG file may set plans.free, plans.pro, plans.business, anonymous, admin (each
{"perMinute", "perDay"}), ban.after, ban.durationSeconds, deprecation.deprecatedAt, deprecation.sunsetAt,
deprecation.link and domains (see docs/configuration.md).`;

/** The options of `petstore config`. */
export const CONFIG_OPTIONS = { json: { type: 'boolean' } } as const satisfies OptionSpec;

/** `petstore config`: prints the settings in effect; returns the exit code. */
export function configCommand(args: string[], out: NodeJS.WritableStream): number {
  const { values, positionals } = parseOptions(args, CONFIG_OPTIONS, 'config');
  if (positionals.length > 0)
    throw new UsageError(`config takes no arguments: ${positionals.join(' ')}`, 'config');
  // Passwords in URLs never reach the terminal.
  const settings = describeSettings().map((setting) =>
    setting.url && setting.value !== null ? { ...setting, value: printableUrl(setting.value) } : setting,
  );
  if (values.json === true) {
    out.write(jsonLine({ settings }));
    return 0;
  }
  const width = Math.max(...settings.map((setting) => setting.name.length));
  const valueWidth = Math.min(60, Math.max(...settings.map((setting) => (setting.value ?? '').length)));
  for (const { name, value, source, origin } of settings) {
    const from = origin === undefined ? source : `${source} (${origin})`;
    out.write(`${name.padEnd(width)}  ${printable(value ?? '-').padEnd(valueWidth)}  ${from}\n`);
  }
  return 0;
}
