/**
 * Skills for the control tests, made in the worker from JSON options (`kind` picks one):
 *   ramp    moves joint `joint` at `velocity` rad/s from where it is held, for `durationMs` (or until stopped);
 *           with `startMs`, its start takes that long (a policy warming up) before its first targets
 *   script  asks for `targets[k]` on its k-th tick (null stands for NaN, which JSON cannot carry), then done
 *   block   like ramp, but blocks the worker for `ms` on its `at`-th tick, once
 *   async   answers each tick after `delayMs` with the held pose; done after `ticks` ticks when given
 *   throw   throws on its first tick
 */
import { z } from 'zod';
import type { Json } from '../../src/control/module-spec.js';
import type { Skill } from '../../src/control/skill.js';

const Ramp = { joint: z.number().int().default(0), velocity: z.number().default(1), durationMs: z.number().optional(), startMs: z.number().optional() };
const Options = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ramp'), ...Ramp }),
  z.object({ kind: z.literal('script'), targets: z.array(z.array(z.number().nullable())) }),
  z.object({ kind: z.literal('block'), ...Ramp, at: z.number().int(), ms: z.number() }),
  z.object({ kind: z.literal('async'), delayMs: z.number(), ticks: z.number().int().optional() }),
  z.object({ kind: z.literal('throw') }),
]);

export function createSkill(options: Json | undefined): Skill {
  const o = Options.parse(options);
  let held: Float64Array = new Float64Array(0);
  let ticks = 0;
  const start = (_frame: unknown, pose: Float64Array) => void (held = pose);
  switch (o.kind) {
    case 'ramp':
    case 'block':
      return {
        start: (frame, pose) => {
          start(frame, pose);
          if (o.startMs !== undefined) return new Promise((resolve) => setTimeout(resolve, o.startMs));
        },
        tick(_frame, tMs) {
          const k = ticks++;
          if (o.kind === 'block' && k === o.at) {
            const until = performance.now() + o.ms;
            while (performance.now() < until);
          }
          if (o.durationMs !== undefined && tMs >= o.durationMs) return 'done';
          const out = held.slice();
          out[o.joint] = (held[o.joint] ?? 0) + (o.velocity * tMs) / 1000;
          return out;
        },
      };
    case 'script':
      return { start, tick: () => o.targets[ticks++]?.map((v) => v ?? Number.NaN) ?? 'done' };
    case 'async':
      return { start, tick: () => new Promise((resolve) => setTimeout(() => resolve(o.ticks !== undefined && ticks++ >= o.ticks ? 'done' : held), o.delayMs)) };
    case 'throw':
      return {
        tick() {
          throw new Error('the skill broke');
        },
      };
  }
}
