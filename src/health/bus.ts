/**
 * `bus`, for a duck whose Pi drives its servo bus (microduck:feetech, microduck:dynamixel): every
 * servo of the joint table read once, over the robot's port, and these lines follow it: `latency`
 * (an adapter's latency timer, bus-latency.ts, where it has one or refused low latency), `servos`
 * (each the model the body drives, no alarm bit), `servo power` (voltage and temperature as the
 * servos read them, against each servo's own limits), `torque` (on with no quackd holding the
 * bus is a warning: a Feetech servo holds its last goal after quackd is killed) and `pose` (each joint's distance from the home
 * pose through the table's offsets: `ok` within 0.02 rad, what `quackd calibrate` leaves a duck
 * held still). Reads only: no servo moves and no register changes. A port another program holds
 * (a running `quackd serve`) is not read here; the service's own lines say how its robot is.
 */
import { existsSync } from 'node:fs';
import { BridgeError, PortError } from '../bridge/errors.js';
import type { LowLatency } from '../bridge/low-latency.js';
import { latencyTimerMs, slowAdapterHint } from '../bridge/latency-timer.js';
import { BUS_SERVO_MODEL, OPEN_DUCK_MINI_V2, servoLabel } from '../bodies/microduck/servo-bus/joint-table.js';
import { busProtocolOf, servoBusSettings } from '../bodies/microduck/servo-bus/settings.js';
import { DID_NOT_ANSWER, lookProblem, poseErrors, type JointError, type ServoLook } from '../bodies/microduck/servo-bus/servo-look.js';
import type { ServoSurvey } from '../bodies/microduck/servo-bus/survey.js';
import { standingHome, type StandingHome } from '../bodies/microduck/servo-bus/standing-home.js';
import type { ProtocolName } from '../servo-bus/packet.js';
import { idRanges } from '../servo-bus/scan.js';
import { silentBusHint } from '../servo-bus/usual-bauds.js';
import { plural } from '../text/plural.js';
import type { Robot } from '../runtime/fleet.js';
import { latencyLine } from './bus-latency.js';
import { fail, forRobot, ok, warn, type HealthCheck, type HealthReport, type HealthResult } from './check.js';

/** Within this of home on every joint, a duck standing in its home pose is calibrated. */
export const POSE_WITHIN_RAD = 0.02;

const span = (xs: readonly number[], digits: number, unit: string): string => {
  const lo = Math.min(...xs).toFixed(digits);
  const hi = Math.max(...xs).toFixed(digits);
  return lo === hi ? `${lo} ${unit}` : `${lo}–${hi} ${unit}`;
};

const line = (check: string, r: HealthReport): HealthResult => ({ check, ...r });

function servosLine(read: readonly ServoLook[], protocol: ProtocolName): HealthResult {
  const wrong = read.filter((l) => !l.expected).map((l) => lookProblem(l, protocol) ?? servoLabel(l.joint));
  const alarmed = read.filter((l) => l.alarms.length > 0).map((l) => `${servoLabel(l.joint)} reports ${l.alarms.join(', ')}`);
  if (wrong.length + alarmed.length > 0) return line('servos', fail([...wrong, ...alarmed].join('; ')));
  return line('servos', ok(`${plural(read.length, BUS_SERVO_MODEL[protocol])}, no alarm`));
}

/** `read` are the servos whose registers were read; the others of `all` are named as not read, never counted as off. */
function torqueLine(read: readonly ServoLook[], all: readonly ServoLook[], robot: string): HealthResult {
  const unread = all.filter((l) => !read.includes(l)).map((l) => servoLabel(l.joint));
  const notRead = unread.length > 0 ? ` · not read: ${unread.join(', ')}` : '';
  const every = unread.length === 0 ? 'every servo' : `the ${plural(read.length, 'servo')} read`;
  const on = read.filter((l) => l.torque === true);
  if (on.length === 0) return line('torque', unread.length === 0 ? ok('off on every servo (limp)') : warn(`off on ${every} (limp)${notRead}`));
  const which = on.length === read.length ? every : on.map((l) => servoLabel(l.joint)).join(', ');
  // The port opened, so no quackd holds the bus: nothing drives these servos.
  return line('torque', warn(`on in ${which} with no quackd holding the bus: they hold their last goal (a quackd killed with kill -9?) · quackd torque ${robot} off${notRead}`));
}

