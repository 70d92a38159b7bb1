/**
 * `quackd calibrate --robot R`: a servo-bus duck's joint offsets from the pose a person holds it
 * in (src/bodies/microduck/servo-bus/calibration.ts), written into the robot's entry of the
 * config file with the old file kept. Nothing moves: the only write on the bus is torque off.
 */
import { basename, dirname } from 'node:path';
import { parseFlags } from '../cli/args.js';
import { EXIT, InputError, RuntimeError, UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/invocation.js';
import type { Output } from '../cli/output.js';
import { BridgeError } from '../bridge/errors.js';
import { BUS_SERVO_MODEL, OPEN_DUCK_MINI_V2, signedRad as signed, type JointRow } from '../bodies/microduck/servo-bus/joint-table.js';
import { slowAdapterHint } from '../bridge/latency-timer.js';
import { busProtocolOf, servoBusSettings, type ServoBusSettings } from '../bodies/microduck/servo-bus/settings.js';
import type { CalibrationResult, JointCalibration } from '../bodies/microduck/servo-bus/calibration.js';
import { SilentBusError } from '../servo-bus/errors.js';
import { idRanges } from '../servo-bus/scan.js';
import { silentBusHint } from '../servo-bus/usual-bauds.js';
import { loadConfigFile } from '../config/file.js';
import { dataDir } from '../config/paths.js';
import { standingHome } from '../bodies/microduck/servo-bus/standing-home.js';
import { AmbiguousRobot, Fleet, RobotSettingsError, UnknownRobot, robotLabel, type Robot } from '../runtime/fleet.js';
import { ttyGate } from '../safety/gate.js';
import type { Command } from './command.js';

/** The pose error health calls ok (src/health/bus.ts): a calibrated duck held still reads well inside it. */
const WITHIN_RAD = 0.02;

const help = `usage: quackd calibrate --robot NAME [--yes] [--json]

Sets a servo-bus duck's joint offsets (microduck:feetech, microduck:dynamixel) from the pose you
hold it in. Nothing moves: torque goes off on every servo (read back: a standing duck goes limp,
so hold it; when torque reads on, it asks you to hold the duck before it goes off), you hold the
duck in its home pose (standing as a walk starts: hips and knees bent, head level) and confirm,
quackd reads every servo and writes each joint's offset into the
robot's joints: in the config file (the old file kept as config.yaml.bak-<time>), then reads the
servos again and shows how far each joint is from home (rad). Only torque off is ever written to
a servo: never a goal, never torque on. A servo that does not answer, or is another model, is
named and the config is left as it was (exit 3).

options:
  --robot NAME   a robot of the fleet whose body is microduck:feetech or microduck:dynamixel
  --yes, -y      the duck is held already: ask no confirmation (needed without a terminal)
  --json         one JSON object on stdout: the offsets, the old ones and each joint's error

example: quackd calibrate --robot duck`;

const TRY = "see 'quackd calibrate --help'";

const notInFleet = (key: string, path: string): InputError =>
  new InputError(`calibrate: ${key} is not a robot of your fleet (${path}): the offsets are written into its entry there`, `add one: robots: { duck: { body: ${key}, port: /dev/serial/by-id/… } }`);

function resolve(fleet: Fleet, name: string, path: string): Robot {
  try {
    return fleet.resolve(name);
  } catch (err) {
    if (err instanceof AmbiguousRobot) throw new InputError(`--robot: ${err.message}`, `e.g. --robot ${err.robots[0] ?? ''}`);
    if (err instanceof UnknownRobot) throw new InputError(`--robot: ${err.message}`, "'quackd config check' lists the fleet");
    if (err instanceof RobotSettingsError && fleet.get(err.robot) === undefined) throw notInFleet(err.robot, path);
    if (err instanceof RobotSettingsError) throw new InputError(`calibrate: ${err.message} in ${path}`, err.setting === 'port' ? `add port: /dev/serial/by-id/… to robots.${err.robot}` : undefined);
    throw err;
  }
}

/** The robot's entry in the config file: the offsets are written there, so it must be one. */
async function fleetRobot(env: NodeJS.ProcessEnv, name: string): Promise<{ robot: Robot; path: string; settings: ServoBusSettings }> {
  const config = await loadConfigFile(env);
  const robot = resolve(new Fleet(config.config.robots ?? {}), name, config.path);
  if (busProtocolOf(robot.key) === undefined) throw new UsageError(`calibrate: ${robotLabel(robot.name, robot.key)} has no servo bus: only microduck:feetech and microduck:dynamixel ducks are calibrated here`);
  if (robot.name === robot.key) throw notInFleet(robot.key, config.path);
  return { robot, path: config.path, settings: servoBusSettings.parse(robot.settings) };
}

/** A bus where not one servo answered: an adapter that holds replies past the wait, then the rate when it is not one servos ship at, else power and protocol; bus scan tries others without a write. */
function silentBus(err: SilentBusError, name: string, path: string, waitMs: number): RuntimeError {
  const { protocol, port, baud, ids } = err;
  const hint = slowAdapterHint(port, waitMs) ?? silentBusHint(protocol, port, baud, `robots.${name}.baud`, path);
  return new RuntimeError(`calibrate: ${err.message} (ids ${idRanges(ids)}): nothing written, the config is as it was`, hint);
}

function worst(joints: readonly JointCalibration[]): JointCalibration | undefined {
  return joints.reduce<JointCalibration | undefined>((w, j) => (j.error !== undefined && (w?.error === undefined || Math.abs(j.error) > Math.abs(w.error)) ? j : w), undefined);
}

function print(io: Output, r: Extract<CalibrationResult, { saved: true }>, path: string): void {
  io.line(io.dim(`  ${'joint'.padEnd(16)}  ${'servo'.padStart(5)}  ${'offset rad'.padStart(10)}  ${'was'.padStart(8)}  ${'error rad'.padStart(9)}`));
  for (const j of r.joints) {
    const error = j.error === undefined ? 'not read' : Math.abs(j.error).toFixed(4);
    const over = j.error !== undefined && Math.abs(j.error) > WITHIN_RAD ? io.yellow('  moved while read?') : '';
    io.line(`  ${j.joint.name.padEnd(16)}  ${String(j.joint.id).padStart(5)}  ${signed(j.joint.offset).padStart(10)}  ${signed(j.previous).padStart(8)}  ${error.padStart(9)}${over}`);
  }
  const w = worst(r.joints);
  // A symlinked config is written at its target, and its backup kept there: then the backup is said whole.
  const kept = r.backup !== undefined ? ` (the old file kept beside it as ${dirname(r.backup) === dirname(path) ? basename(r.backup) : r.backup})` : '';
  io.line(`offsets written to ${path}${kept} · max error ${Math.abs(w?.error ?? 0).toFixed(4)} rad${w !== undefined ? ` (${w.joint.name})` : ''}`);
}

export const calibrateCommand: Command = {
  name: 'calibrate',
  help,
  async run(argv: readonly string[], { io, env, stdin }: Invocation): Promise<number> {
    const { flags, positionals, help: asked } = parseFlags('calibrate', argv, { robot: { type: 'string' }, yes: { type: 'boolean', short: 'y' }, json: { type: 'boolean' } });
    if (asked) {
      io.line(help);
      return EXIT.ok;
    }
    if (positionals.length > 0) throw new UsageError(`calibrate: unexpected argument "${positionals[0] ?? ''}"`, TRY);
    const name = flags.robot;
    if (name === undefined || name === '') throw new UsageError('calibrate: --robot is required', 'e.g. quackd calibrate --robot duck');
    const yes = flags.yes === true;
    const json = flags.json === true;
    // Refused before anything is sent: torque off makes a standing duck fall, and nobody would be asked to hold it.
    if (!yes && stdin.isTTY !== true) throw new UsageError('calibrate: it waits while you hold the duck in its home pose, and there is no terminal to wait on', 'add --yes when the duck is held already');
    const { robot, path, settings } = await fleetRobot(env, name);
    const protocol = busProtocolOf(robot.key) ?? 'feetech';
    const joints: readonly JointRow[] = settings.joints ?? OPEN_DUCK_MINI_V2;
    const link = { port: settings.port, baud: settings.baud, timeoutMs: settings.bus_timeout_ms };
    if (!json) io.line(`calibrate ${robotLabel(robot.name, robot.key)} · ${joints.length} ${BUS_SERVO_MODEL[protocol]} on ${settings.port} · ${protocol} at ${settings.baud} baud`);
    const home = standingHome(robot, dataDir(env));
    if (!json) io.line(io.dim(`home: ${home.from} pose`));
    const holding = `hold ${robot.name} in its home pose (standing as a walk starts: hips and knees bent, head level)`;
    const { calibrate } = await import('../bodies/microduck/servo-bus/calibration.js');
    const { assertWritable, writeRobotJoints } = await import('../config/robot-joints.js');
    // Before torque goes off: a person who held the duck for nothing would not thank us.
    await assertWritable(path, robot.name);
    let result: CalibrationResult;
    try {
      result = await calibrate({
        robot: robot.name,
        protocol,
        link,
        joints,
        home: home.pose,
        letGo: async (count) => {
          const falls = `torque is on in ${count === joints.length ? `all ${count}` : count} servos, and turning it off lets a standing duck fall: hold ${robot.name} now`;
          if (yes) {
            if (!json) io.line(`${falls}: --yes, taken as held`);
            return true;
          }
          return (await ttyGate(stdin, io.err).confirm(falls)).allowed;
        },
        hold: async () => {
          if (!json) io.line('torque off: read back from every servo');
          if (yes) {
            if (!json) io.line(`${holding}: --yes, taken as held`);
            return true;
          }
          return (await ttyGate(stdin, io.err).confirm(holding)).allowed;
        },
        save: async (rows) => {
          const backup = await writeRobotJoints(path, robot.name, rows);
          // What a run will now read: the file as written, through the same schema.
          return { backup, rows: (await fleetRobot(env, robot.name)).settings.joints ?? rows };
        },
      });
    } catch (err) {
      if (err instanceof BridgeError) throw new RuntimeError(`calibrate: ${err.message}: nothing written, the config is as it was`, err.hint);
      if (err instanceof SilentBusError) throw silentBus(err, robot.name, path, link.timeoutMs);
      throw err;
    }
    if (!result.saved) {
      const torque = result.torque === 'off' ? 'torque is off' : 'nothing sent to a servo: torque is still on';
      io.err.write(`quackd: calibrate: not confirmed: nothing written, the config is as it was (${torque})\n`);
      return EXIT.failure;
    }
    if (json) {
      const w = worst(result.joints);
      io.line(
        JSON.stringify({
          robot: robot.name,
          port: settings.port,
          config: path,
          backup: result.backup ?? null,
          joints: result.joints.map((j) => ({ name: j.joint.name, id: j.joint.id, offset: j.joint.offset, previous: j.previous, error_rad: j.error ?? null, ...(j.otherDirection !== undefined ? { other_direction_offset: j.otherDirection } : {}) })),
          max_error_rad: w?.error !== undefined ? Math.abs(w.error) : null,
        }),
      );
    } else print(io, result, path);
    for (const j of result.joints) {
      if (j.otherDirection === undefined) continue;
      const d = j.joint.direction;
      io.err.write(`quackd: warning: ${j.joint.name}'s offset ${signed(j.joint.offset)} rad is more than a horn a few teeth off; with direction ${-d} it would be ${signed(j.otherDirection)}: is its direction in joints: right? (a joint turning the wrong way walks mirrored)\n`);
    }
    return EXIT.ok;
  },
};
