/**
 * reachy-mini:mock: the Body contract; the published limits held (pitch and roll ±40°, body yaw
 * ±160°, at most 65° between head yaw and body yaw), a target beyond them clamped and said so;
 * a camera that says what it looks at; a sweep that sees all round and puts the head back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Intent } from '../../src/bodies/body.js';
import { createReachyMiniBody, ReachyMiniBody } from '../../src/bodies/reachy-mini/mock/reachy-body.js';
import { LOOKOUT_METRICS } from '../../src/bodies/room/lookout-room.js';
import type { Thing } from '../../src/bodies/room/room.js';
import { bodyContract } from '../contract/body.contract.js';

bodyContract('reachy-mini:mock', () => Promise.resolve(createReachyMiniBody({ seed: 7 })), { safeVerb: { verb: 'quack', args: {} }, measures: LOOKOUT_METRICS });

/** Reachy Mini's published limits, written out here so the body's own table cannot move them. */
const LIMITS = { pitch: 40, roll: 40, yaw: 180, bodyYaw: 160, yawDelta: 65 };

const lamp: Thing = { name: 'lamp', at: { x: 3, y: 1 }, radius: 0.15, height: 1.5, char: 'L' };
const plant: Thing = { name: 'plant', at: { x: 1, y: 3 }, radius: 0.2, height: 0.9, char: 'P' };
const chair: Thing = { name: 'chair', at: { x: 0.4, y: 1 }, radius: 0.25, height: 0.9, char: 'C' };

/** Reachy at (1, 1) facing +x: the lamp 2 m straight ahead, the plant 2 m to its left, the chair behind (the sofa's outline is there, unlisted). */
function reachy(): ReachyMiniBody {
  return new ReachyMiniBody({ robot: { x: 1, y: 1, heading: 0 }, things: [lamp, plant, chair] });
}

type Pose = { yaw_deg: number; pitch_deg: number; roll_deg: number };
const poseOf = (body: ReachyMiniBody) => {
  const state = body.frame().state;
  return { head: state['head'] as Pose, body: state['body_yaw_deg'] as number };
};

