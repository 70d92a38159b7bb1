/**
 * `quackd torque ROBOT on|off`: a robot's motors on (holding the pose they find) or off (limp), as
 * a one-step run of the `torque` verb through the safety executor: on is a motion on a real body,
 * asked of a person first (--yes to allow); off is a stop that no gate holds. Through the running
 * service when there is one (off then ends the robot's run first, as a stop does); here otherwise.
 * The step line says what the firmware read back.
 */
import { parseFlags } from '../cli/args.js';
import { UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/invocation.js';
import { printable } from '../cli/output.js';
import { followThroughService, serviceGates } from '../cli/service-run.js';
import type { BodyEntry } from '../bodies/index.js';
import { busProtocolOf } from '../bodies/microduck/servo-bus/settings.js';
import { checkVerbForBody } from '../ducks/check.js';
import { torqueDuckName, torqueDuckText } from '../service/torque.js';
import type { Command } from './command.js';
import { finish, linkSettings, playHere, refuseLinkFlags, serviceBody } from './one-verb.js';

const flags = {
  port: { type: 'string' },
  baud: { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  json: { type: 'boolean' },
  local: { type: 'boolean' },
} as const;

const help = `usage: quackd torque ROBOT on|off [options]

Switches the robot's motors on (they hold the pose they find) or off (limp: a standing duck
falls), as a one-step run of the torque verb through the safety executor, transcripted as any
run. On a real body torque on is a motion and asks a person first (--yes to allow); torque off is
a stop and is never asked about. The step line says what the firmware read back. A simulator
keeps torque as state.

options:
  --yes, -y                switch torque on without asking
  --json                   print the outcome as one JSON object (no step line)
  --port PATH, --baud N    the serial link of a real body (microduck:jsonrpc), without a service
                           (torque off only: on needs the service's heartbeat to stay on)
  --local                  run in this process even when a 'quackd serve' is running

When a 'quackd serve' is running it goes through it, and torque off ends the robot's run first
(interrupted — stopped by torque off).

examples:
  quackd torque kitchen-duck off
  quackd torque kitchen-duck on --yes
  quackd torque microduck:jsonrpc off --port /dev/serial/by-id/usb-…-if00`;

const SWITCH: Readonly<Record<string, boolean>> = { on: true, off: false };

/** The torque verb is one the body performs (when the body is known here). */
function duckText(on: boolean, body: BodyEntry): string {
  checkVerbForBody('torque:', 'torque', body, true);
  return torqueDuckText(on, body);
}

/** Why torque switched on here would not outlast this command, in the body's own terms. */
function notHeldAfterExit(body: BodyEntry): { what: string; why: string; serve: string } {
  const bus = { what: 'bus', serve: 'it holds the bus' };
  switch (busProtocolOf(body.key)) {
    case 'dynamixel':
      return { ...bus, why: "quackd turns torque off as this command exits, and the servos' Bus Watchdog would stop them 100 ms after it" };
    case 'feetech':
      // No watchdog on an STS: left on, the servos would hold their last goal with nothing driving them.
      return { ...bus, why: 'quackd turns torque off as this command exits: Feetech servos have no watchdog, and left on they would hold their last goal' };
    default:
      return { what: 'link', why: "the firmware's watchdog cuts torque as soon as this command exits", serve: 'it holds the link and the heartbeat' };
  }
}

export const torqueCommand: Command = {
  name: 'torque',
  help,
  async run(argv: readonly string[], invocation: Invocation): Promise<number> {
    const { io, env, stdin } = invocation;
    const { flags: f, positionals } = parseFlags('torque', argv, flags);
    const [robot, word, ...rest] = positionals;
    if (robot === undefined || word === undefined || rest.length > 0) throw new UsageError('torque: name the robot and say on or off', 'e.g. quackd torque kitchen-duck off');
    const on = SWITCH[word.toLowerCase()];
    if (on === undefined) throw new UsageError(`torque: "${printable(word)}" is not on or off`, 'e.g. quackd torque kitchen-duck off');
    const yes = f.yes === true;
    const json = f.json === true;

    const service = f.local === true ? undefined : await serviceBody(robot, env);
    if (service !== undefined) {
      refuseLinkFlags('torque', f, service.pid);
      if (service.body !== undefined) duckText(on, service.body);
      const run = await followThroughService({ op: 'torque', robot, on, gates: serviceGates(yes, stdin) }, json, io, env, stdin);
      if (run !== undefined) return finish(io, run.report, json, run.signalCode);
    }
    const here = (body: BodyEntry): string => {
      // Torque on lasts only while a quackd holds the body, and this process ends now.
      if (on && body.seeded !== true) {
        const held = notHeldAfterExit(body);
        throw new UsageError(`torque: on needs a running quackd serve to hold ${printable(robot)}'s ${held.what}: ${held.why}`, `start quackd serve (${held.serve}), then quackd torque ROBOT on`);
      }
      return duckText(on, body);
    };
    return playHere({ command: 'torque', duck: torqueDuckName(on), robot, duckText: here, settings: linkSettings(f), dryRun: false, yes, json }, invocation);
  },
};
