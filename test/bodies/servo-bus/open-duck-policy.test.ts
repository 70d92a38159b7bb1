/**
 * An Open Duck Mini v2 walk policy (layout open-duck-mini-v2) in a feetech duck, run as a user runs
 * it: `quackd policy list` shows the slot taking it, and `quackd do walk` runs it with its trunk read
 * through the simulated BNO055's registers from the twin's accelerometer. The policy is a probe:
 * head_yaw's action is 0.04 × the accelerometer's z (its observation index 5) and every other action
 * is 0, so the goal the twin's head_yaw servo was sent says what the policy observed: 9.81 m/s² up
 * gives home + 0.25 × 0.04 × 9.81 = home + 0.098 rad. Every other joint holds the twin's stance.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HOME_POSE } from '../../../src/bodies/microduck/mujoco/duck-spec.js';
import { GraphBuilder } from '../../../src/policy/make/onnx-graph.js';
import { J, MICRODUCK_ACTIONS } from '../../../src/policy/microduck.js';
import { quackd } from '../../helpers/quackd.js';
import { ServoTwinProcess } from '../../helpers/servo-twin-process.js';
import { tempDir } from '../../helpers/tmp.js';
import { policyFolder } from '../../policy/policy-folders.js';

const ACCEL_Z = 5;
const GAIN = 0.04;

/** `home`: the stance in its manifest; 'reference': none, so the reference's own. */
function probe(home: readonly number[] | 'reference'): string {
  const g = new GraphBuilder('obs', 101);
  const picks = Array.from({ length: MICRODUCK_ACTIONS }, (_, i): [number, number][] => (i === J.head_yaw ? [[ACCEL_Z, GAIN]] : []));
  const onnx = g.model({ output: g.pick(picks, 'probe'), outputName: 'actions', outputWidth: MICRODUCK_ACTIONS, name: 'probe', doc: 'observes', metadata: {} });
  // Timed by its nominal speed (a bus duck has no odometry): 0.2 m in 1 s.
  return policyFolder(onnx, { obs_len: 101, slot: 'walk', ...(home !== 'reference' ? { home } : {}), command: { phase_steps: 36, nominal: { vx: 0.2 }, made_good: { vx: 1 } } });
}

describe('an Open Duck Mini v2 walk policy in microduck:feetech', () => {
  let twin: ServoTwinProcess;
  // Made here, not in before(): a folder's removal registered inside a hook runs when the hook ends.
  const home = tempDir('quackd-open-duck-policy-');
  const walk = probe(HOME_POSE);
  // Without a home: the reference's own stance, knees at +1.37 rad.
  const reference = probe('reference');
  // The twin's stance with the head turned 0.6 rad: another stance than the bundled stand's, on a joint that does not tip the duck.
  const HEAD_TURNED = 0.6;
  const turned = probe(HOME_POSE.map((v, i) => (i === J.head_yaw ? v + HEAD_TURNED : v)));
  before(async () => {
    twin = await ServoTwinProcess.start({ protocol: 'feetech' });
    writeFileSync(
      join(home, 'config.yaml'),
      `robots:\n  duck: { body: microduck:feetech, port: ${JSON.stringify(twin.port)}, sim_imu: ${JSON.stringify(twin.imuPath)}, imu: {}, bus_timeout_ms: 100, policies: { walk: ${JSON.stringify(walk)} } }\n` +
        `  turned: { body: microduck:feetech, port: ${JSON.stringify(twin.port)}, sim_imu: ${JSON.stringify(twin.imuPath)}, imu: {}, bus_timeout_ms: 100, policies: { walk: ${JSON.stringify(turned)} } }\n` +
        `  odm: { body: microduck:feetech, port: ${JSON.stringify(twin.port)}, sim_imu: ${JSON.stringify(twin.imuPath)}, imu: {}, bus_timeout_ms: 100, policies: { walk: ${JSON.stringify(reference)} } }\n`,
    );
  });
  after(async () => {
    await twin?.close();
  });

  it('policy list shows the walk slot taking the reference layout', async () => {
    const r = await quackd(['policy', 'list', '--robot', 'duck'], { env: { QUACKD_HOME: home } });
    assert.match(r.stdout, /walk .*\n +OK open-duck-mini-v2 101→14 · walk/, r.stdout + r.stderr);
  });

  it('a walk in the reference stance beside the bundled Microduck policies: every other slot is warned about, naming the knee', async () => {
    const r = await quackd(['policy', 'list', '--robot', 'odm'], { env: { QUACKD_HOME: home } });
    const warned = r.stdout.split('\n').filter((l) => l.includes("warning: stands in another stance than the walk: left_knee at -1.20 rad against the walk's +1.37 (4 joints over 0.5 rad apart)"));
    assert.equal(warned.length, 4, r.stdout);
    const health = await quackd(['health', '--robot', 'odm'], { env: { QUACKD_HOME: home } });
    assert.match(health.stdout, /turn, stand, kick_left, kick_right: stands in another stance than the walk/, health.stdout);
  });

  it('a turn whose policy stands in another stance than the walk is refused in one line, and no goal moves', async () => {
    const before = await twin.goalWrites();
    const r = await quackd(['do', 'turn', '30', '--yes', '--robot', 'odm'], { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /turn: the turn policy stands in another stance than the walk's \(left_knee at -1\.20 rad against the walk's \+1\.37 \(4 joints over 0\.5 rad apart\)\): it would move the duck from one to the other; give the turn slot a policy of the walk's robot \(quackd policy load turn DIR\)/, r.stdout + r.stderr);
    // Refused before torque went on: not one goal was written.
    assert.equal(await twin.goalWrites(), before);
  });

  it("do walk runs it on the accelerometer the BNO055's registers carry from the twin", async () => {
    const r = await quackd(['do', 'walk', '0.2', '--yes', '--robot', 'duck'], { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // What each goal the policy gave says it saw (the stance's goals, before and after the walk, aside).
    // The bus writes goals only when the targets change, and this policy's change only with the
    // trunk's reading, which a duck whose targets stand still reads every 100 ms: a handful a second.
    const seen = (await twin.goalsOf(J.head_yaw)).map((goal) => (goal - (HOME_POSE[J.head_yaw] ?? 0)) / (0.25 * GAIN)).filter((z) => z > 5);
    assert.ok(seen.length >= 3, `${seen.length} of head_yaw's goals came from the policy`);
    const median = [...seen].sort((a, b) => a - b)[Math.floor(seen.length / 2)] ?? Number.NaN;
    assert.ok(Math.abs(median - 9.81) < 0.3, `head_yaw's goals say the policy observed an accelerometer z of ${median.toFixed(2)} m/s² (median; 9.81 standing still)`);
  });

  it("a walk whose stance is not the stand's settles on its own stance, not the stand's", async () => {
    const r = await quackd(['do', 'walk', '0.2', '--yes', '--robot', 'turned'], { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const last = (await twin.goalsOf(J.head_yaw)).at(-1) ?? Number.NaN;
    // The walk at a zero command, eased to its home: the head turned. The bundled stand would have turned it back to its own.
    assert.ok(Math.abs(last - ((HOME_POSE[J.head_yaw] ?? 0) + HEAD_TURNED)) < 0.02, `head_yaw's last goal: ${last.toFixed(3)} rad`);
  });
});
