/** `config`: the config file parses and the robot under check resolves (setup.ts loaded both). */
import { robotLabel } from '../runtime/fleet.js';
import { fail, ok, warn, type HealthCheck } from './check.js';

export const configCheck: HealthCheck = {
  name: 'config',
  run({ setup }) {
    if (!setup.ok) return Promise.resolve(fail(setup.problem));
    const { config, robot, missing } = setup;
    const file = config.exists ? config.path : `${config.path} (absent: built-in defaults)`;
    const which = robotLabel(robot.name, robot.key);
    // A run can still give the setting as a flag; a service, which has no flags, could not.
    if (missing !== undefined) return Promise.resolve(warn(`${file} · robot ${which} needs a ${missing}: a run must give --${missing}`));
    return Promise.resolve(ok(`${file} · robot ${which}`));
  },
};
