/**
 * The Body interface: every robot quackd drives (simulated, mocked or real) sits behind it.
 * A body only ever receives intents that the safety layer already admitted; it never sees raw
 * model text. Keep behaviour out of this file: backends live in bodies/<adapter>/<backend>/.
 */

import type { Camera } from '../camera/camera.js';
import type { EventBus } from '../runtime/events.js';
import type { BallLook } from '../vision/ball.js';
import type { BodyIntent } from '../verbs/intent.js';

/** `adapter:backend`, e.g. `microduck:sim2d`. Memory and transcripts are keyed by it. */
export type BodyKey = `${string}:${string}`;

/** A verb's admitted intent: the verb name and arguments that passed that verb's schema. */
export type Intent = BodyIntent;

/** What performing an intent did, in one human line plus structured facts. */
export interface VerbResult {
  readonly ok: boolean;
  /** One line, e.g. `ball found at bearing 18° left, 1.2 m`. */
  readonly summary: string;
  /** Structured facts for scripted pilots and the transcript (e.g. `{ ball_moved_m: 0.49 }`). */
  readonly data?: Readonly<Record<string, unknown>>;
  /** A picture for the pilot (a camera frame), shown to a model that reads pictures; the summary says it in words. */
  readonly picture?: Picture;
}

/** A picture a verb returned, already downscaled and compressed for a model. */
export interface Picture {
  readonly mediaType: 'image/jpeg' | 'image/png';
  /** The encoded bytes, base64. */
  readonly base64: string;
  readonly width: number;
  readonly height: number;
}

/** A body's camera, and what its colour detector needs to put a frame into words (the lens, the ball). */
export interface BodyEyes {
  readonly camera: Camera;
  readonly ball: BallLook;
}

/** What the body's sensors report now. */
export interface Observation {
  /** One or more human lines shown to the pilot. */
  readonly summary: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A snapshot of the body's state for the transcript (never shown to the pilot). */
export interface Frame {
  readonly state: Readonly<Record<string, unknown>>;
  /** A small text rendering for people reading a transcript. */
  readonly ascii?: string;
}

/** Measured facts a duck's `success_when` checks a declared success against. */
export type Metrics = Readonly<Record<string, number>>;

/**
 * Trouble a body notices by itself, between verbs as well as during them. `link-lost`: the body
 * cannot be reached any more, so the run must end; `fault`: the body protected itself (a
 * firmware watchdog cut torque, the battery is low); `fell`: the duck went down between verbs
 * (a verb's own fall is in its result), and the verbs after it are refused until it stands.
 */
export interface BodyTrouble {
  readonly kind: 'link-lost' | 'fault' | 'fell';
  /** One line, e.g. `serial link to /dev/ttyACM0 lost; the firmware's watchdog cuts torque within 200 ms, …`. */
  readonly message: string;
}

/** The far end of a body behind a link (a serial port to its firmware); a simulator has none. */
export interface BodyLink {
  /** The port or address, e.g. `/dev/serial/by-id/usb-…-if00`. */
  readonly device: string;
  /** What answers there, e.g. `quackd-fw 0.1.0` on board `rp2040`. */
  readonly firmware: string;
  readonly board: string;
  /** Chosen by the firmware at each boot: two runs with one boot id ran on one uninterrupted firmware. */
  readonly boot: number;
}

export interface Body {
  readonly key: BodyKey;
  /** Optional: what the body is talking to, as of the current run (see beginRun). */
  readonly link?: BodyLink;
  /**
   * Optional: report trouble as it happens, not only at the next verb (a simulator has none).
   * Returns the function that removes the listener.
   */
  onTrouble?(listener: (trouble: BodyTrouble) => void): () => void;
  /** Optional: the body's camera, as its settings give it one (`snapshot` reads it; it never moves anything). */
  readonly eyes?: BodyEyes | undefined;
  /** Read the sensors. Never moves anything. */
  observe(): Promise<Observation>;
  /** Carry out an admitted intent. Only the safety executor calls this. */
  perform(intent: Intent, signal?: AbortSignal): Promise<VerbResult>;
  /** The current state for the transcript. */
  frame(): Frame;
  /**
   * Ground-truth (sim) or measured (real) facts used to verify a declared success, as of the
   * last observe() or perform(): the executor observes right before it checks a success.
   */
  metrics(): Metrics;
  /**
   * A new run leases this body (held open across runs by the runtime): per-run counters start
   * again, so `success_when` measures this run, never an earlier one, and a body behind a link
   * checks who is at the far end now (a firmware may have restarted behind a port that stayed).
   * Optional: a body opened per run has nothing to reset.
   */
  beginRun?(): Promise<void>;
  /**
   * A held body that runs policies: each slot's folder for the run it is lent to, as the pool
   * resolves them at each lease (`quackd policy load` between runs), since the body outlives the
   * run it opened for. A swap during a run waits for the next lease. Optional: a body opened per
   * run gets its folders as it opens (BodyOptions.policies).
   */
  usePolicies?(dirs: Readonly<Record<string, string>>): void;
  /** Halt any motion now (Ctrl-C, budget end). Idempotent. */
  stop(): Promise<void>;
  /**
   * An emergency stop (`quackd stop`, MQTT's stop): halt, and where stop() leaves the motors
   * holding, switch them off and read it back; a BodyError names what did not confirm. Optional:
   * without it, stop().
   */
  emergencyStop?(): Promise<void>;
  /**
   * Optional: a stop this body could not deliver (its link was down) and still owes the motors.
   * The body sends it itself the moment its link is back; one closed first leaves it to the
   * robot's next body, which the pool has stop before anything else (body-pool.ts).
   */
  readonly stopOwed?: boolean;
  /** Release the hardware or simulator. Idempotent. */
  close(): Promise<void>;
}

/** Options every backend factory receives. */
export interface BodyOptions {
  readonly seed: number;
  /** Backend-specific settings (serial port path, baud, …). */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** The robot's name in the fleet (its key when it has none): names its events. */
  readonly robot?: string;
  /** A body that runs skill policies: the folder of each slot, as the runtime resolved them for this lease. */
  readonly policies?: Readonly<Record<string, string>>;
  /** The runtime's bus, where a body's control loop publishes its health. */
  readonly events?: EventBus;
}

/** A body's error that a user can act on (port missing, firmware refused, …): exit code 3. */
export class BodyError extends Error {
  override readonly name = 'BodyError';
}

/**
 * A held body that cannot start a run as it is, though one opened afresh may (its servo bus
 * faulted between runs and is not trusted again): the pool closes it and opens the robot again
 * for the same run, once.
 */
export class BodyStale extends BodyError {}
