/**
 * The kinematic robots of the lookout room (xlerobot:sim, alohamini:sim, toddlerbot:sim): the
 * Body contract on each; each performs its own verbs only (a wheeled base drives, ToddlerBot
 * walks, AlohaMini's camera has no head to turn); what a camera sees depends on how high it is
 * and where it points; moves stop at things; reports are checked against the room.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALOHAMINI } from '../../src/bodies/alohamini/sim/profile.js';
import { SOFA, discHitsRect, discInRoom, dist } from '../../src/bodies/microduck/sim2d/arena.js';
import { LOOKOUT_METRICS } from '../../src/bodies/room/lookout-room.js';
import { roomForSeed, SOFA_THING, type Thing } from '../../src/bodies/room/room.js';
import { createRoverBody, RoverBody } from '../../src/bodies/room/rover-body.js';
import type { RoverProfile } from '../../src/bodies/room/rover-profile.js';
import { TODDLERBOT } from '../../src/bodies/toddlerbot/sim/profile.js';
import { XLEROBOT } from '../../src/bodies/xlerobot/sim/profile.js';
import { bodyContract } from '../contract/body.contract.js';

const PROFILES = [XLEROBOT, ALOHAMINI, TODDLERBOT];

for (const p of PROFILES) {
  bodyContract(p.key, () => Promise.resolve(createRoverBody(p, { seed: 7 })), { safeVerb: { verb: 'look_around', args: {} }, measures: LOOKOUT_METRICS });
}

const thing = (name: string, x: number, y: number, height: number, radius = 0.2): Thing => ({ name, at: { x, y }, radius, height, char: name[0]!.toUpperCase() });

function rover(p: RoverProfile, at: { x: number; y: number; headingDeg: number }, things: readonly Thing[]): RoverBody {
  return new RoverBody(p, { robot: { x: at.x, y: at.y, heading: (at.headingDeg * Math.PI) / 180 }, things });
}

const seen = (data: Readonly<Record<string, unknown>> | undefined): string[] => ((data?.['sightings'] ?? []) as { thing: string }[]).map((s) => s.thing).sort();

describe('each rover performs its own verbs', () => {
  it('a wheeled base drives, legs walk, and a verb the body lacks is ok:false naming it', async () => {
    const things = [thing('lamp', 4, 1, 1.5)];
    const xle = rover(XLEROBOT, { x: 1, y: 1, headingDeg: 0 }, things);
    assert.match((await xle.perform({ verb: 'drive', args: { metres: 0.5 } })).summary, /^drove 0\.50 m; camera: lamp straight ahead, 2\.50 m$/);
    assert.deepEqual(await xle.perform({ verb: 'walk', args: { metres: 0.5 } }), { ok: false, summary: 'walk is not a verb of xlerobot:sim' });
    const toddler = rover(TODDLERBOT, { x: 1, y: 1, headingDeg: 0 }, things);
    assert.match((await toddler.perform({ verb: 'walk', args: { metres: 0.5 } })).summary, /^walked 0\.50 m;/);
    assert.equal((await toddler.perform({ verb: 'drive', args: { metres: 0.5 } })).ok, false);
    const aloha = rover(ALOHAMINI, { x: 1, y: 1, headingDeg: 0 }, things);
    assert.deepEqual(await aloha.perform({ verb: 'look', args: { yaw: 30 } }), { ok: false, summary: 'look is not a verb of alohamini:sim' });
  });

  it("quack is each body's own: grippers where there is no speaker", async () => {
    const quacks = await Promise.all(PROFILES.map(async (p) => (await createRoverBody(p, { seed: 1 }).perform({ verb: 'quack', args: {} })).summary));
    assert.deepEqual(quacks, ['clapped its grippers: clack-clack (it has no speaker)', 'snapped both grippers twice: snap-snap (it has no speaker)', 'quack! (from its speaker, with a wave)']);
  });

  it('a move stops at a thing on the floor, and the result names it', async () => {
    const body = rover(XLEROBOT, { x: 1, y: 1, headingDeg: 0 }, [thing('chair', 2, 1, 0.9, 0.25)]);
    const result = await body.perform({ verb: 'drive', args: { metres: 2 } });
    assert.equal(result.ok, false);
    assert.match(result.summary, /^stopped after 0\.(49|50) m: blocked by the chair; camera: chair straight ahead, 0\.5\d m$/);
    assert.equal(result.data?.['blocked_by'], 'chair');
  });
});

describe('what a rover camera sees', () => {
  it('a high camera misses the ball at its feet until it looks down', async () => {
    const body = rover(XLEROBOT, { x: 1, y: 1, headingDeg: 0 }, [thing('ball', 2, 1, 0.12, 0.06)]);
    assert.equal((await body.observe()).summary, 'camera: nothing in view');
    const down = await body.perform({ verb: 'look', args: { yaw: 0, pitch: 40 } });
    assert.match(down.summary, /^looking straight ahead, 40° down; camera: ball straight ahead, 1\.00 m$/);
  });

  it("the sofa's back hides a plant behind it from ToddlerBot's low camera, not from XLeRobot's", async () => {
    // Below the sofa, facing it: the plant stands just beyond its far side.
    const things = [SOFA_THING, thing('plant', 3.6, 3.8, 0.9)];
    const at = { x: 3.6, y: 0.5, headingDeg: 90 };
    assert.deepEqual(seen((await rover(XLEROBOT, at, things).observe()).data), ['plant', 'sofa']);
    assert.deepEqual(seen((await rover(TODDLERBOT, at, things).observe()).data), ['sofa']);
  });

  it('look turns the head within its reach, clamps beyond it and says so', async () => {
    const body = rover(XLEROBOT, { x: 1, y: 1, headingDeg: 0 }, [thing('plant', 1, 3, 0.9)]);
    const result = await body.perform({ verb: 'look', args: { yaw: 120, roll: 10 } });
    assert.match(result.summary, /^looking 90° left, level; camera: plant 90° left, 2\.00 m — clamped: yaw 120° held at 90° \(the head turns 90° either way\); roll 10° held at 0° \(this head does not roll\)$/);
  });

  it('look_around sees all round, ends facing where it began, and what it lists is what a report holds', async () => {
    const things = [SOFA_THING, thing('lamp', 4, 1, 1.5), thing('box', 0.3, 1, 0.3), thing('plant', 1.5, 2.5, 0.9)];
    const body = rover(ALOHAMINI, { x: 1.5, y: 1, headingDeg: 0 }, things);
    const before = JSON.stringify(body.frame().state);
    const scan = await body.perform({ verb: 'look_around', args: {} });
    assert.deepEqual(seen(scan.data), ['box', 'lamp', 'plant', 'sofa']);
    assert.match(scan.summary, /box 180° left, 1\.20 m/);
    assert.equal(JSON.stringify(body.frame().state), before);
    const sightings = scan.data?.['sightings'] as { thing: string; bearing_deg: number; distance_m: number }[];
    const report = await body.perform({ verb: 'report', args: { sightings } });
    assert.equal(report.ok, true, report.summary);
    assert.deepEqual(body.metrics(), { objects_seen: 4, objects_reported: 4, objects_misreported: 0, quacks: 0 });
    // After a turn, the same words are wrong: a report is checked from where the robot faces now.
    await body.perform({ verb: 'turn', args: { degrees: 90 } });
    const stale = await body.perform({ verb: 'report', args: { sightings: sightings.slice(0, 1) } });
    assert.equal(stale.ok, false);
    assert.equal(body.metrics()['objects_misreported'], 1);
  });
});

describe('the lookout room', () => {
  it('every seed lays things out inside the room, clear of the sofa, the robot and each other', () => {
    for (const p of PROFILES) {
      for (let seed = 0; seed < 60; seed++) {
        const { robot, things } = roomForSeed(seed, p.radius);
        assert.ok(discInRoom(robot, p.radius) && !discHitsRect(robot, p.radius, SOFA), `${p.key} seed ${seed}: robot`);
        const loose = things.filter((t) => t !== SOFA_THING);
        assert.equal(loose.length, 5);
        for (const [i, t] of loose.entries()) {
          assert.ok(discInRoom(t.at, t.radius) && !discHitsRect(t.at, t.radius, SOFA), `${p.key} seed ${seed}: ${t.name}`);
          assert.ok(dist(t.at, robot) > p.radius + t.radius, `${p.key} seed ${seed}: ${t.name} on the robot`);
          for (const u of loose.slice(i + 1)) assert.ok(dist(t.at, u.at) > t.radius + u.radius, `${p.key} seed ${seed}: ${t.name} on ${u.name}`);
        }
      }
    }
  });

  it('is the seed\'s: the same seed, the same room', () => {
    const state = (seed: number) => JSON.stringify(createRoverBody(XLEROBOT, { seed }).frame().state);
    assert.equal(state(42), state(42));
    assert.notEqual(state(42), state(43));
  });
});
