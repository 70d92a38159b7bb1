/**
 * Two walks on one Feetech body in the twin, as a user's run plays them (`quackd run
 * two-walks.duck --provider script`), for what one verb leaves in the body that the next might
 * say; and when the second walk's policy is under way, for a test to raise its fault then.
 */
import { modelByName } from '../../src/servo-bus/models.js';
import { sleep } from './pty-pair.js';
import type { ServoTwinProcess } from './servo-twin-process.js';

const TORQUE = modelByName('STS3215')!.registers.torqueEnable.address;

/** The duck's file name in the run's home, and its text. */
export const TWO_WALKS = {
  'two-walks.duck': `---
description: Walk a short beat twice.
robot: microduck:feetech
verbs: [walk]
budgets: { steps: 2, llm_calls: 4, seconds: 60 }
---
# Two walks

## Strategy
1. walk 0.5
2. walk 0.5
`,
};

/** Until the second walk's goals reach the servos: each motion verb switches torque on itself first (one sync write, the value after each id). */
export async function untilSecondWalk(twin: ServoTwinProcess, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  const torqueOns = async (): Promise<number> => (await twin.writes()).filter((w) => w.instruction === 'sync write' && w.params[0] === TORQUE && w.params[3] === 1).length;
  while ((await torqueOns()) < 2) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for the second walk's torque on`);
    await sleep(20);
  }
  await twin.untilGoalWrites((await twin.goalWrites()) + 25);
}

/** Each walk's result line in the run's output (`  1  walk 0.50  walked …`), in order; missing for a walk that did not run. */
export const walkLines = (stdout: string): (string | undefined)[] => [1, 2].map((step) => new RegExp(`^ +${step} +walk 0\\.50 +(walked .*)$`, 'm').exec(stdout)?.[1]);
