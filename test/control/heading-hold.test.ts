/**
 * The walk's heading hold (src/control/skills/heading-hold.ts): it answers the mean heading error
 * over one gait cycle, not the tick's, and it reads yaw across the ±π seam.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeadingHold } from '../../src/control/skills/heading-hold.js';

const SETTINGS = { gain: 3, max_vyaw: 1 };
const deg = (d: number): number => (d * Math.PI) / 180;

describe('heading hold', () => {
  it('turns back against a steady veer: vyaw = −gain × the error, within max_vyaw', () => {
    const hold = new HeadingHold(SETTINGS, 20);
    let out = 0;
    hold.update(0);
    for (let i = 0; i < 40; i++) out = hold.update(deg(5));
    assert.ok(Math.abs(out - -3 * deg(5)) < 1e-9, `vyaw ${out}`);
    for (let i = 0; i < 40; i++) out = hold.update(deg(-40));
    assert.equal(out, 1, 'clamped to max_vyaw');
  });

  it("averages out the stride's own yaw: ±20° each step of a straight walk asks for nothing", () => {
    const hold = new HeadingHold(SETTINGS, 22);
    const outs: number[] = [];
    // A 22-tick cycle: the trunk swings ±20° about the heading it keeps.
    for (let i = 0; i < 110; i++) outs.push(hold.update(deg(20) * Math.sin((2 * Math.PI * i) / 22)));
    const late = outs.slice(22);
    // The tick's error would have asked for up to gain × 20° (1 rad/s, clamped) and back.
    assert.ok(Math.max(...late.map(Math.abs)) < 0.01, `largest vyaw over whole cycles ${Math.max(...late.map(Math.abs))}`);
  });

  it('reads a walk that starts facing π and veers across the seam as a small veer', () => {
    const hold = new HeadingHold(SETTINGS, 5);
    hold.update(Math.PI - deg(1));
    let out = 0;
    for (let i = 0; i < 10; i++) out = hold.update(-Math.PI + deg(2));
    // 3° to the left (counter-clockwise) of where it started: a small turn right.
    assert.ok(Math.abs(out - -3 * deg(3)) < 1e-9, `vyaw ${out}`);
  });
});
