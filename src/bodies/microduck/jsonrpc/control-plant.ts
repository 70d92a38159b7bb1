/**
 * The real duck as the control worker makes it (ModuleSpec `createPlant`): the serial link and
 * the BridgeClient are opened here, in the worker, so the heartbeat beats in the same thread as
 * the 50 Hz loop (a heartbeat means the controller is alive) and this worker is the one owner of
 * the port. The body on the main thread reaches the same client through serveBridge's channel.
 *
 * read() polls the link, so the states that came since the last tick are taken now, and the
 * newest is the SensorFrame: gyro and the accelerometer as they are; gravity from the
 * accelerometer, normalised and negated (the firmware reads +9.8 on z standing upright, the
 * reaction to gravity; the loop wants gravity itself, upright ≈ (0, 0, -1)); joints from pos/vel.
 * The trunk pose has no position (the bridge carries no odometry: x = y = z = 0), roll and pitch
 * from gravity, and yaw integrated from the gyro's z between states, so `turn` can end on it.
 * A state older than three state periods reads as nothing, and the loop runs no policy then.
 *
 * The link reopens by itself when an unplugged device comes back (tty.ts), but from the moment it
 * went the plant reads nothing until a hello on the new link (the body's, as the next run begins)
 * finds the joint table this loop was made for: a verb running when the link went never resumes
 * on whatever answers later, and who that is (the same boot of the firmware or a new one) is the
 * body's to say. While it was down torque is taken as off (the firmware's watchdog cut it).
 *
 * send() is set_targets without waiting for the answer (failures counted). It sends only what
 * moves: targets equal to the last sent are not repeated (the firmware holds its last targets by
 * itself, so an idle loop sends nothing and the firmware's `targets` counter means "a verb moved
 * me"), and nothing is sent while torque is off (the firmware would refuse it).
 *
 * Torque switched on (off before: the body's torque call, or a state that reads it on) is taken
 * where the joints stand, as the firmware takes it: the first reading from a state streamed after
 * it is marked torqueOnHere and the loop holds that pose, not the one it held before torque off
 * (hands may have moved the duck since). Until then read() reads nothing and send() sends none
 * of the loop's old targets.
 */
import * as z from '../../../zod-mini.js';
import { serveBridge } from '../../../bridge/channel.js';
import { BridgeClient } from '../../../bridge/client.js';
import { BridgeError } from '../../../bridge/errors.js';
import type { BridgeState, Hello } from '../../../bridge/protocol.js';
import { TtyLink } from '../../../bridge/tty.js';
import type { Json } from '../../../control/module-spec.js';
import type { JointSpec, Plant, SensorFrame } from '../../../control/plant.js';
import { greet } from './greet.js';

const Options = z.strictObject({
  port: z.string().check(z.minLength(1)),
  baud: z.int().check(z.positive()),
  /** the BroadcastChannel the body listens on (serveBridge) */
  channel: z.string().check(z.minLength(1)),
  timeoutMs: z.optional(z.number().check(z.positive())),
});

/** rad/s, when an older firmware announces no max_vel */
const DEFAULT_MAX_VEL = 10;
/** A state is stale after this many of the firmware's state periods. */
const STALE_PERIODS = 3;

/** What sense() answers: facts about the link for the body, parsed back with the same schema. */
export const LinkFactsSchema = z.object({
  hello: z.object({ firmware: z.string(), board: z.string(), boot: z.number(), state_hz: z.number(), watchdog_ms: z.number() }),
  attached: z.boolean(),
  torque: z.boolean(),
  battery_v: z.nullable(z.number()),
  state_age_ms: z.nullable(z.number()),
  yaw_rad: z.number(),
  faults: z.array(z.string()),
  sent: z.number(),
  send_failures: z.number(),
  unsent_torque_off: z.number(),
  firmware_limited: z.number(),
  stale_reads: z.number(),
  link: z.object({ crc: z.number(), dropped: z.number(), timeouts: z.number(), losses: z.number(), reopened: z.number() }),
  /** No hello on the link since it was lost (or one that found another joint table): read() reads nothing. */
  unidentified: z.nullable(z.string()),
});
export type LinkFacts = z.infer<typeof LinkFactsSchema>;

