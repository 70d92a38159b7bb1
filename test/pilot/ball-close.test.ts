/**
 * The fake pilot's ball game at close range on a body that says where its kicks reach (the
 * twin): a ball the camera loses at the duck's feet is looked for where the reckoning puts it
 * (a small turn, a small step back), never by a scan, whose turns sweep a ball this close away;
 * it was the line-up loop that spent the budget of most failed twin seeds (issue 22).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VerbResult } from '../../src/bodies/body.js';
import { BallGame } from '../../src/pilot/providers/fake-ball.js';
import type { PilotContext } from '../../src/pilot/providers/provider.js';

const OFFERED = new Set(['search_scan', 'turn', 'walk', 'kick', 'quack']);
const REACH = { kick_from_m: 0.04, kick_ahead_m: 0.115, kick_side_m: 0.07 };

function ctx(seen: Record<string, unknown>, last?: { verb: string; result: VerbResult }): PilotContext {
  return { observation: { summary: '', data: { ...REACH, ball_in_reach: 'none', ...seen } }, lastResults: last === undefined ? [] : [{ ...last, invented: false }], dryRun: false, duck: 'find-and-kick', task: 'kick the ball' };
}

const seenAt = (ahead: number, left: number, distance: number, bearing: number): Record<string, unknown> => ({ ball_visible: true, ball_bearing_deg: bearing, ball_distance_m: distance, ball_ahead_m: ahead, ball_left_m: left });
const unseen = { ball_visible: false };

describe('the ball game at close range on the twin', () => {
  it('looks for a ball lost at its feet by turning towards where it reckons it is, not by a scan', () => {
    const game = new BallGame();
    // Seen 0.3 m ahead of the trunk and a little left: lined up, walked up to.
    const first = game.next(ctx(seenAt(0.3, 0.07, 0.2, 20)), OFFERED);
    assert.equal(first.name, 'walk', JSON.stringify(first));
    // The walk went 0.12 m and veered 10° right: the ball is now off to the left, out of view.
    const walked = { verb: 'walk', result: { ok: true, summary: 'walked 0.12 m; no ball in view', data: { walked_m: 0.12, turned_deg: -10, ball_visible: false } } };
    const look = game.next(ctx(unseen, walked), OFFERED);
    assert.equal(look.name, 'turn', `a look towards the ball, not ${JSON.stringify(look)}`);
    const degrees = Number((look.args as { degrees: number }).degrees);
    assert.ok(degrees > 10 && degrees < 60, `turned left towards it by the veer and more: ${degrees}°`);
  });

  it('turns a ball its last leg left beside the foot, out of its reach, onto the kick spot instead of stepping back from it', () => {
    const game = new BallGame();
    // Seen 0.26 m ahead of the trunk, 7 cm left (the kick's side): the last leg, walked blind.
    const first = game.next(ctx(seenAt(0.26, 0.07, 0.16, 25)), OFFERED);
    assert.equal(first.name, 'walk', JSON.stringify(first));
    // It veered 10° right: the ball is reckoned 0.09 m ahead and 0.10 m left, beyond the left foot.
    const walked = { verb: 'walk', result: { ok: true, summary: 'walked 0.15 m; no ball in view', data: { walked_m: 0.15, turned_deg: -10, ball_visible: false } } };
    const look = game.next(ctx(unseen, walked), OFFERED);
    assert.equal(look.name, 'turn', `a turn onto the foot, not ${JSON.stringify(look)}`);
    const degrees = Number((look.args as { degrees: number }).degrees);
    assert.ok(degrees >= 10 && degrees <= 22, `turned left by what brings it 7 cm left of the trunk's line: ${degrees}°`);
    // The feet feel it there: kicked with that foot.
    assert.deepEqual(game.next(ctx({ ...unseen, ball_in_reach: 'left' }, { verb: 'turn', result: { ok: true, summary: 'turned', data: { turned_deg: degrees } } }), OFFERED), { name: 'kick', args: { foot: 'left' } });
  });

  it('steps back from a ball under its camera, and turns round only when the walk cannot go backwards', () => {
    const game = new BallGame();
    const first = game.next(ctx(seenAt(0.2, 0.07, 0.1, 35)), OFFERED);
    assert.equal(first.name, 'walk', JSON.stringify(first));
    const walked = { verb: 'walk', result: { ok: true, summary: 'walked 0.12 m; no ball in view', data: { walked_m: 0.12, turned_deg: 0, ball_visible: false } } };
    const back = game.next(ctx(unseen, walked), OFFERED);
    assert.deepEqual(back, { name: 'walk', args: { metres: -0.06 } });
    const refused = { verb: 'walk', result: { ok: false, summary: "walk: the policy's command.ranges.vx [0, 0.5] has no backward speed" } };
    const round = game.next(ctx(unseen, refused), OFFERED);
    assert.deepEqual(round, { name: 'turn', args: { degrees: 180 } });
  });
});
