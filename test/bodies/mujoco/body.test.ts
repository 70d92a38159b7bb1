/**
 * microduck:mujoco as a run sees it: the body contract, a start that moves nothing, verbs that end
 * in the twin, a refused policy folder said in one line, and the policy slots from the CLI.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createMujocoBody } from '../../../src/bodies/microduck/mujoco/mujoco-body.js';
import { layoutForSeed } from '../../../src/bodies/microduck/sim2d/sim2d-body.js';
import { trialLayout } from '../../../src/policy/make/twin-trials.js';
import { bundledPolicyDir } from '../../../src/policy/bundled.js';
import { bodyContract } from '../../contract/body.contract.js';
import { quackd } from '../../helpers/quackd.js';
import { tempDir } from '../../helpers/tmp.js';

bodyContract('microduck:mujoco', () => createMujocoBody({ seed: 7 }), { safeVerb: { verb: 'quack', args: {} }, measures: ['ball_displaced_m', 'quacks', 'tilt_deg', 'walked_m'] });

/** A copy of the bundled walk whose manifest claims 61 inputs: a folder a run must refuse. */
/** The bundled walk with `change` made to its manifest. */
function changedWalk(name: string, change: (manifest: Record<string, unknown>) => Record<string, unknown>): string {
  const dir = join(tempDir('quackd-policy-'), name);
  cpSync(bundledPolicyDir('walk'), dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(change(manifest)));
  return dir;
}

const wrongWalk = (): string => changedWalk('walk61', (m) => ({ ...m, obs_len: 61, obs_layout: 'microduck-61' }));
/** Trained at 30 Hz, by its manifest: quackd's loop would step it at 50. */
const slowWalk = (): string => changedWalk('walk30', (m) => ({ ...m, robot: { ...(m['robot'] as Record<string, unknown>), control_hz: 30 } }));

describe('microduck:mujoco', () => {
  it('opens standing where sim2d would put the duck for that seed, and opening moves nothing', async () => {
    const body = await createMujocoBody({ seed: 3 });
    try {
      const layout = layoutForSeed(3);
      const duck = body.frame().state['duck'] as { x: number; y: number; tilt_deg: number };
      assert.ok(Math.abs(duck.x - layout.duck.x) < 0.02 && Math.abs(duck.y - layout.duck.y) < 0.02, JSON.stringify(duck));
      await body.observe();
      const again = body.frame().state['duck'];
      // Lock-step: no verb, no time; the twin is exactly where it was.
      assert.deepEqual(again, duck);
      assert.equal(body.metrics()['ball_displaced_m'], 0);
    } finally {
      await body.close();
    }
  });

  it('a stop asked before a verb starts moves nothing', async () => {
    const body = await createMujocoBody({ seed: 3 });
    try {
      const before = body.frame().state['duck'];
      const abort = new AbortController();
      abort.abort();
      const r = await body.perform({ verb: 'walk', args: { metres: 1 } }, abort.signal);
      assert.equal(r.ok, false);
      assert.match(r.summary, /stopped before it started/);
      await body.observe();
      assert.deepEqual(body.frame().state['duck'], before);
    } finally {
      await body.close();
    }
  });

  it('a policy folder the manifest contradicts fails the verb in one line, and the duck stays put', async () => {
    const dir = wrongWalk();
    const body = await createMujocoBody({ seed: 3, policies: { walk: dir } });
    try {
      const r = await body.perform({ verb: 'walk', args: { metres: 1 } });
      assert.equal(r.ok, false);
      assert.match(r.summary, /policy\.onnx takes 53 inputs but manifest\.json says obs_len 61/);
      assert.equal(r.summary.includes('\n'), false);
      assert.equal(body.metrics()['walked_m'], 0);
    } finally {
      await body.close();
    }
  });
});

