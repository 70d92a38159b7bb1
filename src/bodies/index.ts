/**
 * The body catalog: which `adapter:backend` keys exist, which verbs each can perform, and a lazy
 * loader per backend so `quackd ducks` never loads a simulator, serialport or onnxruntime.
 */
import { z } from 'zod';
import type { Slot } from '../policy/slots.js';
import type { Body, BodyKey, BodyOptions } from './body.js';
import { JSONRPC_VERBS, REFUSED, jsonRpcSettings, portPresent } from './microduck/jsonrpc/settings.js';
import { MUJOCO_METRICS, MUJOCO_VERBS, mujocoSettings } from './microduck/mujoco/settings.js';
import { twinTimingWarning } from './microduck/mujoco/timing.js';
import { BUS_METRICS, BUS_REFUSED, BUS_VERBS, busPortPresent, servoBusSettings } from './microduck/servo-bus/settings.js';
import type { ProtocolName } from '../servo-bus/packet.js';
import type { ManifestFile } from '../policy/manifest.js';
import { ALOHAMINI } from './alohamini/sim/profile.js';
import { DAEMON_METRICS, DAEMON_VERBS, daemonSettings } from './reachy-mini/daemon/settings.js';
import { LOOKOUT_METRICS } from './room/lookout-room.js';
import { roverVerbs, type RoverProfile } from './room/rover-profile.js';
import { TODDLERBOT } from './toddlerbot/sim/profile.js';
import { XLEROBOT } from './xlerobot/sim/profile.js';

export interface BodyEntry {
  readonly key: BodyKey;
  readonly description: string;
  /** Body verbs this backend performs (declare_* and memory verbs are the pilot's, not the body's). */
  readonly verbs: readonly string[];
  /** What metrics() reports: the names a duck's `success_when` may check. */
  readonly metrics: readonly string[];
  /** Verbs named by the body but not performed yet, with why: a duck that needs one is refused. */
  readonly pending?: Readonly<Record<string, string>>;
  /** Of those, the ones a robot's settings make performable (a `camera:` gives a real duck search_scan). */
  readonly performsWith?: (settings: Readonly<Record<string, unknown>>) => readonly string[];
  /** Metrics a robot's settings add to `metrics` (a `camera:` measures a kick's ball_displaced_m). */
  readonly measuresWith?: (settings: Readonly<Record<string, unknown>>) => readonly string[];
  /** A simulator whose layout `--seed` picks. */
  readonly seeded?: boolean;
  /** The robot's settings (fleet config and flags fill them), checked before anything opens. */
  readonly settings: z.ZodType<Record<string, unknown>>;
  /**
   * Opened for each run and closed after it (a simulator's world is the run's, seeded), rather
   * than held open by the runtime across runs (a serial link).
   */
  readonly perRun?: boolean;
  /**
   * Whether a held body's device is here now (its serial port exists), asked cheaply and often by
   * the service, which opens a held body that is not open again only once it is. Absent: always.
   */
  readonly present?: (settings: Readonly<Record<string, unknown>>) => boolean;
  /**
   * How a held body that stays open gets its lost link back, as health says it after `lost: `
   * (the jsonrpc link reopens its port by itself; a faulted servo bus is opened afresh by the next
   * run). Absent: as for a body that is closed, quackd opens it again once its port is back.
   */
  readonly linkBack?: string;
  /**
   * Whether a per-run body's far end (the daemon it is driven through) could drive it now:
   * undefined when it could, else why not in one line (it does not answer, its backend is stopped). The service asks it while the robot is idle, cheaply
   * and every few seconds, to show the robot offline; it moves nothing. Absent: nothing to ask.
   */
  readonly reach?: (settings: Readonly<Record<string, unknown>>, signal?: AbortSignal) => Promise<string | undefined>;
  /** Driven by skill policies in the control loop: has policy slots (src/policy/slots.ts). */
  readonly policies?: boolean;
  /** What in this body's settings differs from how a slot's policy was trained (one line), or undefined: health, `policy list` and a run's first lines say it. */
  readonly policyMismatch?: (settings: Readonly<Record<string, unknown>>, manifest: ManifestFile) => string | undefined;
  readonly load: (options: BodyOptions) => Promise<Body>;
  /**
   * What `quackd health` checks of the robot's model with these settings and policy folders
   * (`ok` false: the one line says what a run would refuse). Absent: the body has no model to check.
   */
  readonly checkModel?: (settings: Readonly<Record<string, unknown>>, policies: Readonly<Record<Slot, string>>) => Promise<{ readonly ok: boolean; readonly detail: string }>;
  /** What `quackd health` says of the robot's trunk IMU with these settings (reads only). Absent: the body has none of its own. */
  readonly checkImu?: (settings: Readonly<Record<string, unknown>>) => Promise<{ readonly status: 'ok' | 'warn' | 'fail'; readonly detail: string }>;
  /** What `quackd health` says of the daemon the robot is driven through (reachable, version, motors). Absent: none. */
  readonly checkDaemon?: (settings: Readonly<Record<string, unknown>>, signal?: AbortSignal) => Promise<{ readonly status: 'ok' | 'warn' | 'fail'; readonly detail: string }>;
  /** Optional: who holds the robot's camera now when another program may (Reachy's daemon), in words; undefined when it is free to open. */
  readonly cameraHolder?: (settings: Readonly<Record<string, unknown>>, signal?: AbortSignal) => Promise<string | undefined>;
}

