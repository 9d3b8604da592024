import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { COMMANDS, type CommandGrammar, commandNamed } from '../../src/cli/commands.js';
import { codeOf, documentation } from '../support/markdown.js';

/** One `petstore …` command as the documentation writes it. */
interface Written {
  /** The file it is in, such as `docs/production.md`. */
  file: string;
  /** The words after `petstore`, up to the end of the command (a comment, `&&`, a pipe). */
  words: string[];
}

// `petstore` as a command: not part of a path, a file or package name, a setting's value or a metric.
const COMMAND = /(?<![\w/.@:="'-])petstore(?=\s|$)/g;
// Where a command ends on its line: a comment, the next command of a list, a pipe, a redirection.
const END = /^(#.*|&&|\|\||\||;|\)|\d?>.*)$/;

/** Every `petstore …` of some Markdown files' code: fenced blocks and inline code. */
function writtenCommands(files: readonly { name: string; text: string }[]): Written[] {
  const found: Written[] = [];
  for (const file of files) {
    for (const line of codeOf(file.text)) {
      for (const match of line.matchAll(COMMAND)) {
        const words: string[] = [];
        for (const word of line.slice((match.index ?? 0) + match[0].length).split(/\s+/)) {
          if (word === '') continue;
          if (END.test(word)) break;
          words.push(word);
        }
        found.push({ file: file.name, words });
      }
    }
  }
  return found;
}

/** The options of some actions of a command (all of them when none is named). */
function optionsOf(grammar: CommandGrammar, actions: readonly string[]): Set<string> {
  if ('options' in grammar) return new Set(Object.keys(grammar.options));
  const specs =
    actions.length === 0 ? Object.values(grammar.actions) : actions.map((action) => grammar.actions[action]);
  return new Set(specs.flatMap((spec) => Object.keys(spec ?? {})));
}

/**
 * What is wrong with a written command: a command that does not exist, an action its command does not have
 * (`keys list|revoke` names two), an option that the command (or its actions) does not take.
 */
function problemOf({ file, words }: Written): string | undefined {
  const [command, second] = words;
  const written = `${file}: petstore ${words.join(' ')}`;
  // `petstore …` and `petstore <command>` stand for any command.
  const anyCommand = ['…', '<command>', '--version', '-v', 'version', '--help', '-h'];
  if (command === undefined || anyCommand.includes(command)) return undefined;
  if (command === 'help') {
    return second === undefined || commandNamed(second) !== undefined
      ? undefined
      : `${written}: no command ${second}`;
  }
  const grammar = commandNamed(command);
  if (grammar === undefined) return `${written}: no command ${command}`;
  const actions =
    'actions' in grammar && second !== undefined && /^[a-z][a-z-]*(\|[a-z][a-z-]*)*$/.test(second)
      ? second.split('|')
      : [];
  const missing = actions.filter((action) => 'actions' in grammar && !Object.hasOwn(grammar.actions, action));
  if (missing.length > 0) return `${written}: ${command} has no action ${missing.join(', ')}`;
  const options = optionsOf(grammar, actions);
  for (const word of words) {
    const flag = /^\[*--([a-z][a-z0-9-]*)/.exec(word)?.[1];
    if (flag !== undefined && flag !== 'help' && !options.has(flag)) return `${written}: no option --${flag}`;
  }
  return undefined;
}

describe('every petstore command the documentation names exists, with its actions and options', () => {
  const files = documentation();
  const written = writtenCommands(files);

  test('the README and every guide: each command, action and flag is one the CLI takes', () => {
    assert.deepEqual(
      written.map(problemOf).filter((problem) => problem !== undefined),
      [],
    );
    // The check looks at something: commands with actions and flags, from several files.
    assert.ok(written.length > 40, `only ${written.length} commands`);
    assert.ok(new Set(written.map((command) => command.file)).size >= 6);
  });

  test('every command is documented somewhere', () => {
    const named = new Set(written.map((command) => command.words[0]));
    assert.deepEqual(
      Object.keys(COMMANDS).filter((command) => !named.has(command)),
      [],
    );
  });

  test('the check refuses a made-up command, action or option, and reads what surrounds a command', () => {
    const file = {
      name: 'docs/x.md',
      text: [
        'Run `petstore keyz list`, `petstore keys lisst`, `petstore keys list|revok <id>`.',
        '',
        '```sh',
        'npx petstore keys create --plan free [--name N] [--per-minute N --per-day N]',
        '                         [--expires-at 2027-01-31T00:00:00Z] [--jsonn]',
        'petstore migrate && petstore copy --from a --to b --dry-run   # copy --dry-run',
        'petstore domains verify example.com --wait 5 | grep ok',
        '/var/lib/petstore/petstore.db petstore.service @petstore-api/server realm="petstore"',
        '```',
      ].join('\n'),
    };
    const found = writtenCommands([file]);
    assert.deepEqual(
      found.map((command) => command.words.join(' ')),
      [
        'keyz list',
        'keys lisst',
        'keys list|revok <id>',
        'keys create --plan free [--name N] [--per-minute N --per-day N] [--expires-at 2027-01-31T00:00:00Z] [--jsonn]',
        'migrate',
        'copy --from a --to b --dry-run',
        'domains verify example.com --wait 5',
      ],
    );
    assert.deepEqual(found.map(problemOf), [
      'docs/x.md: petstore keyz list: no command keyz',
      'docs/x.md: petstore keys lisst: keys has no action lisst',
      'docs/x.md: petstore keys list|revok <id>: keys has no action revok',
      'docs/x.md: petstore keys create --plan free [--name N] [--per-minute N --per-day N] [--expires-at 2027-01-31T00:00:00Z] [--jsonn]: no option --jsonn',
      undefined,
      'docs/x.md: petstore copy --from a --to b --dry-run: no option --dry-run',
      undefined,
    ]);
  });
});