describe('microduck:mujoco verbs, on open floor, by the bundled policies', () => {
  for (const seed of [1, 7, 42]) {
    it(`seed ${seed}: walk 1 m, turn 90° and back, upright; the twin's own pose ends each`, async () => {
      const body = await createMujocoBody({ seed }, trialLayout(seed));
      try {
        const walk = await body.perform({ verb: 'walk', args: { metres: 1 } });
        assert.equal(walk.ok, true, walk.summary);
        assert.ok(Number(walk.data?.['walked_m']) >= 0.95, walk.summary);
        for (const degrees of [90, -90]) {
          const turn = await body.perform({ verb: 'turn', args: { degrees } });
          assert.equal(turn.ok, true, turn.summary);
          assert.ok(Math.abs(Number(turn.data?.['turned_deg']) - degrees) <= 15, turn.summary);
        }
        assert.ok((body.metrics()['tilt_deg'] ?? 90) < 30);
      } finally {
        await body.close();
      }
    });
  }

  it('a walk into a wall stops short of it, upright, says so; the duck can turn there and walk away', async () => {
    // Facing the east wall (x = 5 m) from 0.8 m away; the ball well out of the way.
    const body = await createMujocoBody({ seed: 7 }, { duck: { x: 4.2, y: 2, heading: 0 }, ball: { x: 1, y: 1 } });
    try {
      const walk = await body.perform({ verb: 'walk', args: { metres: 1.5 } });
      assert.equal(walk.ok, false, walk.summary);
      assert.match(walk.summary, /^stopped after 0\.\d\d m: blocked by the wall; /);
      assert.equal(walk.data?.['blocked_by'], 'wall');
      const duck = body.frame().state['duck'] as { x: number; tilt_deg: number };
      assert.ok(duck.x > 4.6 && duck.x < 4.9, JSON.stringify(duck));
      assert.ok(duck.tilt_deg < 30, JSON.stringify(duck));
      const again = await body.perform({ verb: 'walk', args: { metres: 0.5 } });
      assert.equal(again.data?.['blocked_by'], 'wall', again.summary);
      const turn = await body.perform({ verb: 'turn', args: { degrees: 180 } });
      assert.ok(Math.abs(Math.abs(Number(turn.data?.['turned_deg'])) - 180) <= 15, turn.summary);
      const away = await body.perform({ verb: 'walk', args: { metres: 0.5 } });
      assert.equal(away.ok, true, away.summary);
      assert.ok((body.metrics()['tilt_deg'] ?? 90) < 30);
    } finally {
      await body.close();
    }
  });

  it('at pace realtime a walk or a turn leaves the duck on both feet, so it stands while the pilot thinks', async () => {
    const body = await createMujocoBody({ seed: 7, settings: { pace: 'realtime' } });
    try {
      for (const intent of [{ verb: 'turn', args: { degrees: 60 } }, { verb: 'walk', args: { metres: 0.3 } }] as const) {
        const r = await body.perform(intent);
        assert.equal(r.ok, true, r.summary);
        // A pilot's think: the twin's time runs on with nobody asking for anything.
        await new Promise((done) => setTimeout(done, 700));
        await body.observe();
        assert.ok((body.metrics()['tilt_deg'] ?? 90) < 10, `${intent.verb}: tilt ${String(body.metrics()['tilt_deg'])}° after a pause`);
      }
    } finally {
      await body.close();
    }
  });

  it('kick left moves a ball in front of the left foot, and success_when can measure it', async () => {
    const body = await createMujocoBody({ seed: 7 }, trialLayout(7, { forward: 0.12, left: 0.06 }));
    try {
      const kick = await body.perform({ verb: 'kick', args: { foot: 'left' } });
      assert.equal(kick.ok, true, kick.summary);
      assert.ok(Number(kick.data?.['ball_moved_m']) >= 0.2, kick.summary);
      assert.ok((body.metrics()['ball_displaced_m'] ?? 0) >= 0.2);
    } finally {
      await body.close();
    }
  });

  it('a kick with no ball in reach misses and says so', async () => {
    const body = await createMujocoBody({ seed: 7 }, trialLayout(7));
    try {
      const kick = await body.perform({ verb: 'kick', args: { foot: 'right' } });
      assert.equal(kick.ok, false);
      assert.match(kick.summary, /missed, the ball did not move/);
    } finally {
      await body.close();
    }
  });
});

