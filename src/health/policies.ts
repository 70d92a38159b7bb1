/**
 * `policies`: every slot of the robot resolves to a folder whose manifest and model load, checked
 * as a run loads it (src/policy/load.ts). A broken slot names itself and says why in one line.
 * Slots that load but warn (a manifest key nobody reads, a twin stepping otherwise than the
 * policy was trained: bodies/policy-warnings.ts) make it a warning, each said.
 */
import { PolicyError } from '../policy/errors.js';
import { SLOTS, robotSlots, type Slot, type SlotChoice } from '../policy/slots.js';
import { QuackdError } from '../errors.js';
import { robotPolicyWarnings } from '../bodies/policy-warnings.js';
import { fail, forRobot, ok, warn, type HealthCheck } from './check.js';

/** Why the folder of a slot does not load, or undefined when it does. */
async function problemOf(dir: string): Promise<string | undefined> {
  const { loadPolicy } = await import('../policy/load.js');
  try {
    await (await loadPolicy(dir)).close();
    return undefined;
  } catch (err) {
    if (err instanceof PolicyError) return err.message;
    throw err;
  }
}

/** `4 bundled, 1 config`: where the slots' folders came from. */
function origins(slots: Readonly<Record<Slot, SlotChoice>>): string {
  const counts = new Map<string, number>();
  for (const s of SLOTS) counts.set(slots[s].from, (counts.get(slots[s].from) ?? 0) + 1);
  return [...counts].map(([from, n]) => `${n} ${from}`).join(', ');
}

export const policiesCheck: HealthCheck = {
  name: 'policies',
  run: (ctx) =>
    forRobot(ctx, async (robot) => {
      if (robot.entry.policies !== true) return ok(`none: ${robot.key} runs no policies`);
      let slots: Readonly<Record<Slot, SlotChoice>>;
      try {
        slots = robotSlots(robot, ctx.dataDir);
      } catch (err) {
        // policy-slots.json (what `quackd policy load` recorded) is unreadable or malformed.
        if (err instanceof QuackdError) return fail(err.message);
        throw err;
      }
      const problems = await Promise.all(SLOTS.map(async (s) => ({ slot: s, problem: await problemOf(slots[s].dir) })));
      const broken = problems.filter((p) => p.problem !== undefined);
      if (broken.length > 0) return fail(broken.map((b) => `${b.slot}: ${b.problem ?? ''}`).join('; '));
      const loaded = `all ${SLOTS.length} slots load (${origins(slots)})`;
      const warnings = robotPolicyWarnings(robot, ctx.dataDir);
      return warnings.length > 0 ? warn(`${loaded}; ${warnings.join('; ')}`) : ok(loaded);
    }),
};
