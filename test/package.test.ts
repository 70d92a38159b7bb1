/**
 * A user's `npm install` installs what quackd needs and nothing of its benches: better-sqlite3 (the
 * memory bench's SQLite baseline, whose install compiled SQLite for 4.5 minutes) is no dependency
 * of any kind, the memory bench runs without it, saying so, and onnxruntime-node's installer
 * (a download of CUDA files from outside npm) is skipped by package.json, not by a key in .npmrc
 * that npm warns about on every `npx quackd`.
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
  it('better-sqlite3 is no dependency of any kind (its types stay in dev for the bench), in the lock neither', () => {
    const pkg = json('package.json');
    for (const kind of ['dependencies', 'optionalDependencies', 'devDependencies', 'peerDependencies']) assert.equal(pkg[kind]?.['better-sqlite3'], undefined, kind);
    assert.ok(pkg['devDependencies']?.['@types/better-sqlite3'] !== undefined);
    const lock = json('package-lock.json')['packages'] as Record<string, unknown>;
    assert.equal(lock['node_modules/better-sqlite3'], undefined);
  });

  it("onnxruntime-node's installer is denied in allowScripts, and npm here warns of nothing (no unknown key in .npmrc)", async () => {
    assert.equal(json('package.json')['allowScripts']?.['onnxruntime-node'], false);
    // What every npm and npx command in the repository prints first.
    const { stdout, stderr } = await promisify(execFile)('npm', ['--version'], { cwd: ROOT, timeout: 60_000 });
    assert.match(stdout, /^\d+\.\d+\.\d+/);
    assert.equal(stderr, '');
  });

  it('the memory bench skips the SQLite baseline, saying so, when better-sqlite3 cannot be loaded', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/fixtures/no-better-sqlite3.mjs', 'bench/memory.ts'], { cwd: ROOT, timeout: 60_000 });
    assert.match(stdout, /^SQLite baseline skipped: better-sqlite3 cannot be loaded \(.*\); 'npm install --no-save better-sqlite3' adds it/m);
    assert.match(stdout, /^LMDB \(quackd store\)/m);
    assert.doesNotMatch(stdout, /^SQLite \(better-sqlite3/m);
  });
});