describe('quackd policy', () => {
  it('lists the bundled slots, swaps one between runs, refuses a folder that does not fit', async () => {
    const env = { QUACKD_HOME: tempDir('quackd-home-') };
    // Four bodies run policies (the twin and the real ducks): without a fleet, name one.
    const which = await quackd(['policy', 'list'], { env });
    assert.equal(which.code, 2);
    assert.match(which.stderr, /^quackd: policy: name the robot \(--robot\): microduck:mujoco, microduck:jsonrpc, microduck:feetech, microduck:dynamixel$/m);
    // A fleet with one robot that runs policies (a Pi with its duck configured): that one, unnamed.
    const duckHome = tempDir('quackd-home-');
    writeFileSync(join(duckHome, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\n  odm: { body: microduck:feetech, port: /dev/ttyUSB0 }\n');
    const mine1 = await quackd(['policy', 'list', '--json'], { env: { QUACKD_HOME: duckHome } });
    assert.equal(mine1.code, 0, mine1.stderr);
    assert.equal((JSON.parse(mine1.stdout) as unknown[]).length, 5);
    const shown = await quackd(['policy', 'list'], { env: { QUACKD_HOME: duckHome } });
    assert.match(shown.stdout, /^odm \(microduck:feetech\)\n {2}walk /);
    const list = await quackd(['policy', 'list', '--json', '--robot', 'microduck:mujoco'], { env });
    assert.equal(list.code, 0, list.stderr);
    const rows = JSON.parse(list.stdout) as { slot: string; from: string; ok: boolean; runtime?: string }[];
    assert.deepEqual(rows.map((r) => [r.slot, r.from, r.ok]), [['walk', 'bundled', true], ['turn', 'bundled', true], ['stand', 'bundled', true], ['kick_left', 'bundled', true], ['kick_right', 'bundled', true]]);
    assert.equal(rows[0]?.runtime, 'onnxruntime-node');

    const kick = await quackd(['policy', 'load', 'walk', bundledPolicyDir('kick_left'), '--robot', 'microduck:mujoco'], { env });
    assert.equal(kick.code, 2);
    assert.match(kick.stderr, /is a kick_left policy \(manifest\.json slot\), not walk/);
    const wrong = await quackd(['policy', 'load', 'walk', wrongWalk(), '--robot', 'microduck:mujoco'], { env });
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /takes 53 inputs but manifest\.json says obs_len 61/);
    const slow = await quackd(['policy', 'load', 'walk', slowWalk(), '--robot', 'microduck:mujoco'], { env });
    assert.equal(slow.code, 2, slow.stdout);
    assert.match(slow.stderr, /^quackd: .*walk30\/manifest\.json: robot\.control_hz is 30 but quackd's control loop runs a microduck at 50 Hz: a policy runs at the rate it was trained at/m);

    const mine = join(tempDir('quackd-policy-'), 'my-walk');
    cpSync(bundledPolicyDir('walk'), mine, { recursive: true });
    const load = await quackd(['policy', 'load', 'walk', mine, '--robot', 'microduck:mujoco'], { env });
    assert.equal(load.code, 0, load.stderr);
    assert.match(load.stdout, /^microduck:mujoco walk: .*my-walk \(policy load\); its next run uses it$/m);
    const after = JSON.parse((await quackd(['policy', 'list', '--json', '--robot', 'microduck:mujoco'], { env })).stdout) as { slot: string; from: string; dir: string }[];
    assert.deepEqual(after[0], { ...after[0], from: 'policy load', dir: mine });
    const back = await quackd(['policy', 'load', 'walk', '--default', '--robot', 'microduck:mujoco'], { env });
    assert.match(back.stdout, /walk: .* \(bundled\)/);
    const typo = await quackd(['policy', 'load', 'wlak', mine, '--robot', 'microduck:mujoco'], { env });
    assert.match(typo.stderr, /unknown slot "wlak" \(did you mean "walk"\?\)/);
  });

  it('a duck that falls ends the run as a failure, saying so, instead of spending its budget (servos too weak to hold it: kp 0.1)', async () => {
    const home = tempDir('quackd-home-');
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  weak:\n    body: microduck:mujoco\n    kp: 0.1\n');
    const r = await quackd(['run', 'find-and-kick', '--robot', 'weak', '--seed', '7'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /failed — fell/);
    assert.match(r.stdout, /^FAIL failure — I fell: /m);
  });

  it('a run on the twin keeps its own memory, apart from sim2d', async () => {
    const env = { QUACKD_HOME: tempDir('quackd-home-') };
    const r = await quackd(['run', 'hello-world', '--robot', 'microduck:mujoco'], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^hello-world on microduck:mujoco/m);
    const twin = await quackd(['memory', 'show', '--robot', 'microduck:mujoco', '--raw'], { env });
    assert.match(twin.stdout, /hello-world/);
    const flat = await quackd(['memory', 'show', '--robot', 'microduck:sim2d', '--raw'], { env });
    assert.equal(flat.stdout.trim(), '');
  });
});
