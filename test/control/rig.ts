/**
 * The control tests' rig: a loop on the kinematic test plant whose send log the test reads once
 * the loop has closed, the test skills by kind, and a close registered on the test context so
 * every test ends its worker, whatever it asserts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { ControlLoop, type ControlLoopOptions } from '../../src/control/control-loop.js';
import type { Json, ModuleSpec } from '../../src/control/module-spec.js';
import { EventBus } from '../../src/runtime/events.js';
import { tempDir } from '../helpers/tmp.js';
import type { PlantLog } from './kinematic-plant.js';

export const PLANT = new URL('./kinematic-plant.ts', import.meta.url).href;
export const SKILLS = new URL('./test-skills.ts', import.meta.url).href;

export const skill = (options: { readonly kind: string } & { readonly [key: string]: Json }): ModuleSpec => ({ module: SKILLS, options });

export interface Rig {
  readonly loop: ControlLoop;
  readonly events: EventBus;
  /** Closes the loop (if the test has not) and reads what the plant was sent. */
  log(): Promise<PlantLog>;
}

export async function startRig(t: TestContext, plant: { readonly [key: string]: Json } = {}, options: Omit<ControlLoopOptions, 'plant' | 'events'> = {}): Promise<Rig> {
  const file = join(tempDir('quackd-control-'), 'plant.json');
  const events = new EventBus();
  const loop = await ControlLoop.start({ plant: { module: PLANT, options: { ...plant, log: file } }, events, ...options });
  t.after(() => loop.close());
  return {
    loop,
    events,
    log: async () => {
      await loop.close();
      return JSON.parse(readFileSync(file, 'utf8')) as PlantLog;
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
