/**
 * `quackd policy list | load SLOT DIR`: a robot's skill policies, slot by slot, each checked the
 * way a run loads it (manifest, shapes, robot), and a slot swapped for another folder between runs.
 */
import { parseFlags } from '../cli/args.js';
import { EXIT, InputError, UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/invocation.js';
import { printable } from '../cli/output.js';
import { loadConfigFile } from '../config/file.js';
import { dataDir } from '../config/paths.js';
import { PolicyError } from '../policy/errors.js';
import { SLOTS, isSlot, recordSlot, robotSlots, type Slot } from '../policy/slots.js';
import { Fleet, type Robot } from '../runtime/fleet.js';
import { listBodies } from '../bodies/index.js';
import { slotWarnings } from '../bodies/policy-warnings.js';
import { didYouMean } from '../text/suggest.js';
import type { Command } from './command.js';

const help = `usage: quackd policy list [--robot NAME] [--json]
       quackd policy load SLOT DIR [--robot NAME]
       quackd policy load SLOT --default [--robot NAME]

A robot driven by skill policies (ONNX, in a 50 Hz control loop) has one per slot: ${SLOTS.join(', ')}.
Each slot holds the bundled policy unless the robot's config (policies: in robots:) or
'quackd policy load' names another folder (policy.onnx + manifest.json). 'list' checks every slot
as a run would load it; 'load' checks the folder first and takes effect at the robot's next run.

options:
  --robot NAME   a robot of the fleet or a body key (default: the fleet's one robot that runs
                 policies)
  --default      (load) put the slot back to the config file's or the bundled policy
  --json         (list) one JSON array

examples:
  quackd policy list
  quackd policy load walk ~/policies/walking --robot kitchen-duck`;

/** Robots that run policies: the fleet's, and each such body not in the fleet, by its key. */
function candidates(fleet: Fleet): Robot[] {
  const members = fleet.list().filter((r) => r.entry.policies === true);
  const bare = listBodies()
    .filter((b) => b.policies === true && !members.some((r) => r.key === b.key))
    .map((entry): Robot => ({ name: entry.key, key: entry.key, entry, settings: {}, sources: {} }));
  return [...members, ...bare];
}

/**
 * The robot whose slots a command is about: --robot, else the fleet's one robot that runs
 * policies (a Pi with its duck configured), else the only body that does.
 */
function robotOf(fleet: Fleet, flag: string | undefined): Robot {
  const all = candidates(fleet);
  const names = all.map((r) => r.name);
  if (flag === undefined) {
    const members = all.filter((r) => fleet.get(r.name) === r);
    const only = members.length === 1 ? members[0] : all.length === 1 ? all[0] : undefined;
    if (only !== undefined) return only;
    throw new UsageError(`policy: name the robot (--robot): ${names.join(', ')}`);
  }
  const robot = all.find((r) => r.name === flag) ?? fleet.get(flag);
  if (robot === undefined) throw new InputError(`--robot: unknown robot "${flag}"${didYouMean(flag, names)}`, `robots with policies: ${names.join(', ')}`);
  if (robot.entry.policies !== true) throw new InputError(`--robot: ${robot.name} (${robot.key}) runs no policies`, `robots with policies: ${names.join(', ')}`);
  return robot;
}

async function check(dir: string): Promise<{ ok: true; summary: string; runtime: string } | { ok: false; problem: string }> {
  const { loadPolicy } = await import('../policy/load.js');
  try {
    const p = await loadPolicy(dir);
    await p.close();
    const m = p.manifest;
    return { ok: true, runtime: p.runtime, summary: `${m.obs_layout} ${m.obs_len}→${m.action_len}${m.slot !== undefined ? ` · ${m.slot}` : ''}${m.kind !== undefined ? ` · ${m.kind}` : ''}` };
  } catch (err) {
    if (err instanceof PolicyError) return { ok: false, problem: err.message };
    throw err;
  }
}

export const policyCommand: Command = {
  name: 'policy',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('policy', argv, { robot: { type: 'string' }, json: { type: 'boolean' }, default: { type: 'boolean' } });
    const [sub, slot, dir, extra] = positionals;
    const fleet = new Fleet((await loadConfigFile(env)).config.robots ?? {});
    const home = dataDir(env);
    if (sub === 'list') {
      if (slot !== undefined) throw new UsageError(`policy list: unexpected argument "${slot}"`);
      const robot = robotOf(fleet, flags.robot);
      const slots = robotSlots(robot, home);
      const rows = await Promise.all(SLOTS.map(async (s) => ({ slot: s, ...slots[s], ...(await check(slots[s].dir)), warnings: slotWarnings(robot, slots[s].dir, slots.walk.dir) })));
      if (flags.json === true) {
        io.line(JSON.stringify(rows));
      } else {
        io.line(`${io.bold(printable(robot.name))}${robot.name !== robot.key ? ` (${robot.key})` : ''}`);
        const width = Math.max(...SLOTS.map((s) => s.length));
        for (const r of rows) {
          const state = r.ok ? `${io.green(io.ok)} ${r.summary} · ${r.runtime}` : `${io.red(io.fail)} ${r.problem}`;
          io.line(`  ${r.slot.padEnd(width)}  ${printable(r.dir)}${io.dim(`  (${r.from})`)}`);
          io.line(`  ${' '.repeat(width)}  ${state}`);
          for (const w of r.warnings) io.line(`  ${' '.repeat(width)}  ${io.yellow(`warning: ${printable(w)}`)}`);
        }
      }
      return rows.every((r) => r.ok) ? EXIT.ok : EXIT.runtime;
    }
    if (sub === 'load') {
      if (slot === undefined || !isSlot(slot)) throw new UsageError(`policy load: ${slot === undefined ? 'name a slot' : `unknown slot "${slot}"${didYouMean(slot, SLOTS)}`}`, `slots: ${SLOTS.join(', ')}`);
      if (extra !== undefined) throw new UsageError(`policy load: unexpected argument "${extra}"`);
      if ((dir === undefined) === (flags.default !== true)) throw new UsageError('policy load: give a folder, or --default', 'e.g. quackd policy load walk ~/policies/walking');
      const robot = robotOf(fleet, flags.robot);
      if (dir !== undefined) await refuseUnfit(slot, dir);
      recordSlot(home, robot.name, slot, dir);
      const now = robotSlots(robot, home)[slot];
      io.line(`${robot.name} ${slot}: ${printable(now.dir)} (${now.from}); its next run uses it`);
      return EXIT.ok;
    }
    const hint = sub === undefined ? '' : didYouMean(sub, ['list', 'load']);
    throw new UsageError(`policy: ${sub === undefined ? 'missing sub-command' : `unknown sub-command "${sub}"${hint}`}`, "see 'quackd policy --help'");
  },
};

/** A folder is taken only if a run could load it, and only into the slot it says it is for. */
async function refuseUnfit(slot: Slot, dir: string): Promise<void> {
  const { loadPolicy } = await import('../policy/load.js');
  const p = await loadPolicy(dir);
  await p.close();
  const says = p.manifest.slot;
  if (says !== undefined && says !== slot && !(slot === 'turn' && says === 'walk')) throw new InputError(`policy load: ${dir} is a ${says} policy (manifest.json slot), not ${slot}`);
}
