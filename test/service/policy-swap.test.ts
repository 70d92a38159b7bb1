/**
 * `quackd policy load` under a running `quackd serve` that holds a serial duck (the host firmware
 * over a pty, microduck:jsonrpc): the held body outlives its runs, so the next run must still use
 * the slot as it is now, through the built CLI as a person swaps a policy between runs, and the
 * slot swapped back (--default) must be what the run after uses.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bundledPolicyDir } from '../../src/policy/bundled.js';
import { Rig, missingTools } from '../bridge/rig.js';
import { childEnv, runCli } from '../helpers/cli.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

/** The bundled walk with another nominal speed: a run's walk line says which walk it ran. */
function slowWalk(dir: string): string {
  const to = join(dir, 'slow-walk');
  cpSync(bundledPolicyDir('walk'), to, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(to, 'manifest.json'), 'utf8')) as { command: { nominal: { vx: number } } };
  manifest.command.nominal.vx = 0.15;
  writeFileSync(join(to, 'manifest.json'), JSON.stringify(manifest));
  return to;
}

describe('a policy swapped while the service holds the robot', { skip: missingTools() }, () => {
  let rig: Rig;
  before(async () => {
    rig = await Rig.start(['--watchdog-ms', '5000']);
  });
  after(async () => {
    await rig?.cleanup();
  });

  it("the held duck's next run walks with the policy loaded, and with the bundled one again after --default", async () => {
    const home = tempDir('quackd-swap-');
    const env = childEnv({ QUACKD_HOME: home });
    await serve(home, `robots:\n  bench: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\nmqtt: false\n`);
    const walk = () => runCli(['do', 'walk', '0.1', '--robot', 'bench', '--yes'], { env });
    const first = await walk();
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /commanded vx 0\.30 m\/s \(the policy's nominal\)/);

    const load = await runCli(['policy', 'load', 'walk', slowWalk(home), '--robot', 'bench'], { env });
    assert.equal(load.code, 0, load.stderr);
    assert.match(load.stdout, /its next run uses it/);
    const swapped = await walk();
    assert.equal(swapped.code, 0, swapped.stderr);
    assert.match(swapped.stdout, /commanded vx 0\.15 m\/s \(the policy's nominal\)/, 'the held body walked with the policy it opened with');

    const back = await runCli(['policy', 'load', 'walk', '--default', '--robot', 'bench'], { env });
    assert.equal(back.code, 0, back.stderr);
    const again = await walk();
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /commanded vx 0\.30 m\/s \(the policy's nominal\)/);
  });
});
