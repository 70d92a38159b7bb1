/**
 * The twin as the control worker makes it (ModuleSpec `createPlant`): the MuJoCo plant for a
 * seed, plus what it senses beyond the loop's sensors for the body on the main thread: the trunk
 * and ball poses and what the head camera sees (sim2d's camera rule on the twin's poses).
 */
import { z } from 'zod';
import type { Json } from '../../../control/module-spec.js';
import type { Plant } from '../../../control/plant.js';
import { openMujocoPlant } from './plant.js';
import { proximityOf } from './proximity.js';

const Point = z.object({ x: z.number(), y: z.number() }).strict();
const name = z.string().min(1);
const Options = z
  .object({
    seed: z.number().int().nonnegative(),
    kp: z.number().positive().optional(),
    /** A scene of the caller's instead of the seed's: where the duck stands and faces, where the ball lies. */
    layout: z.object({ duck: Point.extend({ heading: z.number() }), ball: Point }).strict().optional(),
    /** A model of the user's (anatomy.ts DuckModel). */
    model: z
      .object({ mjcf: name, joints: z.array(name).optional(), jointsFrom: name.optional(), home: z.array(z.number()).optional(), gyro: name.optional(), framequat: name.optional(), camera: name.optional() })
      .strict()
      .optional(),
  })
  .strict();

/** What `sense()` answers; the body parses it back with the same schema. */
export const TwinWorldSchema = z.object({
  t: z.number(),
  trunk: z.object({ x: z.number(), y: z.number(), z: z.number(), roll: z.number(), pitch: z.number(), yaw: z.number() }),
  ball: z.object({ x: z.number(), y: z.number(), z: z.number() }),
  sees: z.object({ bearing: z.number(), distance: z.number() }).nullable(),
  /** The head camera: where on the floor plan, how high, which way and how far its axis tips down (radians); null while it looks up or down. */
  camera: z.object({ x: z.number(), y: z.number(), z: z.number(), heading: z.number(), pitch: z.number() }).nullable(),
  /** What stands within stopping distance ahead and behind (plant.ts Proximity). */
  proximity: z.object({ ahead: z.string().nullable(), behind: z.string().nullable() }),
});
export type TwinWorld = z.infer<typeof TwinWorldSchema>;

export async function createPlant(options: Json | undefined): Promise<Plant> {
  const { seed, kp, layout, model } = Options.parse(options);
  const plant = await openMujocoPlant({ seed, ...(kp !== undefined ? { kp } : {}), ...(layout !== undefined ? { layout } : {}), ...(model !== undefined ? { model } : {}) });
  const sense = (): TwinWorld => {
    const seen = plant.seesBall();
    const trunk = plant.trunk();
    const camera = plant.camera();
    return { t: plant.time(), trunk: { ...trunk }, ball: { ...plant.ball() }, sees: seen === undefined ? null : { ...seen }, camera: camera === undefined ? null : { ...camera }, proximity: { ...proximityOf(trunk) } };
  };
  // The plant itself, with sense() beside its own calls: only the safety stage sends it targets.
  return Object.assign(plant, { sense });
}
