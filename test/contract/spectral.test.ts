import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import spectralCore, { type ISpectralDiagnostic, type Ruleset } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { servedDocument, servedText } from '../support/server.js';

// Both packages are CommonJS, whose named exports Node's ESM loader cannot all see.
const { Document, Spectral } = spectralCore;
const { Json } = spectralParsers;

/** The committed ruleset: Spectral's OpenAPI rules and the OWASP ruleset, with what is turned off and why. */
const RULESET = fileURLToPath(new URL('../../../contract/spectral.yaml', import.meta.url));

/**
 * The loader of @stoplight/spectral-ruleset-bundler, typed here: its own declarations hold
 * `/// <reference lib="dom" />`, which would give the whole program (server code included) the DOM's globals.
 */
interface Bundler {
  bundleAndLoadRuleset(
    file: string,
    io: { fs: typeof fs; fetch: (url: string) => Promise<never> },
    plugins: unknown[],
  ): Promise<Ruleset>;
  builtins(): unknown;
  commonjs(): unknown;
}
const BUNDLER = '@stoplight/spectral-ruleset-bundler';

/**
 * The ruleset as the Spectral CLI loads it (extends resolved from node_modules, the YAML's functions from
 * @stoplight/spectral-functions), with a fetch that refuses: the test must not touch the network, and an
 * `extends` that is not installed fails here instead of being downloaded.
 */
async function loadRuleset(): Promise<Ruleset> {
  const { bundleAndLoadRuleset, builtins, commonjs } = {
    ...(await import(`${BUNDLER}/with-loader`)),
    ...(await import(`${BUNDLER}/plugins/builtins`)),
    ...(await import(`${BUNDLER}/plugins/commonjs`)),
  } as Bundler;
  const fetch = async (url: string): Promise<never> => {
    throw new Error(`the ruleset asked for ${url}: nothing is fetched`);
  };
  return bundleAndLoadRuleset(RULESET, { fs, fetch }, [builtins(), commonjs()]);
}

async function lint(ruleset: Ruleset, text: string, source: string): Promise<ISpectralDiagnostic[]> {
  const spectral = new Spectral();
  spectral.setRuleset(ruleset);
  return spectral.run(new Document(text, Json, source));
}

/** Spectral's severities: 0 error, 1 warning, 2 information, 3 hint. */
const ERROR = 0;
const WARNING = 1;

const describeProblem = (problem: ISpectralDiagnostic) =>
  `${problem.code}: ${problem.message} at ${problem.path.join('.')}`;

let ruleset: Ruleset;
before(async () => {
  ruleset = await loadRuleset();
});

for (const path of ['/openapi.json', '/admin/openapi.json']) {
  describe(`the served OpenAPI document ${path} passes Spectral with the OWASP ruleset`, () => {
    let problems: ISpectralDiagnostic[];
    before(async () => {
      const served = await servedText(path);
      problems = await lint(ruleset, served.text, served.url);
    });

    test('no errors', () => {
      assert.deepEqual(problems.filter((problem) => problem.severity === ERROR).map(describeProblem), []);
    });

    test('its warnings, printed', () => {
      // Warnings fail nothing; each one printed is a rule to fix, or to turn off in contract/spectral.yaml.
      const warnings = problems.filter((problem) => problem.severity === WARNING).map(describeProblem);
      process.stdout.write(
        [`# Spectral: ${warnings.length} warnings on ${path}`, ...warnings.map((line) => `#   ${line}`)]
          .map((line) => `${line}\n`)
          .join(''),
      );
    });
  });
}

describe('the ruleset', () => {
  let served: Record<string, unknown>;
  before(async () => {
    served = await servedDocument('/openapi.json');
  });

  test('fails a request string without maxLength, and a request without its 400', async () => {
    const broken = structuredClone(served) as {
      components: { schemas: { NewCategory: { properties: { name: Record<string, unknown> } } } };
      paths: Record<string, { get: { responses: Record<string, unknown> } }>;
    };
    delete broken.components.schemas.NewCategory.properties.name.maxLength;
    delete broken.paths['/key']?.get.responses['400'];
    const errors = (await lint(ruleset, JSON.stringify(broken), 'broken.json'))
      .filter((problem) => problem.severity === ERROR)
      .map((problem) => `${problem.code} ${problem.path.join('.')}`);
    assert.ok(
      errors.includes('petstore-request-string-limit components.schemas.NewCategory.properties.name'),
      errors.join('\n'),
    );
    assert.ok(errors.includes('petstore-error-bodies paths./key.get.responses'), errors.join('\n'));
  });

  test('turns off no rule without a comment line above it saying why', () => {
    const lines = fs.readFileSync(RULESET, 'utf8').split('\n');
    const unexplained = lines.filter((line, index) => {
      if (!/^\s+[\w:.-]+: off\s*$/.test(line)) return false;
      // Rules turned off for one reason share its comment: walk up over them to the comment.
      let above = index - 1;
      while (above >= 0 && /^\s+[\w:.-]+: off\s*$/.test(lines[above] ?? '')) above -= 1;
      return !/^\s+#/.test(lines[above] ?? '');
    });
    assert.deepEqual(unexplained, []);
  });
});
