/**
 * A trained-like walk on a model of the user's, as a user runs it: a robot in the config with
 * its own MJCF and, in its walk slot, a policy that does not step below vx 0.4 (range ±0.5,
 * nominal 0.5; test/policy/gated-walk.ts, made here). The walk verb sends what the manifest says
 * and walks the metre; asked for 0.3 it stands, which is what a body with its own speed did.
 * And what the policies warn of (unknown manifest keys, a twin stepping otherwise than the policy
 * was trained) is said by `policy list`, `health` and the run's first lines.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createFakeProvider } from '../../../src/pilot/providers/fake.js';
import { createRuntime } from '../../../src/runtime/runtime.js';
import { startService } from '../../../src/service/lifecycle.js';
import { noTtyGate } from '../../../src/safety/gate.js';
import type { TranscriptEvent } from '../../../src/transcript/events.js';
import { duck } from '../../helpers/ducks.js';
import { quackd } from '../../helpers/quackd.js';
import { scripted } from '../../helpers/scripted-provider.js';
import { tempDir } from '../../helpers/tmp.js';
import { GATED_FROM_VX, gatedWalkFolder } from '../../policy/gated-walk.js';
import { RENAMED, exportDuck } from './own-model.js';

describe('a walk policy that needs vx ≥ 0.4, on a model of your own', () => {
  const home = tempDir('quackd-trained-');
  const { scene } = exportDuck(join(home, 'model'));
  const walk = gatedWalkFolder({ joints: RENAMED });
  const runtime = createRuntime({ robots: { mine: { body: 'microduck:mujoco', mjcf: scene, policies: { walk } } }, transcriptsDir: join(home, 'transcripts'), dataDir: join(home, 'data') });
  after(() => runtime.stop());

  it('walk 1.0 walks the metre at its nominal vx 0.5 in under 12 s of twin time, and says what it sent; at 0.3 it stands', async () => {
    const events: TranscriptEvent[] = [];
    const pilot = scripted([[{ name: 'walk', args: { metres: 1.0 } }], [{ name: 'walk', args: { metres: 0.3, speed: GATED_FROM_VX - 0.1 } }], [{ name: 'declare_failure', args: { reason: 'done' } }]]);
    await runtime.run({ duck: duck('verbs: [walk]'), robot: runtime.robot('mine'), seed: 7, provider: pilot, gate: noTtyGate, dryRun: false, signal: new AbortController().signal, onEvent: (e) => events.push(e) });
    const results = events.filter((e) => e.type === 'verb_result');
    const frames = events.filter((e) => e.type === 'frame');
    const [walked, slow] = results;
    assert.ok(walked?.type === 'verb_result' && slow?.type === 'verb_result', JSON.stringify(results));
    assert.equal(walked.ok, true, walked.summary);
    assert.ok(Number(walked.data?.['walked_m']) >= 1.0, walked.summary);
    assert.equal(walked.data?.['commanded_vx'], 0.5);
    assert.match(walked.summary, /^walked 1\.\d\d m, commanded vx 0\.50 m\/s \(the policy's nominal\); /);
    const twinTime = Number((frames[0]?.type === 'frame' ? (frames[0].state['t_s'] as number) : Number.NaN));
    assert.ok(twinTime <= 12, `the walk took ${twinTime} s of twin time`);
    // The speed a body of its own sent before (0.3): this policy does not step.
    assert.equal(slow.ok, false, slow.summary);
    assert.ok(Math.abs(Number(slow.data?.['walked_m'])) < 0.1, slow.summary);
    assert.match(slow.summary, /commanded vx 0\.30 m\/s \(as asked\)/);
  });
});

describe('what the policies warn of', () => {
  it('policy list, health and the run’s first lines name an unknown key and a twin stepping otherwise than trained', async () => {
    const home = tempDir('quackd-home-');
    const { scene } = exportDuck(join(home, 'model'));
    const walk = gatedWalkFolder({ joints: RENAMED, home_pose: [0], training: { task_id: 'x' }, sim: { timestep: 0.002, decimation: 10 } });
    writeFileSync(join(home, 'config.yaml'), `robots:\n  mine:\n    body: microduck:mujoco\n    mjcf: ${scene}\n    policies:\n      walk: ${walk}\n`);
    const env = { QUACKD_HOME: home };
    const key = 'walk: home_pose: unknown field, ignored (did you mean home?)';
    // quackd's duck steps 0.005 s × 4, its timestep in duck.xml, which the scene includes.
    const timing = `walk: the twin steps 0.005 s × 4 a tick (${scene}'s timestep), but the policy was trained at 0.002 s × 10 (manifest sim)`;

    const list = await quackd(['policy', 'list', '--robot', 'mine'], { env });
    assert.equal(list.code, 0, list.stdout + list.stderr);
    assert.ok(list.stdout.includes(`warning: ${key.slice('walk: '.length)}`), list.stdout);
    assert.doesNotMatch(list.stdout, /training/);

    const health = await quackd(['health', '--robot', 'mine'], { env });
    const policies = health.stdout.split('\n').find((l) => /\bpolicies\b/.test(l)) ?? '';
    assert.ok(policies.includes(key) && policies.includes(timing), health.stdout);

    const underHeader = (stdout: string): string[] => {
      const lines = stdout.split('\n');
      const header = lines.findIndex((l) => l.includes('hello-world') && l.includes(' on '));
      return lines.slice(header + 1, header + 3);
    };
    const run = await quackd(['run', 'hello-world', '--robot', 'mine'], { env, timeoutMs: 120_000 });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(underHeader(run.stdout), [`warning: ${key}`, `warning: ${timing}`]);

    // The same run through a running service says the same.
    const serving = await startService({ env, pilot: () => Promise.resolve(createFakeProvider()) });
    try {
      const through = await quackd(['run', 'hello-world', '--robot', 'mine'], { env, timeoutMs: 120_000 });
      assert.equal(through.code, 0, through.stdout + through.stderr);
      assert.deepEqual(underHeader(through.stdout), [`warning: ${key}`, `warning: ${timing}`]);
    } finally {
      await serving.stop('the test');
    }
  });
});
