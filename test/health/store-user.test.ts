/**
 * `quackd health`'s store line as the service's own user meets it (a second OS user, made by the
 * test when it runs as root, as CI does): a store that user can read but not write, which turns
 * memory off in every run, is not "ok".
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MAIN, childEnv, runCli } from '../helpers/cli.js';
import { noSecondUser, secondUser } from '../helpers/second-user.js';
import { tempDir } from '../helpers/tmp.js';

describe('quackd health and a store runs cannot write', { skip: noSecondUser() }, () => {
  it('warns, naming why, where a run finds memory off', async () => {
    const home = tempDir('quackd-health-ro-');
    const dir = join(home, 'memory');
    assert.equal((await runCli(['memory', 'add', 'the charger is under the desk'], { env: { QUACKD_HOME: home } })).code, 0);
    const user = secondUser();
    after(() => user.remove());
    chownSync(home, user.uid, user.gid);
    chownSync(dir, user.uid, user.gid);
    for (const f of readdirSync(dir)) {
      chownSync(join(dir, f), user.uid, user.gid);
      chmodSync(join(dir, f), 0o400);
    }
    chmodSync(dir, 0o500);
    const asUser = (...args: string[]) => user.node([MAIN, ...args], childEnv({ QUACKD_HOME: home, NO_COLOR: '1' }));

    const run = await asUser('run', 'hello-world');
    assert.match(run.stdout + run.stderr, /memory: off for this run .*cannot open the data file .* for writing \(EACCES\)/);
    const health = await asUser('health', '--json');
    const store = (JSON.parse(health.stdout) as { check: string; status: string; detail: string }[]).find((l) => l.check === 'store');
    assert.equal(store?.status, 'warn', health.stdout);
    assert.match(store?.detail ?? '', /^1 note, 0 episodes for microduck:sim2d · runs cannot write it, so every run has memory off: cannot open the data file .*memory\.mdb for writing \(EACCES\)$/);
  });
});
