/**
 * A control-worker plant module for tests: the MuJoCo twin whose servos take each goal `late`
 * periods after the loop sent it, as a real bus's read-to-goal time and a loaded host make them.
 * The delay line holds copies: the loop reuses its target buffer.
 */
import type { Json } from '../../../src/control/module-spec.js';
import type { Plant } from '../../../src/control/plant.js';
import { openMujocoPlant } from '../../../src/bodies/microduck/mujoco/plant.js';

interface Options {
  readonly seed: number;
  readonly late: number;
  readonly layout: { readonly duck: { readonly x: number; readonly y: number; readonly heading: number }; readonly ball: { readonly x: number; readonly y: number } };
}

export async function createPlant(options: Json | undefined): Promise<Plant> {
  const { seed, late, layout } = options as unknown as Options;
  const twin = await openMujocoPlant({ seed, layout });
  const queue: Float64Array[] = [];
  return {
    joints: twin.joints,
    read: () => twin.read(),
    send(targets) {
      queue.push(Float64Array.from(targets));
      // The servos hold their last goal until the one sent `late` periods ago arrives.
      if (queue.length > late) twin.send(queue.shift()!);
    },
    advance: (periodS) => twin.advance(periodS),
    close: () => twin.close(),
  };
}
