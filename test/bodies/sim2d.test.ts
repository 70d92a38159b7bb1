import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BALL_RADIUS, cameraSeesBall, kickDistance, rad, SOFA, segmentHitsRect, sweepDisc, DUCK_RADIUS } from '../../src/bodies/microduck/sim2d/arena.js';
import { createSim2dBody, layoutForSeed, Sim2dBody } from '../../src/bodies/microduck/sim2d/sim2d-body.js';
import { EventBus } from '../../src/runtime/events.js';
import { bodyContract } from '../contract/body.contract.js';

bodyContract('microduck:sim2d', () => Promise.resolve(createSim2dBody({ seed: 7 })), { safeVerb: { verb: 'quack', args: {} }, measures: ['ball_displaced_m', 'quacks'] });

const at = (x: number, y: number, headingDeg = 0) => ({ x, y, heading: rad(headingDeg) });

describe('sim2d geometry', () => {
  it('walls stop a walk at the wall, less the duck radius', async () => {
    const body = new Sim2dBody({ duck: at(4.0, 1.0, 0), ball: { x: 1, y: 3.5 } });
    const result = await body.perform({ verb: 'walk', args: { metres: 3 } });
    assert.equal(result.ok, false);
    assert.match(result.summary, /^stopped after 0\.9\d m: blocked by the wall/);
    const duck = body.frame().state['duck'] as { x: number };
    assert.ok(duck.x <= 5 - DUCK_RADIUS + 1e-9 && duck.x > 4.85, `duck at x=${duck.x}`);
  });

  it('the sofa stops a walk', async () => {
    // Below the sofa, facing up (+y) into it.
    const body = new Sim2dBody({ duck: at(3.5, 2.0, 90), ball: { x: 0.5, y: 0.5 } });
    const result = await body.perform({ verb: 'walk', args: { metres: 2 } });
    assert.match(result.summary, /blocked by the sofa/);
    const duck = body.frame().state['duck'] as { y: number };
    assert.ok(duck.y < SOFA.y0 && duck.y > SOFA.y0 - DUCK_RADIUS - 0.02, `duck at y=${duck.y}`);
  });

  it('walking backwards works and a free walk goes the full distance', () => {
    const moved = sweepDisc({ x: 2, y: 1 }, 0, -0.5, DUCK_RADIUS);
    assert.equal(moved.blockedBy, undefined);
    assert.ok(Math.abs(moved.to.x - 1.5) < 1e-9);
  });

  it('the sofa hides a ball behind it; the same ball is seen from the side', () => {
    const ball = { x: 3.6, y: 3.8 };
    // Straight below the sofa, looking up through it.
    assert.equal(cameraSeesBall(at(3.6, 1.5, 90), ball), undefined);
    assert.ok(segmentHitsRect({ x: 3.6, y: 1.5 }, ball, SOFA));
    // From the left of the sofa's top edge the line of sight is clear.
    const seen = cameraSeesBall(at(1.5, 3.8, 0), ball);
    assert.ok(seen !== undefined);
    assert.ok(Math.abs(seen.distance - 2.1) < 1e-9);
  });

  it('the camera sees only within its field of view', () => {
    const ball = { x: 2, y: 1 };
    assert.ok(cameraSeesBall(at(1, 1, 0), ball) !== undefined);
    assert.equal(cameraSeesBall(at(1, 1, 90), ball), undefined);
    assert.equal(cameraSeesBall(at(1, 1, 180), ball), undefined);
  });

  it('kicks: farthest from ~0.25 m, nothing out of reach or off to the side, half with the wrong foot', () => {
    const sweet = kickDistance(at(1, 1), { x: 1.25, y: 1 }, 'right');
    const near = kickDistance(at(1, 1), { x: 1.13, y: 1 }, 'right');
    const far = kickDistance(at(1, 1), { x: 1.39, y: 1 }, 'right');
    assert.ok(sweet > near && sweet > far, `sweet ${sweet}, near ${near}, far ${far}`);
    assert.ok(sweet >= 0.6);
    assert.equal(kickDistance(at(1, 1), { x: 1.6, y: 1 }, 'right'), 0);
    assert.equal(kickDistance(at(1, 1), { x: 1.0, y: 1.25 }, 'right'), 0);
    // Ball slightly to the left (positive bearing): the left foot is the right one.
    const ballLeft = { x: 1.25, y: 1.05 };
    assert.ok(kickDistance(at(1, 1), ballLeft, 'left') > kickDistance(at(1, 1), ballLeft, 'right') * 1.5);
  });

  it('a kick moves the ball and reports it in one line; a miss moves nothing', async () => {
    const body = new Sim2dBody({ duck: at(1, 1, 0), ball: { x: 1.25, y: 1 } });
    const kicked = await body.perform({ verb: 'kick', args: { foot: 'right' } });
    assert.match(kicked.summary, /^ball moved 0\.\d\d m$/);
    assert.ok(body.metrics()['ball_displaced_m']! >= 0.6);
    const missed = await body.perform({ verb: 'kick', args: { foot: 'right' } });
    assert.equal(missed.ok, false);
    assert.match(missed.summary, /missed/);
  });

  it('search_scan turns until it sees the ball and reports bearing and distance', async () => {
    const body = new Sim2dBody({ duck: at(1, 1, 180), ball: { x: 2, y: 1.3 } });
    const result = await body.perform({ verb: 'search_scan', args: {} });
    assert.match(result.summary, /^ball found at bearing \d+° (left|right), 1\.04 m$/);
    assert.equal(result.data?.['ball_visible'], true);
  });

  it('search_scan says so when a full turn finds nothing', async () => {
    const body = new Sim2dBody({ duck: at(3.6, 1.5, 90), ball: { x: 3.6, y: 3.8 } });
    const result = await body.perform({ verb: 'search_scan', args: {} });
    assert.equal(result.summary, 'no ball in sight after a full turn');
    assert.equal((body.frame().state['duck'] as { heading_deg: number }).heading_deg, 90);
  });

  it('turn: positive is left', async () => {
    const body = new Sim2dBody({ duck: at(1, 1, 0), ball: { x: 4, y: 1 } });
    const result = await body.perform({ verb: 'turn', args: { degrees: 30 } });
    assert.match(result.summary, /^turned 30° left; ball at bearing 30° right, 3\.00 m$/);
  });

  it('is deterministic per seed, and seeds differ', async () => {
    // Seed 7, the default, is the living room README's first run shows: the same room on every machine, every time.
    for (let i = 0; i < 2; i++) {
      const result = await createSim2dBody({ seed: 7 }).perform({ verb: 'search_scan', args: {} });
      assert.equal(result.summary, 'ball found at bearing 5° left, 3.22 m');
    }
    assert.notDeepEqual(layoutForSeed(3), layoutForSeed(4));
    for (let seed = 0; seed < 50; seed++) {
      const { duck, ball } = layoutForSeed(seed);
      assert.ok(Math.hypot(duck.x - ball.x, duck.y - ball.y) >= 1, `seed ${seed}: ball too close`);
    }
  });

  it('lays the ball where a kick from any side can roll it 0.3 m: open floor all round, off the walls and the sofa', () => {
    for (let seed = 0; seed < 2000; seed++) {
      const { ball } = layoutForSeed(seed);
      // A kick sends the ball along the duck's line of approach: 0.3 m of roll, whichever line.
      for (let a = 0; a < 360; a += 15) {
        const rolled = sweepDisc(ball, (a * Math.PI) / 180, 0.3, BALL_RADIUS);
        assert.equal(rolled.blockedBy, undefined, `seed ${seed}: a kick towards ${a}° rolls ${rolled.travelled.toFixed(2)} m into the ${rolled.blockedBy}`);
      }
    }
  });
});

describe('sim2d torque', () => {
  it('is state, said on the bus: on as the world opens, off limp, on again before a verb that moves', async () => {
    const events = new EventBus();
    const said: (boolean | null | undefined)[] = [];
    events.on('body:report', (e) => said.push(e.torque));
    const body = createSim2dBody({ seed: 7, robot: 'den', events });
    assert.equal(body.metrics()['torque'], 1);
    assert.deepEqual(await body.perform({ verb: 'torque', args: { on: false } }), { ok: true, summary: 'torque off: limp', data: { torque: false } });
    assert.equal(body.metrics()['torque'], 0);
    await body.perform({ verb: 'quack', args: {} });
    assert.equal(body.frame().state['torque'], false, 'a quack moves no joint');
    await body.perform({ verb: 'turn', args: { degrees: 10 } });
    assert.equal(body.frame().state['torque'], true);
    assert.deepEqual(said, [true, false, true]);
  });
});