export const DEFAULT_BODY: BodyKey = 'microduck:sim2d';

/** A simulator's settings: `camera: synthetic` gives it eyes that render its room (`snapshot`, and the detector where a verb looks). */
const SYNTHETIC_CAMERA = z.object({ camera: z.literal('synthetic').optional() }).strict();

/** A kinematic robot of the lookout room: seeded, opened per run, its verbs from its profile. */
function rover(profile: RoverProfile, description: string): BodyEntry {
  return {
    key: profile.key,
    description,
    verbs: roverVerbs(profile),
    metrics: LOOKOUT_METRICS,
    seeded: true,
    settings: SYNTHETIC_CAMERA,
    perRun: true,
    load: async (o) => (await import('./room/rover-body.js')).createRoverBody(profile, o),
  };
}

/** A duck whose Pi drives its servo bus itself (src/bodies/microduck/servo-bus). */
function servoBusDuck(protocol: ProtocolName, description: string): BodyEntry {
  return {
    key: `microduck:${protocol}`,
    description,
    verbs: BUS_VERBS,
    metrics: BUS_METRICS,
    pending: BUS_REFUSED,
    policies: true,
    settings: servoBusSettings,
    present: busPortPresent,
    // The body stays open but untrusted after a fault (bus-body.ts): the pool opens it afresh for its next run.
    linkBack: 'its next run or command opens it afresh',
    load: async (o) => (await import('./microduck/servo-bus/bus-body.js')).createBusBody(protocol, o),
    checkImu: async (settings) => (await import('./microduck/servo-bus/imu-check.js')).checkBusImu(settings),
  };
}

