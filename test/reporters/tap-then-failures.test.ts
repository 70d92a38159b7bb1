/**
 * `npm test` ends with the failed tests, named and with their errors, after the TAP counts: a CI
 * log that keeps only the last lines of 1 400 tests' output must still say what failed.
 * Runs node's test runner with the reporters package.json's test script names, as CI does.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/tmp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The --test-reporter flags of `npm test`, as package.json writes them. */
function reporterFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const flags = scripts['test']?.match(/--test-reporter(-destination)?=\S+/g) ?? [];
  assert.ok(flags.length >= 1, `npm test names its reporter: ${scripts['test']}`);
  return flags;
}

function runTests(source: string): Promise<{ code: number; lines: string[] }> {
  const file = join(tempDir(), 'sample.test.ts');
  writeFileSync(file, source);
  // Without NODE_TEST_CONTEXT: with it, the runner takes itself for a test file of this run and
  // reports to it instead of to its reporters.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', '--test', ...reporterFlags(), file], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout) => {
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, lines: stdout.trimEnd().split('\n') });
    });
  });
}

describe('npm test names what failed at the end of its output', () => {
  it('after the counts: each failed test by its file and path of names, with its error; a failed hook by its suite; passing tests and suites failed by their tests not repeated', async () => {
    const { code, lines } = await runTests(`
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
describe('the duck', () => {
  it('stands', () => {});
  describe('walking', () => { it('makes its distance', () => { assert.equal(0.42, 1, 'walked 0.42 of 1 m'); }); });
});
it('quacks', async () => { await new Promise((settle) => setTimeout(settle, 5)); throw new Error('no quack'); });
describe('the bus', () => {
  before(() => { throw new Error('no port'); });
  it('scans', () => {});
});
`);
    assert.equal(code, 1);
    const counts = lines.findIndex((line) => line.startsWith('# fail 2'));
    const summary = lines.findIndex((line) => line === '# failures (4):');
    assert.ok(counts >= 0 && summary >= 0, lines.slice(-30).join('\n'));
    assert.ok(counts < summary, 'the failures come after the counts');
    const tail = lines.slice(summary).join('\n');
    assert.match(tail, /# ✖ \S+sample\.test\.ts\n# {3}the duck > walking > makes its distance\n# {5}\[testCodeFailure\] AssertionError \[ERR_ASSERTION\]: walked 0\.42 of 1 m/);
    assert.match(tail, /# {3}quacks\n# {5}\[testCodeFailure\] Error: no quack\n#\s+at .*sample\.test\.ts:\d+/);
    // A suite whose hook failed says so; its tests, cancelled, are named once each.
    assert.match(tail, /# {3}the bus\n# {5}\[hookFailed\] Error: no port\n/);
    assert.match(tail, /# {3}the bus > scans \(cancelled: its suite or file ended first\)\n/);
    assert.doesNotMatch(tail, /stands|# {3}the duck\n|node:internal/);
  });

  it("a file that fails as a whole (its process exits early) by its file, with what it printed last on stderr", async () => {
    const { code, lines } = await runTests(`import { it } from 'node:test';\nit('stands', () => {});\nconsole.error('the twin said: no MuJoCo');\nsetTimeout(() => process.exit(7), 50);\n`);
    assert.equal(code, 1);
    const tail = lines.slice(lines.indexOf('# failures (1):')).join('\n');
    assert.match(tail, /# ✖ (\S+sample\.test\.ts)\n# {3}\1\n# {5}\[testCodeFailure\] test failed\n# {5}its stderr, last lines:\n# {5}the twin said: no MuJoCo$/);
  });

  it('a run with no failure adds nothing', async () => {
    const { code, lines } = await runTests(`import { it } from 'node:test';\nit('stands', () => {});\n`);
    assert.equal(code, 0);
    assert.match(lines.at(-1) ?? '', /^# duration_ms /);
    assert.ok(!lines.some((line) => line.startsWith('# failures')));
  });
});