/** Within this of a servo's own voltage limit is a warning: a battery sags under a walk's load, and the servo cuts out at its limit. */
const NEAR_VOLTAGE_V = 0.5;
/** Within this under a servo's own temperature limit is a warning: at the limit it raises overheat and lets go. */
const NEAR_TEMPERATURE_C = 5;

/** Voltage and temperature as the servos read them, each judged against the servo's own limits (its EEPROM's). */
function powerLine(read: readonly ServoLook[]): HealthResult {
  const reading = `${span(read.map((l) => l.voltage ?? 0), 1, 'V')} · ${span(read.map((l) => l.temperature ?? 0), 0, '°C')}`;
  const over: string[] = [];
  const near: string[] = [];
  for (const l of read) {
    const { limits: lim, temperature: t = 0 } = l;
    // To the register's 0.1 V, so 4.5 V is 0.5 V over 4.0 V, not a hair under.
    const v = Math.round((l.voltage ?? 0) * 10) / 10;
    // A limit of 0 is one never set (or a servo that does not keep one): nothing to judge by.
    if (lim === undefined || lim.maxVoltage === 0 || lim.temperature === 0) continue;
    const who = servoLabel(l.joint);
    const volts = `${who} at ${v.toFixed(1)} V`;
    if (v < lim.minVoltage || v > lim.maxVoltage) over.push(`${volts}, outside its ${lim.minVoltage.toFixed(1)}–${lim.maxVoltage.toFixed(1)} V`);
    else if (v - lim.minVoltage <= NEAR_VOLTAGE_V || lim.maxVoltage - v <= NEAR_VOLTAGE_V) near.push(`${volts}, near its ${lim.minVoltage.toFixed(1)}–${lim.maxVoltage.toFixed(1)} V`);
    if (t >= lim.temperature) over.push(`${who} at ${t.toFixed(0)} °C, at or over its ${lim.temperature.toFixed(0)} °C limit`);
    else if (lim.temperature - t <= NEAR_TEMPERATURE_C) near.push(`${who} at ${t.toFixed(0)} °C, near its ${lim.temperature.toFixed(0)} °C limit`);
  }
  const said = [...over, ...near].join('; ');
  if (over.length > 0) return line('servo power', fail(`${reading} · ${said}`));
  if (near.length > 0) return line('servo power', warn(`${reading} · ${said}`));
  return line('servo power', ok(reading));
}

function poseLine(looks: readonly ServoLook[], robot: string, home: StandingHome): HealthResult | undefined {
  const known = poseErrors(looks, home.pose).filter((e): e is JointError & { error: number } => e.error !== undefined);
  if (known.length === 0) return undefined;
  const of = known.length < looks.length ? ` (${known.length} of ${looks.length} joints read)` : '';
  const worst = known.reduce((w, e) => (Math.abs(e.error) > Math.abs(w.error) ? e : w));
  const over = known.filter((e) => Math.abs(e.error) > POSE_WITHIN_RAD);
  const max = `max ${Math.abs(worst.error).toFixed(4)} rad (${worst.joint.name})`;
  if (over.length === 0) return line('pose', ok(`every joint within ${POSE_WITHIN_RAD} rad of home (${home.from}) · ${max}${of}`));
  const listed = over.map((e) => `${e.joint.name} ${e.error >= 0 ? '+' : '−'}${Math.abs(e.error).toFixed(3)}`).join(', ');
  return line('pose', warn(`${plural(over.length, 'joint')} over ${POSE_WITHIN_RAD} rad from home: ${listed}${of} · standing in its home pose? then quackd calibrate --robot ${robot}`));
}

