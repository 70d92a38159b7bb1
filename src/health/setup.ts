/**
 * What the checks share, loaded once before they run: the config file, read as every command
 * reads it, and the robot `--robot` names, resolved as a run resolves it. A config that does not
 * load is the config check's failure, not the command's; a robot the fleet does not know is a
 * typo, refused in one line like any other command's.
 */
import { DEFAULT_BODY, findBody } from '../bodies/index.js';
import { loadConfigFile } from '../config/file.js';
import { InputError, QuackdError } from '../errors.js';
import { AmbiguousRobot, Fleet, RobotSettingsError, UnknownRobot, type Robot } from '../runtime/fleet.js';
import type { HealthSetup } from './check.js';

/** A body key with no fleet entry: a robot of that body with no settings of its own. */
function bare(key: string): Robot | undefined {
  const entry = findBody(key);
  return entry === undefined ? undefined : { name: entry.key, key: entry.key, entry, settings: {}, sources: {} };
}

/**
 * The setup for `robot` (a fleet name or a body key). Unnamed: the fleet's robot when it has one
 * alone (a Pi with its duck configured checks that duck, not the simulator), else the simulator,
 * as for a run.
 */
export async function loadHealthSetup(env: NodeJS.ProcessEnv, named?: string): Promise<HealthSetup> {
  const config = await loadConfigFile(env).catch((err: unknown) => {
    if (err instanceof QuackdError) return err;
    throw err;
  });
  if (config instanceof QuackdError) return { ok: false, problem: config.message };
  const fleet = new Fleet(config.config.robots ?? {});
  const robot = named ?? fleet.sole()?.name ?? DEFAULT_BODY;
  try {
    return { ok: true, config, robot: fleet.resolve(robot) };
  } catch (err) {
    if (err instanceof AmbiguousRobot) throw new InputError(`--robot: ${err.message}`, `e.g. --robot ${err.robots[0] ?? ''}`);
    if (err instanceof UnknownRobot) throw new InputError(`--robot: ${err.message}`, "'quackd config check' lists the fleet, 'quackd bodies' the bodies");
    // The file may leave a setting (the port) to a run's flag: the robot is still checkable.
    const base = err instanceof RobotSettingsError && err.problem === 'missing' ? (fleet.get(err.robot) ?? bare(err.robot)) : undefined;
    if (base !== undefined && err instanceof RobotSettingsError) return { ok: true, config, robot: base, missing: err.setting };
    if (err instanceof RobotSettingsError) return { ok: false, problem: err.message };
    throw err;
  }
}
