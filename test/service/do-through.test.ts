/**
 * `quackd do` when a service is running: the verb goes through the control socket as a one-step
 * run of the service (its transcript and status), played by the script pilot whatever the
 * service's own pilot is; the flags of a run in this process are refused in one line; --local
 * runs it here instead.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { quackd } from '../helpers/quackd.js';

describe('quackd do through a running service', () => {
  let home: string;
  let serving: Serving;
  const env = (): NodeJS.ProcessEnv => ({ QUACKD_HOME: home });

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'quackd-do-through-'));
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\n');
    // The service's own pilot is the fake one: `do` must not be flown by it.
    serving = await startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(createFakeProvider()) });
  });
  after(async () => {
    await serving?.stop('the test');
    rmSync(home, { recursive: true, force: true });
  });

  it('walks den as a run of the service, played by the script pilot', async () => {
    const r = await quackd(['do', 'walk', '0.8', '--robot', 'den'], { env: env() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^do on den \(microduck:sim2d\) · pilot script · budget 1 step, 2 calls, 120 s$/m);
    assert.match(r.stdout, /^ {2}1 {2}walk 0\.80 +walked 0\.80 m/m);
    const runId = /transcript (\S+)$/m.exec(r.stdout)?.[1];
    const last = serving.service.status('den').lastOutcome;
    assert.equal(last?.runId, runId, 'the service ran it');
    assert.deepEqual([last?.duck, last?.status], ['do', 'success']);
  });

  it('a bad line is refused here in one line, before the service hears of it', async () => {
    const before = serving.service.status('den').lastOutcome?.runId;
    const r = await quackd(['do', 'kick', 'middle', '--robot', 'den'], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^quackd: do: "kick middle": kick takes foot: foot: /);
    assert.equal(serving.service.status('den').lastOutcome?.runId, before);
  });

  it('refuses --port (the service holds the links) and runs here with --local', async () => {
    const r = await quackd(['do', 'quack', '--robot', 'microduck:jsonrpc', '--port', '/dev/null'], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr.trim(), /^quackd: do: --port is for a run in this process, and quackd serve \(pid \d+\) holds its robots' links \(add --local to run here instead\)$/);
    const before = serving.service.status('den').lastOutcome?.runId;
    const local = await quackd(['do', 'quack', '--local'], { env: env() });
    assert.equal(local.code, 0, local.stderr);
    assert.equal(serving.service.status('den').lastOutcome?.runId, before, 'not the service');
  });
});
