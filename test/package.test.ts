/**
 * `npm install` needs nothing from outside npm: better-sqlite3 (a native build that may download
 * a prebuilt binary from GitHub) is optional, and the memory bench runs without it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const json = (file: string): Record<string, Record<string, unknown> | undefined> => JSON.parse(readFileSync(`${ROOT}${file}`, 'utf8')) as Record<string, Record<string, unknown> | undefined>;

describe('package.json', () => {
  it('better-sqlite3 is an optional dependency (its types stay in dev), in the lock too', () => {
    const pkg = json('package.json');
    assert.ok(pkg['optionalDependencies']?.['better-sqlite3'] !== undefined);
    assert.equal(pkg['devDependencies']?.['better-sqlite3'], undefined);
    assert.equal(pkg['dependencies']?.['better-sqlite3'], undefined);
    assert.ok(pkg['devDependencies']?.['@types/better-sqlite3'] !== undefined);
    const lock = json('package-lock.json')['packages'] as Record<string, { optional?: boolean; dev?: boolean; optionalDependencies?: Record<string, string> }>;
    assert.ok(lock['']?.optionalDependencies?.['better-sqlite3'] !== undefined);
    assert.equal(lock['node_modules/better-sqlite3']?.optional, true);
  });

  it('the memory bench skips the SQLite baseline, saying so, when better-sqlite3 cannot be loaded', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/fixtures/no-better-sqlite3.mjs', 'bench/memory.ts'], { cwd: ROOT, timeout: 60_000 });
    assert.match(stdout, /^SQLite baseline skipped: better-sqlite3 cannot be loaded/m);
    assert.match(stdout, /^LMDB \(quackd store\)/m);
    assert.doesNotMatch(stdout, /^SQLite \(better-sqlite3/m);
  });
});
