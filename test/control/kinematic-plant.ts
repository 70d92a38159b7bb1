/**
 * A small kinematic plant for the control tests and bench, made in the control worker from JSON
 * options: joints that follow their targets at a finite speed each time the loop advances it,
 * a trunk tilt scripted by read, reads that fail or block on cue. What it was sent (with the read
 * index and the worker's clock) is written to `log` when the loop closes it (`closeMs` later: a
 * close that takes time, as a port's does), for the test to read.
 */
import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { Json } from '../../src/control/module-spec.js';
import type { JointSpec, Plant, SensorFrame } from '../../src/control/plant.js';

const Options = z
  .object({
    joints: z.number().int().positive().default(3),
    min: z.number().default(-1),
    max: z.number().default(1),
    /** rad/s: what the joints announce (the safety stage's step limit) */
    maxVelocity: z.number().positive().default(1),
    /** rad/s: how fast the joints really follow */
    followSpeed: z.number().positive().default(5),
    start: z.array(z.number()).optional(),
    /** from read `from` on, the trunk tilts by `rad` (the latest entry that has begun wins) */
    tilt: z.array(z.object({ from: z.number().int(), rad: z.number() })).default([]),
    failReads: z.array(z.number().int()).default([]),
    blockRead: z.object({ at: z.number().int(), ms: z.number() }).optional(),
    canLimp: z.boolean().default(false),
    /** ms its close takes (a port and its lock let go of), after which the log is written */
    closeMs: z.number().nonnegative().default(0),
    /** servos that hold by themselves: the loop may rest between reads this long (Plant.restingPeriodMs) */
    restingPeriodMs: z.number().positive().optional(),
    log: z.string().optional(),
    /** m/s²: an accelerometer's reading in every frame (none without it) */
    accel: z.tuple([z.number(), z.number(), z.number()]).optional(),
  })
  .strict();

export interface PlantLog {
  readonly reads: number;
  readonly sends: readonly { readonly read: number; readonly t: number; readonly targets: readonly number[] }[];
  readonly limps: readonly number[];
  readonly finalPos: readonly number[];
  /** when each read came, epoch ms (performance.timeOrigin + now: comparable across threads) */
  readonly readAt: readonly number[];
}

export function createPlant(options: Json | undefined): Plant {
  const o = Options.parse(options ?? {});
  const joints: JointSpec[] = Array.from({ length: o.joints }, (_, i) => ({ name: `j${i}`, min: o.min, max: o.max, maxVelocity: o.maxVelocity }));
  const pos = Float64Array.from(o.start ?? joints.map(() => 0));
  const target = pos.slice();
  let reads = 0;
  let limp = false;
  const sends: { read: number; t: number; targets: number[] }[] = [];
  const limps: number[] = [];
  const readAt: number[] = [];
  const plant: Plant = {
    joints,
    ...(o.restingPeriodMs !== undefined ? { restingPeriodMs: o.restingPeriodMs } : {}),
    read(): SensorFrame | undefined {
      const i = reads;
      reads += 1;
      readAt.push(performance.timeOrigin + performance.now());
      if (o.blockRead !== undefined && o.blockRead.at === i) {
        const until = performance.now() + o.blockRead.ms;
        while (performance.now() < until);
      }
      if (o.failReads.includes(i)) return undefined;
      const tilt = o.tilt.filter((s) => s.from <= i).at(-1)?.rad ?? 0;
      return { gyro: [0, 0, 0], gravity: [Math.sin(tilt), 0, -Math.cos(tilt)], ...(o.accel !== undefined ? { accel: o.accel } : {}), jointPos: pos.slice(), jointVel: new Float64Array(o.joints) };
    },
    send(targets) {
      sends.push({ read: reads - 1, t: performance.now(), targets: [...targets] });
      target.set(targets);
      limp = false;
    },
    advance(periodS) {
      if (limp) return;
      const step = o.followSpeed * periodS;
      pos.forEach((p, i) => (pos[i] = p + Math.min(step, Math.max(-step, (target[i] ?? p) - p))));
    },
    close() {
      const log: PlantLog = { reads, sends, limps, finalPos: [...pos], readAt };
      const write = () => o.log !== undefined && writeFileSync(o.log, JSON.stringify(log));
      if (o.closeMs === 0) return void write();
      return new Promise<void>((resolve) => setTimeout(() => resolve(void write()), o.closeMs));
    },
  };
  if (o.canLimp)
    plant.limp = () => {
      limp = true;
      limps.push(reads - 1);
    };
  return plant;
}
