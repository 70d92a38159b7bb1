/**
 * `model`: the robot's model, checked as a run would open it, before any run does: a model file
 * that is missing or does not compile, lacks the policy joints, or that a policy slot's joints do
 * not match fails in one line naming what is wrong. A body with no model to check says so.
 */
import { QuackdError } from '../errors.js';
import { SLOTS, robotSlots, type Slot, type SlotChoice } from '../policy/slots.js';
import { fail, forRobot, ok, warn, type HealthCheck } from './check.js';

export const modelCheck: HealthCheck = {
  name: 'model',
  run: (ctx) =>
    forRobot(ctx, async (robot) => {
      const check = robot.entry.checkModel;
      if (check === undefined) return ok(`none: ${robot.key} has no model file`);
      let slots: Readonly<Record<Slot, SlotChoice>>;
      try {
        slots = robotSlots(robot, ctx.dataDir);
      } catch (err) {
        // The policies line fails on it and says why; the model cannot be matched against slots unknown.
        if (err instanceof QuackdError) return warn('not checked: the policy slots do not resolve');
        throw err;
      }
      const verdict = await check(robot.settings, Object.fromEntries(SLOTS.map((s) => [s, slots[s].dir])) as Record<Slot, string>);
      return verdict.ok ? ok(verdict.detail) : fail(verdict.detail);
    }),
};
