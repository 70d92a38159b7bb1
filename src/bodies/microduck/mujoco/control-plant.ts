/**
 * The twin as the control worker makes it (ModuleSpec `createPlant`): the MuJoCo plant for a
 * seed, plus what it senses beyond the loop's sensors for the body on the main thread: the trunk
 * and ball poses and what the head camera sees (sim2d's camera rule on the twin's poses).
 */
import * as z from '../../../zod-mini.js';
import type { Json } from '../../../control/module-spec.js';
import type { Plant } from '../../../control/plant.js';
import { openMujocoPlant } from './plant.js';
import { proximityOf } from './proximity.js';

const Point = z.strictObject({ x: z.number(), y: z.number() });
const name = z.string().check(z.minLength(1));
const Options = z.strictObject({
  seed: z.int().check(z.nonnegative()),
  kp: z.optional(z.number().check(z.positive())),
  /** A scene of the caller's instead of the seed's: where the duck stands and faces, where the ball lies. */
  layout: z.optional(z.strictObject({ duck: z.extend(Point, { heading: z.number() }), ball: Point })),
  /** A model of the user's (anatomy.ts DuckModel). */
  model: z.optional(
    z.strictObject({
      mjcf: name,
      joints: z.optional(z.array(name)),
      jointsFrom: z.optional(name),
      home: z.optional(z.array(z.number())),
      gyro: z.optional(name),
      framequat: z.optional(name),
      camera: z.optional(name),
    }),
  ),
});

/** What `sense()` answers; the body parses it back with the same schema. */
export const TwinWorldSchema = z.object({
  t: z.number(),
  trunk: z.object({ x: z.number(), y: z.number(), z: z.number(), roll: z.number(), pitch: z.number(), yaw: z.number() }),
  ball: z.object({ x: z.number(), y: z.number(), z: z.number() }),
  sees: z.nullable(z.object({ bearing: z.number(), distance: z.number() })),
  /** The head camera: where on the floor plan, how high, which way and how far its axis tips down (radians); null while it looks up or down. */
  camera: z.nullable(z.object({ x: z.number(), y: z.number(), z: z.number(), heading: z.number(), pitch: z.number() })),
  /** What stands within stopping distance ahead and behind (plant.ts Proximity). */
  proximity: z.object({ ahead: z.nullable(z.string()), behind: z.nullable(z.string()) }),
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