async function look(robot: Robot, protocol: ProtocolName, home: StandingHome, signal: AbortSignal): Promise<HealthReport> {
  const parsed = servoBusSettings.safeParse(robot.settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return warn(`not checked: ${issue?.path[0] === 'port' ? `${robot.name} has no port in the config (a run gives --port)` : `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`}`);
  }
  const s = parsed.data;
  const head = `${protocol} at ${s.baud} baud on ${s.port}`;
  if (!existsSync(s.port)) return fail(`${s.port} is not there: is the bus adapter plugged in?`);
  // The adapter's timer comes from sysfs, which needs no open: it is said of a held port too.
  const latencyOf = (lowLatency: LowLatency | undefined): HealthResult | undefined => latencyLine({ port: s.port, lowLatency, timerMs: latencyTimerMs(s.port), busTimeoutMs: s.bus_timeout_ms });
  const surveys = await import('../bodies/microduck/servo-bus/survey.js');
  let survey: ServoSurvey;
  try {
    survey = await surveys.ServoSurvey.open(protocol, { port: s.port, baud: s.baud, timeoutMs: s.bus_timeout_ms });
  } catch (err) {
    if (!(err instanceof BridgeError)) throw err;
    if (err instanceof PortError && err.trouble === 'held') {
      const latency = latencyOf(undefined);
      return { ...warn(`${s.port} is held by another program (quackd serve holding ${robot.name}?): not read here`), ...(latency !== undefined ? { entries: [latency] } : {}) };
    }
    return fail(`${err.message}${err.hint !== undefined ? ` (${err.hint})` : ''}`);
  }
  const stop = (): void => void survey.close();
  signal.addEventListener('abort', stop, { once: true });
  const latency = latencyOf(survey.lowLatency);
  let looks: ServoLook[];
  try {
    looks = await survey.look(s.joints ?? OPEN_DUCK_MINI_V2);
  } catch (err) {
    if (signal.aborted) return fail('no answer in time');
    return fail(`${head} · the bus failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    signal.removeEventListener('abort', stop);
    await survey.close();
  }
  const silent = looks.filter((l) => l.problem !== undefined);
  const read = looks.filter((l) => l.problem === undefined);
  const expected = read.filter((l) => l.expected);
  const entries: HealthResult[] = latency !== undefined ? [latency] : [];
  if (read.length > 0) entries.push(servosLine(read, protocol));
  if (expected.length > 0) {
    entries.push(powerLine(expected));
    entries.push(torqueLine(expected, looks, robot.name));
  }
  const pose = poseLine(looks, robot.name, home);
  if (pose !== undefined) entries.push(pose);
  // Not one answered: the bus is said once, with what to try (the other protocol, the usual baud), not each servo.
  const none = read.length === 0 && looks.length > 0 && looks.every((l) => l.problem === DID_NOT_ANSWER);
  const nobody = `no ${protocol} servo answered (ids ${idRanges(looks.map((l) => l.joint.id))}): ${slowAdapterHint(s.port, s.bus_timeout_ms) ?? silentBusHint(protocol, s.port, s.baud, `robots.${robot.name}.baud`)}`;
  const answering = silent.length === 0 ? `all ${looks.length} servos of the joint table answer` : none ? nobody : `${read.length} of ${looks.length} servos answer; ${silent.map((l) => lookProblem(l, protocol)).join('; ')}`;
  return { ...(silent.length === 0 ? ok(`${head} · ${answering}`) : fail(`${head} · ${answering}`)), entries };
}

export const busCheck: HealthCheck = {
  name: 'bus',
  applies: ({ setup }) => setup.ok && busProtocolOf(setup.robot.key) !== undefined,
  run: (ctx, signal) => forRobot(ctx, (robot) => look(robot, busProtocolOf(robot.key) ?? 'feetech', standingHome(robot, ctx.dataDir), signal)),
};