/** What a loop made for one firmware's joints needs from another hello: undefined when it is the same. */
export function jointTableChange(was: Hello, now: Hello): string | undefined {
  const table = (h: Hello) => JSON.stringify([h.joints, h.lower, h.upper, h.max_vel ?? null]);
  if (table(was) !== table(now)) return 'a different joint table (names, limits or speeds)';
  if (was.state_hz !== now.state_hz) return `another state rate (${now.state_hz} Hz, was ${was.state_hz})`;
  return undefined;
}

/** Degrees of freedom the firmware announced, as the safety stage clamps to them. */
export function jointsOf(hello: Hello): JointSpec[] {
  return hello.joints.map((name, i) => ({ name, min: hello.lower[i] ?? 0, max: hello.upper[i] ?? 0, maxVelocity: hello.max_vel?.[i] ?? DEFAULT_MAX_VEL }));
}

/** Gravity in the trunk frame, unit length, from the accelerometer's reading (its negation). */
export function gravityOf(accel: BridgeState['accel']): [number, number, number] {
  const g = Math.hypot(accel[0], accel[1], accel[2]);
  if (!(g > 1e-6)) return [0, 0, 0];
  return [-accel[0] / g, -accel[1] / g, -accel[2] / g];
}

const wrap = (a: number): number => Math.atan2(Math.sin(a), Math.cos(a));

