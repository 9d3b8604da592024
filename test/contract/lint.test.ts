import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  BaseResolver,
  createConfig,
  lintFromString,
  type NormalizedProblem,
  ResolveError,
  type Source,
} from '@redocly/openapi-core';
import { servedText } from '../support/server.js';

/**
 * A resolver that reads nothing: the document is self-contained, and the test must not touch the network
 * (or the disk). An external `$ref` becomes an unresolved-ref error instead of a fetch.
 */
class OfflineResolver extends BaseResolver {
  override async loadExternalRef(absoluteRef: string): Promise<Source> {
    throw new ResolveError(new Error(`external reference refused: ${absoluteRef}`));
  }
}

const describeProblem = (problem: NormalizedProblem) =>
  `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location.map((at) => at.pointer).join(', ')}`;

for (const path of ['/openapi.json', '/admin/openapi.json']) {
  describe(`the served OpenAPI document ${path} passes the recommended lint rules`, () => {
    let problems: NormalizedProblem[];
    before(async () => {
      const served = await servedText(path);
      const externalRefResolver = new OfflineResolver();
      // Only the built-in `recommended` ruleset: no config file is looked for, no plugin is loaded.
      const config = await createConfig({ extends: ['recommended'] }, { externalRefResolver });
      problems = await lintFromString({
        source: served.text,
        absoluteRef: served.url,
        config,
        externalRefResolver,
      });
    });

    test('no errors', () => {
      assert.deepEqual(problems.filter((problem) => problem.severity === 'error').map(describeProblem), []);
    });

    test('no warnings', () => {
      assert.deepEqual(problems.filter((problem) => problem.severity === 'warn').map(describeProblem), []);
    });
  });
}
