import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { OptionSpec } from '../../src/cli/args.js';
import { COMMANDS, grammarOf, KEYS_OPTIONS, MIGRATE_OPTIONS } from '../../src/cli/commands.js';
import { inParallel, runCli } from '../support/process.js';
import { tempDir } from '../support/server.js';

/** Each `petstore <command> [<action>]` of the table, with its usage text and the options it takes. */
const ENTRIES: { words: string[]; usage: string; options: OptionSpec }[] = Object.entries(COMMANDS).flatMap(
  ([command, grammar]) =>
    'options' in grammar
      ? [{ words: [command], usage: grammar.usage, options: grammar.options }]
      : Object.entries(grammar.actions).map(([action, options]) => ({
          words: [command, action],
          usage: grammar.usage,
          options,
        })),
);

// A database that does not exist: should an argument be taken after all, the command fails to find it
// (commands other than serve and migrate never create one) rather than touch anything.
const scratch = tempDir('petstore-grammar-');
after(scratch.remove);
const ENV = { DATABASE_URL: `sqlite:${path.join(scratch.dir, 'missing.db')}` };

describe('the grammar table (src/cli/commands.ts) is what the CLI takes', () => {
  test("its commands are the ones 'petstore --help' lists", async () => {
    const { code, stdout } = await runCli(['--help'], ENV);
    assert.equal(code, 0);
    const listed = [...stdout.matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((match) => match[1]);
    assert.deepEqual(listed.filter((name) => name !== 'help').sort(), Object.keys(COMMANDS).sort());
  });

  test('grammarOf finds a command without actions, an action, and nothing else', () => {
    assert.equal(grammarOf('migrate'), MIGRATE_OPTIONS, 'the very spec the parser uses');
    assert.equal(grammarOf('migrate', 'check'), undefined);
    assert.equal(grammarOf('keys', 'create'), KEYS_OPTIONS.create);
    assert.equal(grammarOf('keys'), undefined);
    assert.equal(grammarOf('keys', 'toString'), undefined);
    assert.equal(grammarOf('toString'), undefined);
    assert.equal(grammarOf('frobnicate'), undefined);
    assert.ok(
      grammarOf('domains', 'verify')?.wait,
      "verify's --wait is in the grammar, though takeWait reads it",
    );
  });

  test('<command> --help prints the usage text, which names every option of every action', async () => {
    // One run per command: main.ts answers --help before it reads an action, so each action's --help is this.
    const commands = Object.keys(COMMANDS) as (keyof typeof COMMANDS)[];
    const results = await inParallel(commands, (command) => runCli([command, '--help'], ENV));
    results.forEach((result, index) => {
      const command = commands[index] as keyof typeof COMMANDS;
      assert.equal(result.code, 0, `${command}: ${result.stderr}`);
      assert.equal(result.stdout, `${COMMANDS[command].usage}\n`, command);
      for (const entry of ENTRIES.filter((candidate) => candidate.words[0] === command)) {
        for (const flag of Object.keys(entry.options)) {
          const label = entry.words.join(' ');
          assert.match(result.stdout, new RegExp(`--${flag}(?![\\w-])`), `${label}: --help names --${flag}`);
        }
      }
    });
  });

  test('every action is taken as an action, and an unknown option is refused with exit 2', async () => {
    const results = await inParallel(ENTRIES, async (entry) => ({
      entry,
      result: await runCli([...entry.words, '--no-such-flag'], ENV),
    }));
    for (const { entry, result } of results) {
      const [command] = entry.words;
      const label = entry.words.join(' ');
      // serve refuses any argument at all, before any option parsing.
      const problem =
        command === 'serve' ? 'serve takes no arguments: --no-such-flag' : 'unknown option --no-such-flag';
      assert.equal(result.code, 2, `${label}: ${result.stderr}`);
      assert.equal(result.stderr, `petstore: ${problem} (see 'petstore ${command} --help')\n`, label);
      assert.equal(result.stdout, '', label);
    }
  });

  test('an action not in the table is refused as one, so the check above can fail', async () => {
    const withActions = Object.keys(COMMANDS).filter((command) => grammarOf(command) === undefined);
    assert.deepEqual(withActions.sort(), ['admin-tokens', 'audit', 'domains', 'keys', 'webhooks']);
    const results = await inParallel(withActions, (command) => runCli([command, 'no-such-action'], ENV));
    results.forEach((result, index) => {
      const command = withActions[index] as string;
      assert.equal(result.code, 2, result.stderr);
      assert.equal(
        result.stderr,
        `petstore: unknown ${command} action: no-such-action (see 'petstore ${command} --help')\n`,
      );
    });
  });
});