export async function createPlant(options: Json | undefined): Promise<Plant> {
  const o = Options.parse(options);
  const client = new BridgeClient(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {});
  let link: TtyLink;
  try {
    // Not serialport: its native poller cannot run in a worker thread (src/bridge/tty.ts).
    link = await TtyLink.open(client, { path: o.port, baud: o.baud });
  } catch (err) {
    client.close();
    const e = err instanceof BridgeError ? err : new BridgeError(String(err));
    throw new Error(`${e.message}${e.hint !== undefined ? ` (${e.hint})` : ''}`);
  }
  let hello: Hello;
  try {
    hello = await greet(client, o.port);
  } catch (err) {
    client.close();
    await link.close();
    throw err;
  }
  const first = hello;
  const joints = jointsOf(hello);
  const staleMs = hello.state_hz > 0 ? (STALE_PERIODS * 1000) / hello.state_hz : 0;
  const c = { sent: 0, sendFailures: 0, unsentTorqueOff: 0, firmwareLimited: 0, staleReads: 0, losses: 0, reopened: 0 };
  /** Why read() reads nothing whatever the stream says, or undefined. */
  let unidentified: string | undefined;
  const faults: string[] = [];
  let torque = false;
  let yaw = 0;
  let lastT: number | undefined;
  let newest: { state: BridgeState; at: number } | undefined;
  let lastSent: Float64Array | undefined;
  /**
   * Torque came on and the loop has not yet been told where: 'awaiting' a state streamed after it,
   * 'found' when the newest is one. The loop's old targets are not goals meanwhile.
   */
  let retake: 'awaiting' | 'found' | undefined;

  client.on('state', (state) => {
    const now = performance.now();
    // Firmware milliseconds wrap at 2^32; a gap of a second or more (a stall) is not integrated.
    if (lastT !== undefined) {
      const dt = ((state.t - lastT + 2 ** 32) % 2 ** 32) / 1000;
      if (dt > 0 && dt < 1) yaw = wrap(yaw + state.gyro[2] * dt);
    }
    lastT = state.t;
    // A state that reads torque on was streamed after the firmware took it, at the pose it reports.
    if (state.torque && (!torque || retake === 'awaiting')) retake = 'found';
    if (!state.torque) retake = undefined;
    torque = state.torque;
    newest = { state, at: now };
  });
  client.on('fault', (fault) => {
    faults.push(fault.code);
    if (!fault.torque) {
      torque = false;
      retake = undefined;
    }
  });
  client.on('detached', () => {
    c.losses++;
    unidentified = 'the link was lost: no hello on it since';
    torque = false;
    retake = undefined;
    newest = undefined;
    lastT = undefined;
    // Whatever answers next holds none of this: the targets held now are sent again once torque is on.
    lastSent = undefined;
  });
  link.on('restored', () => c.reopened++);

  let closing: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    closing ??= (async () => {
      client.close();
      await link.close();
    })();
    return closing;
  };
  const stopServing = serveBridge(client, o.channel, shutdown);
  // The body switches torque through the channel; the plant must know at once, not a state later.
  // Its answer comes before any state streamed after it: the states read until one comes are
  // from before torque on, and their joints not the pose the firmware took.
  client.on('torque', (on) => {
    if (on && !torque) retake = 'awaiting';
    if (!on) retake = undefined;
    torque = on;
  });
  // A hello after a loss says whether this loop may drive what answers now.
  const helloOf = client.hello.bind(client);
  client.hello = async (timeoutMs?: number) => {
    const h = await helloOf(timeoutMs);
    const change = jointTableChange(first, h);
    unidentified = change !== undefined ? `the firmware answers with ${change}` : undefined;
    hello = h;
    return h;
  };

  const facts = (): LinkFacts => {
    const counters = client.counters();
    return {
      hello: { firmware: hello.firmware, board: hello.board, boot: hello.boot, state_hz: hello.state_hz, watchdog_ms: hello.watchdog_ms },
      attached: client.attached,
      torque,
      battery_v: newest?.state.battery_v ?? null,
      state_age_ms: newest !== undefined ? Math.round(performance.now() - newest.at) : null,
      yaw_rad: yaw,
      faults: [...faults],
      sent: c.sent,
      send_failures: c.sendFailures,
      unsent_torque_off: c.unsentTorqueOff,
      firmware_limited: c.firmwareLimited,
      stale_reads: c.staleReads,
      link: { crc: counters.crc, dropped: counters.crc + counters.malformed + counters.overlong + counters.runt, timeouts: counters.timeouts, losses: c.losses, reopened: c.reopened },
      unidentified: unidentified ?? null,
    };
  };

  return {
    joints,
    read(): SensorFrame | undefined {
      // The tick's one wake-up reads the link and carries the heartbeat (tty.ts, client.ts).
      link.poll();
      client.beat();
      if (newest === undefined || !client.attached || unidentified !== undefined || retake === 'awaiting') return undefined;
      if (performance.now() - newest.at > staleMs) {
        c.staleReads++;
        return undefined;
      }
      const s = newest.state;
      if (s.pos.length !== joints.length || s.vel.length !== joints.length) return undefined;
      const gravity = gravityOf(s.accel);
      const roll = Math.atan2(-gravity[1], -gravity[2]);
      const pitch = Math.asin(Math.max(-1, Math.min(1, gravity[0])));
      const reading: SensorFrame = { gyro: [s.gyro[0], s.gyro[1], s.gyro[2]], gravity, accel: [s.accel[0], s.accel[1], s.accel[2]], jointPos: Float64Array.from(s.pos), jointVel: Float64Array.from(s.vel), trunk: { x: 0, y: 0, z: 0, roll, pitch, yaw } };
      if (retake !== 'found') return reading;
      // The firmware holds this pose already: the loop's hold of it need not be sent.
      retake = undefined;
      lastSent = reading.jointPos.slice();
      return { ...reading, torqueOnHere: true };
    },
    send(targets: Float64Array): void {
      if (retake !== undefined) return;
      if (lastSent !== undefined && lastSent.every((v, i) => v === targets[i])) return;
      lastSent = targets.slice();
      if (!torque) {
        c.unsentTorqueOff++;
        return;
      }
      c.sent++;
      client.setTargets(Array.from(targets)).then(
        (r) => {
          if ((r.limited?.length ?? 0) > 0) c.firmwareLimited++;
        },
        () => {
          c.sendFailures++;
        },
      );
    },
    limp(): void {
      torque = false;
      retake = undefined;
      client.torque(false).catch(() => {
        c.sendFailures++;
      });
    },
    sense: () => facts(),
    close: () => shutdown().finally(stopServing),
  };
}
