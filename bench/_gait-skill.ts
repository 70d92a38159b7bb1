/**
 * A walk's shape for bench/recording.ts: every joint swings about where it is held, ~1.7 Hz, each
 * with its own phase and amplitude, plus a little noise, as a gait policy's targets do (a smooth
 * ramp would compress far better than a real walk and flatter the bytes per minute).
 */
import type { Skill } from '../src/control/skill.js';

export function createSkill(): Skill {
  let held: Float64Array = new Float64Array(0);
  let seed = 1;
  const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.004;
  return {
    start: (_frame, pose) => void (held = pose),
    tick: (_frame, tMs) => held.map((h, i) => h + (0.15 + 0.02 * i) * Math.sin((2 * Math.PI * 1.7 * tMs) / 1000 + i * 0.7) + noise()),
  };
}
