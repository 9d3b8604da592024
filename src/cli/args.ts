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

/** How many single-character edits (insert, delete, replace, swap of neighbours) turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_row, i) =>
    Array.from({ length: b.length + 1 }, (_cell, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => (rows[i] as number[])[j] as number;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The option a mistyped one was probably meant to be (`--stauts` for `--status`, `--key-id` for `--key`): the
 * nearest by edits, within a third of its length, or one whose name starts or ends the typed one.
 */
export function nearestOption(typed: string, known: readonly string[]): string | undefined {
  let nearest: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = typed.startsWith(name) || name.startsWith(typed) ? 1 : editDistance(typed, name);
    if (
      distance <= Math.max(1, Math.floor(name.length / 3)) &&
      (nearest === undefined || distance < nearest.distance)
    ) {
      nearest = { name, distance };
    }
  }
  return nearest?.name;
}

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
    if (spec === undefined) {
      const meant = nearestOption(token.name, Object.keys(options));
      throw new UsageError(
        `unknown option ${token.rawName}${meant === undefined ? '' : `: did you mean --${meant}?`}`,
        command,
      );
    }
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

/**
 * The action of `petstore <command> <action> …`, one of `actions`' names, and the arguments after it;
 * refused in words of our own when there is none (`needs` lists the actions) or `actions` has no such one.
 */
export function actionOf<A extends object>(
  args: readonly string[],
  actions: A,
  command: string,
  needs = Object.keys(actions).join(', '),
): [action: keyof A & string, rest: string[]] {
  const [action, ...rest] = args;
  if (action === undefined) throw new UsageError(`${command} needs an action: ${needs}`, command);
  if (!Object.hasOwn(actions, action)) throw new UsageError(`unknown ${command} action: ${action}`, command);
  return [action as keyof A & string, rest];
}

/** Whether the arguments ask for help rather than for the command. */
export function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}