const entries: readonly BodyEntry[] = [
  {
    key: 'microduck:sim2d',
    description: 'Microduck in a deterministic 2D living room (walls, a sofa, a ball)',
    verbs: ['search_scan', 'turn', 'walk', 'kick', 'quack', 'torque'],
    metrics: ['ball_displaced_m', 'quacks', 'tilt_deg', 'torque'],
    seeded: true,
    // `camera: synthetic`: search_scan looks through a rendered camera and the colour detector, as a real duck would.
    settings: SYNTHETIC_CAMERA,
    perRun: true,
    load: async (o) => (await import('./microduck/sim2d/sim2d-body.js')).createSim2dBody(o),
  },
  {
    key: 'microduck:mujoco',
    description: "Microduck's physics twin (MuJoCo) in sim2d's living room, walking and kicking by its policies",
    verbs: MUJOCO_VERBS,
    metrics: MUJOCO_METRICS,
    seeded: true,
    settings: mujocoSettings,
    perRun: true,
    policies: true,
    policyMismatch: twinTimingWarning,
    load: async (o) => (await import('./microduck/mujoco/mujoco-body.js')).createMujocoBody(o),
    checkModel: async (settings, policies) => (await import('./microduck/mujoco/model-check.js')).checkTwinModel(settings, policies),
  },
  {
    key: 'microduck:jsonrpc',
    description: 'a real Microduck over USB serial (quackd-fw); needs --port, e.g. /dev/serial/by-id/usb-…',
    verbs: JSONRPC_VERBS,
    // Only what describes this run or the robot now: the firmware's counters run from its boot, so
    // `firmware_quacks` and `targets_applied` are reported in frames but never checkable.
    metrics: ['quacks', 'battery_v', 'tilt_deg', 'torque', 'link_crc_errors', 'link_dropped_frames'],
    pending: REFUSED,
    performsWith: (settings) => (settings['camera'] !== undefined ? ['search_scan'] : []),
    measuresWith: (settings) => (settings['camera'] !== undefined ? ['ball_displaced_m'] : []),
    policies: true,
    settings: jsonRpcSettings,
    present: portPresent,
    // tty.ts reopens the port when it comes back; report.ts says the link up at the firmware's first state.
    linkBack: 'quackd reopens its port once it is back; up again when the firmware answers',
    load: async (o) => (await import('./microduck/jsonrpc/jsonrpc-body.js')).createJsonRpcBody(o),
  },
  servoBusDuck('feetech', 'Open Duck Mini v2: Feetech STS3215 servos driven from the Pi (USB bus adapter, 1 Mbaud); needs --port'),
  servoBusDuck('dynamixel', 'an XL330 duck: Dynamixel 2.0 servos driven from the Pi (U2D2 or alike, 1 Mbaud); needs --port'),
  {
    key: 'reachy-mini:mock',
    description: "Reachy Mini on a desk in the lookout room: head within the robot's published limits (clamped, and said), body yaw, antennas, a camera",
    verbs: ['look', 'turn_body', 'antennas', 'look_around', 'report', 'quack'],
    metrics: LOOKOUT_METRICS,
    seeded: true,
    settings: SYNTHETIC_CAMERA,
    perRun: true,
    load: async (o) => (await import('./reachy-mini/mock/reachy-body.js')).createReachyMiniBody(o),
  },
  {
    key: 'reachy-mini:daemon',
    description: "a real Reachy Mini (or its simulation) through Pollen's daemon at base_url (default http://localhost:8000): the mock's verbs and limits, torque by its motor modes; its camera with a camera: setting",
    verbs: DAEMON_VERBS,
    metrics: DAEMON_METRICS,
    settings: daemonSettings,
    // An HTTP client holds nothing open between runs; each run asks the daemon afresh.
    perRun: true,
    load: async (o) => (await import('./reachy-mini/daemon/daemon-body.js')).createDaemonBody(o),
    reach: async (settings, signal) => (await import('./reachy-mini/daemon/daemon-check.js')).daemonReach(settings, signal),
    checkDaemon: async (settings, signal) => (await import('./reachy-mini/daemon/daemon-check.js')).checkDaemon(settings, signal),
    cameraHolder: async (settings, signal) => (await import('./reachy-mini/daemon/daemon-check.js')).daemonCameraHolder(settings, signal),
  },
  rover(XLEROBOT, 'XLeRobot in the lookout room (kinematic): a wheeled base, two arms, a pan/tilt head camera; quacks by clapping its grippers'),
  rover(ALOHAMINI, 'AlohaMini in the lookout room (kinematic): a mobile base with two arms, a front camera; quacks by snapping its grippers'),
  rover(TODDLERBOT, 'ToddlerBot in the lookout room (kinematic): a small humanoid that walks, with a head camera on a neck, and a speaker'),
];

export function listBodies(): readonly BodyEntry[] {
  return entries;
}

/** Why `body` does not perform `verb` yet (as a robot with these settings, when known), or undefined when it does. */
export function pendingReason(body: BodyEntry, verb: string, settings?: Readonly<Record<string, unknown>>): string | undefined {
  if (settings !== undefined && body.performsWith?.(settings).includes(verb) === true) return undefined;
  return body.pending?.[verb];
}

/** What `body` measures (as a robot with these settings, when known). */
export function measuredMetrics(body: BodyEntry, settings?: Readonly<Record<string, unknown>>): readonly string[] {
  return settings === undefined || body.measuresWith === undefined ? body.metrics : [...body.metrics, ...body.measuresWith(settings)];
}

/** The verbs `body` performs now: its verbs less those it names but does not perform yet. */
export function performedVerbs(body: BodyEntry, settings?: Readonly<Record<string, unknown>>): string[] {
  return body.verbs.filter((v) => pendingReason(body, v, settings) === undefined);
}

/**
 * What one robot performs and measures: its body's verbs and metrics as its settings make them (a
 * `camera:` gives a real duck search_scan and ball_displaced_m). Every door checks a duck against
 * this, so a run started from the CLI, the service, MQTT or MCP is accepted or refused alike.
 */
export interface RobotCan {
  readonly verbs: readonly string[];
  readonly metrics: readonly string[];
}

export function robotCan(body: BodyEntry, settings: Readonly<Record<string, unknown>>): RobotCan {
  return { verbs: performedVerbs(body, settings), metrics: measuredMetrics(body, settings) };
}

export function findBody(key: string): BodyEntry | undefined {
  return entries.find((e) => e.key === key);
}
