import { parseArgs } from 'node:util';

/** Wrong arguments: the CLI prints the problem and where its usage is, in one line, and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  /** The command whose `--help` shows the right arguments, such as `keys`; empty for `petstore` itself. */
  readonly command: string;

  constructor(message: string, command = '') {
    super(message);
    this.command = command;
  }
}

/** The options a command takes, by name (without the dashes). */
export type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

export type OptionValues<T extends OptionSpec> = {
  [K in keyof T]?: T[K]['type'] extends 'string' ? string : boolean;
};

/**
 * Parses a command's arguments, refusing in words of our own: an unknown option, a value missing or given
 * to a flag, and an option given twice (parseArgs would keep the last `--plan` without a word). A value
 * that starts with a dash, as in `--per-minute -5`, is taken as the value, for the command to judge
 * (parseArgs's strict mode calls it "ambiguous").
 */
export function parseOptions<T extends OptionSpec>(
  args: string[],
  options: T,
  command: string,
): { values: OptionValues<T>; positionals: string[] } {
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  const values: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') continue;
    const spec = options[token.name];
    if (spec === undefined) throw new UsageError(`unknown option ${token.rawName}`, command);
    if (Object.hasOwn(values, token.name)) {
      throw new UsageError(`${token.rawName} is given more than once`, command);
    }
    if (spec.type === 'string') {
      if (token.value === undefined) throw new UsageError(`${token.rawName} needs a value`, command);
      values[token.name] = token.value;
    } else {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`, command);
      values[token.name] = true;
    }
  }
  return { values: values as OptionValues<T>, positionals };
}

/** Whether the arguments ask for help rather than for the command. */
export function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}