describe('reachy-mini:mock limits', () => {
  it('clamps pitch and roll to ±40° and says so in the result', async () => {
    const body = reachy();
    const result = await body.perform({ verb: 'look', args: { yaw: 0, pitch: 60, roll: -55 } });
    assert.equal(result.ok, true);
    assert.deepEqual(poseOf(body).head, { yaw_deg: 0, pitch_deg: 40, roll_deg: -40 });
    assert.match(result.summary, /clamped: pitch 60° held at 40° \(the head's limit is ±40°\); roll -55° held at -40° \(the head's limit is ±40°\)$/);
    assert.equal(result.data?.['clamped'], true);
  });

  it('holds the head within 65° of the body, and says to turn the body first', async () => {
    const body = reachy();
    const far = await body.perform({ verb: 'look', args: { yaw: 120 } });
    assert.equal(poseOf(body).head.yaw_deg, 65);
    assert.match(far.summary, /clamped: yaw 120° held at 65° \(at most 65° from the body at 0°; turn_body first\)/);
    const turned = await body.perform({ verb: 'turn_body', args: { yaw: 90 } });
    assert.doesNotMatch(turned.summary, /clamped/);
    const near = await body.perform({ verb: 'look', args: { yaw: 120 } });
    assert.equal(poseOf(body).head.yaw_deg, 120);
    assert.doesNotMatch(near.summary, /clamped/);
    assert.equal(near.data?.['clamped'], false);
  });

  it('clamps the body to ±160° and carries the head along rather than leave it 65° behind', async () => {
    const body = reachy();
    const result = await body.perform({ verb: 'turn_body', args: { yaw: 175 } });
    assert.deepEqual(poseOf(body), { head: { yaw_deg: 95, pitch_deg: 0, roll_deg: 0 }, body: 160 });
    assert.match(result.summary, /clamped: body yaw 175° held at 160° \(the body's limit is ±160°\); head carried from 0° to 95° \(at most 65° from the body\)$/);
    // Head yaw reaches its own ±180° only with the body turned towards it.
    await body.perform({ verb: 'look', args: { yaw: 180 } });
    assert.equal(poseOf(body).head.yaw_deg, 180);
  });

  it('no sequence of looks and body turns ever leaves the published limits', async () => {
    const angle = (max: number) => fc.double({ min: -max, max, noNaN: true });
    const move = fc.oneof(
      fc.record({ yaw: angle(180), pitch: angle(90), roll: angle(90) }).map((args): Intent => ({ verb: 'look', args })),
      angle(180).map((yaw): Intent => ({ verb: 'turn_body', args: { yaw } })),
      fc.constant<Intent>({ verb: 'look_around', args: {} }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(move, { maxLength: 12 }), async (moves) => {
        const body = reachy();
        for (const m of moves) {
          const result = await body.perform(m);
          assert.equal(result.ok, true, result.summary);
          const { head, body: yaw } = poseOf(body);
          assert.ok(Math.abs(head.pitch_deg) <= LIMITS.pitch && Math.abs(head.roll_deg) <= LIMITS.roll, JSON.stringify(head));
          assert.ok(Math.abs(head.yaw_deg) <= LIMITS.yaw && Math.abs(yaw) <= LIMITS.bodyYaw, `head ${head.yaw_deg}, body ${yaw}`);
          assert.ok(Math.abs(head.yaw_deg - yaw) <= LIMITS.yawDelta + 1e-9, `head ${head.yaw_deg}, body ${yaw}`);
        }
      }),
      { numRuns: 200, seed: 13 },
    );
  });
});

describe('reachy-mini:mock camera', () => {
  it('says what it looks at, with bearings from the base', async () => {
    const body = reachy();
    assert.equal((await body.observe()).summary, 'camera: lamp straight ahead, 2.00 m');
    const left = await body.perform({ verb: 'look', args: { yaw: 60 } });
    assert.match(left.summary, /^head 60° left, level; camera: plant 90° left, 2\.00 m$/);
    assert.deepEqual(left.data?.['sightings'], [{ thing: 'plant', bearing_deg: 90, distance_m: 2 }]);
  });

  it('sees the floor near it only when it looks down', async () => {
    // The lens is a metre up: a ball 0.8 m away is below a level view.
    const ball: Thing = { name: 'ball', at: { x: 1.8, y: 1 }, radius: 0.06, height: 0.12, char: 'o' };
    const body = new ReachyMiniBody({ robot: { x: 1, y: 1, heading: 0 }, things: [ball] });
    assert.doesNotMatch((await body.observe()).summary, /ball/);
    const down = await body.perform({ verb: 'look', args: { yaw: 0, pitch: 30 } });
    assert.match(down.summary, /head straight ahead, 30° down; camera: ball straight ahead, 0\.80 m/);
  });

  it('look_around sees all round, behind it too, and puts head and body back', async () => {
    const body = reachy();
    await body.perform({ verb: 'look', args: { yaw: 20, pitch: 5 } });
    const before = JSON.stringify(body.frame().state);
    const result = await body.perform({ verb: 'look_around', args: {} });
    const seen = (result.data?.['sightings'] as { thing: string }[]).map((s) => s.thing);
    assert.deepEqual(seen.sort(), ['chair', 'lamp', 'plant']);
    assert.match(result.summary, /chair 180° left, 0\.60 m/);
    assert.equal(JSON.stringify(body.frame().state), before);
  });

  it('antennas move, and quack wiggles them (it has no quack of its own)', async () => {
    const body = reachy();
    await body.perform({ verb: 'antennas', args: { left: 30, right: -30 } });
    const quack = await body.perform({ verb: 'quack', args: {} });
    assert.equal(quack.summary, 'wiggled its antennas: quack!');
    assert.deepEqual(body.frame().state['antennas'], { left_deg: 30, right_deg: -30 });
    assert.equal(body.metrics()['quacks'], 1);
  });

  it('a report is checked against the room: true sightings count, wrong ones are counted apart', async () => {
    const body = reachy();
    const good = await body.perform({ verb: 'report', args: { sightings: [{ thing: 'lamp', bearing_deg: 3, distance_m: 2.1 }] } });
    assert.equal(good.ok, true, good.summary);
    const bad = await body.perform({
      verb: 'report',
      args: { sightings: [{ thing: 'Plant', bearing_deg: -90, distance_m: 2 }, { thing: 'unicorn', bearing_deg: 0, distance_m: 1 }] },
    });
    assert.equal(bad.ok, false);
    assert.equal(bad.summary, '0 of 2 sightings hold; plant is not 90° right, 2.00 m; no unicorn in this room');
    // It never looked: what it reported rightly is counted, and nothing was seen.
    assert.deepEqual(body.metrics(), { objects_seen: 0, objects_reported: 1, objects_misreported: 2, quacks: 0 });
  });

  it('the room is the seed\'s: the same seed, the same room; another seed, another', () => {
    const state = (seed: number) => JSON.stringify(createReachyMiniBody({ seed }).frame().state);
    assert.equal(state(3), state(3));
    assert.notEqual(state(3), state(4));
  });
});
