// A node:test reporter: one line per finished test, the details of each failure, and a last line
// "N passed, N failed" that CI reads.
import { inspect } from 'node:util';

export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  // The names of the enclosing suites, by nesting level, so a failure says which suite (and backend) it is in.
  const path = [];
  for await (const event of source) {
    const { type, data } = event;
    if (type === 'test:start') {
      path[data.nesting] = data.name;
      path.length = data.nesting + 1;
    } else if (type === 'test:pass' || type === 'test:fail') {
      // Suites (describe) report too; count only leaf tests. A suite fails on its own when a hook of its fails
      // (a before that throws): its tests are then cancelled, and the hook's error is only here.
      if (data.details?.type === 'suite') {
        if (type === 'test:fail' && data.details?.error?.failureType !== 'subtestsFailed') {
          failures.push({ ...data, name: [...path.slice(0, data.nesting), data.name].join(' > ') });
        }
        continue;
      }
      const indent = '  '.repeat(data.nesting);
      const ms = data.details?.duration_ms?.toFixed(0) ?? '?';
      if (type === 'test:pass' && (data.skip || data.todo)) {
        skipped += 1;
        // A skip's reason, when it gives one, is printed: a test that cannot run here says why.
        const reason = typeof data.skip === 'string' ? `: ${data.skip}` : '';
        yield `${indent}- ${data.name} (skipped${reason})\n`;
      } else if (type === 'test:pass') {
        passed += 1;
        yield `${indent}ok ${data.name} (${ms} ms)\n`;
      } else {
        failed += 1;
        failures.push({ ...data, name: [...path.slice(0, data.nesting), data.name].join(' > ') });
        yield `${indent}FAIL ${data.name} (${ms} ms)\n`;
      }
    } else if (type === 'test:stderr' || type === 'test:stdout') {
      yield data.message;
    } else if (type === 'test:diagnostic' && /^(tests|pass|fail) /.test(data.message) === false) {
      if (data.nesting === 0 && !/^(suites|cancelled|skipped|todo|duration_ms) /.test(data.message)) {
        yield `# ${data.message}\n`;
      }
    }
  }
  for (const data of failures) {
    yield `\nFAILED: ${data.name}\n  at ${data.file ?? '?'}:${data.line ?? '?'}\n`;
    const error = data.details?.error;
    const cause = error?.cause ?? error;
    yield `${inspect(cause, { depth: 4 })
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n')}\n`;
  }
  yield `\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`;
}
