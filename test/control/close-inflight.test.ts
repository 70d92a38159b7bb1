/**
 * A loop closed while its policy is computing ends its worker without taking the process down.
 * onnxruntime-node aborts the whole process (`terminate called after throwing an instance of
 * 'Napi::Error'`) when a thread ends with one of its calls (a session being made, a run) still
 * on the libuv pool; a loop's close stops the tick without waiting for the skill's promise, so
 * it must wait for the runtime itself. Seen once in CI (a MuJoCo body closed while its stand
 * policy ran); here a policy that takes milliseconds to run makes it every time. And a plant
 * whose close takes time (a port, its lock, a last torque-off) is waited for before the worker ends.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { policySkill } from '../../src/control/skills/specs.js';
import { OBS_LEN } from '../../src/policy/layouts.js';
import { GraphBuilder, zeros } from '../../src/policy/make/onnx-graph.js';
import { MICRODUCK_ACTIONS } from '../../src/policy/microduck.js';
import { policyFolder } from '../policy/policy-folders.js';
import { sleep, startRig } from './rig.js';

const WIDTH = 256;
const LAYERS = 60;

/** Actions of zero after LAYERS products with one WIDTH × WIDTH matrix: a few ms a run, on the pool. */
function slowPolicy(): string {
  const g = new GraphBuilder('obs', OBS_LEN['microduck-51']);
  let x = g.pick(Array.from({ length: WIDTH }, (_, i) => [[i % OBS_LEN['microduck-51'], 0.01]] as const));
  const w = g.matrix('w', Array.from({ length: WIDTH }, (_, r) => Array.from({ length: WIDTH }, (_, c) => (r === c ? 1 : 0))));
  for (let i = 0; i < LAYERS; i++) x = g.op('MatMul', [x, w]);
  const out = g.op('Mul', [g.matmul(x, zeros(WIDTH, MICRODUCK_ACTIONS)), g.scalar('zero', 0)]);
  const onnx = g.model({ output: out, outputName: 'actions', outputWidth: MICRODUCK_ACTIONS, name: 'slow', doc: 'slow on purpose', metadata: {} });
  return policyFolder(onnx, { obs_len: 51, action_scale: 1, home: new Array<number>(MICRODUCK_ACTIONS).fill(0) });
}

describe('closing a loop whose policy is computing', () => {
  it('ends the worker, ten times over, and the process lives on', async (t) => {
    const dir = slowPolicy();
    for (let i = 0; i < 10; i++) {
      const rig = await startRig(t, { joints: MICRODUCK_ACTIONS }, { mode: 'lockstep' });
      const verb = rig.loop.run(policySkill(dir, { vx: 0, vy: 0, vyaw: 0 }, { kind: 'duration' }, 60_000));
      await sleep(30 + (i % 5) * 7);
      await rig.loop.close();
      assert.equal((await verb).outcome, 'stopped');
    }
  });
});

describe('closing a loop whose plant takes time to let go', () => {
  it('waits for the plant: its close has finished (the port let go of) when the loop says closed', async (t) => {
    // A port's close (the lock, a last torque-off) cut short by the worker's end left the port
    // locked to the process, and a service's next open of the robot was refused (seen under load).
    const rig = await startRig(t, { joints: 3, closeMs: 150 }, { mode: 'lockstep' });
    const at = performance.now();
    const log = await rig.log();
    assert.ok(performance.now() - at >= 140, 'the close waited for the plant');
    assert.equal(log.finalPos.length, 3, 'the plant wrote its log as its close ended');
  });
});
