import { describeSettings } from '../config/index.js';
import { printableUrl } from '../log/index.js';
import { parseOptions, UsageError } from './args.js';
import { CONFIG_OPTIONS } from './commands.js';
import { jsonLine, printable } from './output.js';

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
