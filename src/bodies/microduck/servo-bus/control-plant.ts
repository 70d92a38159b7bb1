/**
 * A duck whose Pi drives its servo bus itself (Feetech STS, Dynamixel 2.0) as the control worker
 * makes it (ModuleSpec `createPlant`): the port is opened here, in the worker, as the bridge's is
 * (tty.ts: serialport cannot run in a worker), so nothing on the main thread stands between a
 * tick and the servos.
 *
 * Each tick is one bus cycle, unless one is still under way: when the safety stage sends new
 * targets, one sync write of the goal positions (torque on) at once and one sync read of present
 * position and velocity from every joint right after, which the next tick's read() hands the
 * loop; a tick that sends nothing new has read() start the sync read alone. A cycle that fails (a servo silent, a garbled reply after its retry, a lost
 * adapter) or a reply carrying an alarm bit (overload, overheat…) is a fault naming the servo
 * and why; from then on read() reads nothing (the loop runs no policy), and the body ends the
 * verb and the run on it. A cycle that no servo answered in time may only have been read late
 * by a busy host: late-cycles.ts listens for its answers before it calls that a fault, and the
 * loop gets no reading until the joints are read afresh. A faulted bus is still looked at now and then (PROBE_MS), reading only,
 * so the body can say when every servo answers again; the fault stands until the body is opened
 * afresh. Torque is switched only on the body's word (channel.ts) and read back
 * from every servo (joint-servos.ts: how joints and torque become the servos' registers); on Dynamixel the Bus Watchdog is armed with it, so the servos stop if quackd
 * dies; on Feetech there is none, and close() turns torque off on the way out. The trunk's IMU
 * (trunk-imu.ts: the BNO055 on I²C) is opened here too and read each tick; one that cannot be
 * opened leaves the body without motion verbs, one that fails later is a fault like the bus's.
 */
import * as z from '../../../zod-mini.js';
import { TtyLink } from '../../../bridge/tty.js';
import { BridgeError } from '../../../bridge/errors.js';
import { slowAdapterHint } from '../../../bridge/latency-timer.js';
import type { Json } from '../../../control/module-spec.js';
import type { JointSpec, Plant, SensorFrame } from '../../../control/plant.js';
import { ServoBus } from '../../../servo-bus/bus.js';
import { BusLostError, ServoBusError, ServoTimeoutError } from '../../../servo-bus/errors.js';
import { modelByName, type ServoModel } from '../../../servo-bus/models.js';
import { BROADCAST_ID } from '../../../servo-bus/packet.js';
import { protocolNamed } from '../../../servo-bus/protocol.js';
import { idRanges } from '../../../servo-bus/scan.js';
import { silentBusHint } from '../../../servo-bus/usual-bauds.js';
import { ImuSettingsSchema } from '../../../imu/settings.js';
import type { I2cDevice } from '../../../imu/i2c-device.js';
import { JOINT_MAX_VELOCITY } from '../mujoco/duck-spec.js';
import { serveServoBus, type TorqueReadBack } from './channel.js';
import { BUS_SERVO_MODEL, JointRowSchema, servoLabel as label, type JointRow } from './joint-table.js';
import { jointServos, type JointReading } from './joint-servos.js';
import { LateCycles } from './late-cycles.js';
import { LateSchema, LateTally } from './late-tally.js';
import { openTrunkImu, type TrunkImu } from './trunk-imu.js';

const text = z.string().check(z.minLength(1));

const Options = z.strictObject({
  port: text,
  baud: z.int().check(z.positive()),
  protocol: z.enum(['feetech', 'dynamixel']),
  joints: z.array(JointRowSchema),
  channel: text,
  timeoutMs: z.number().check(z.positive()),
  simImu: z.optional(text),
  imu: z.optional(ImuSettingsSchema),
});

/**
 * A tick that sends nothing new (the duck holding its pose) reads the joints and the trunk at most
 * this often: at 50 Hz the bus cycle and the IMU read (a transfer on the I²C bus, decoded; in the
 * twin, a file read and a simulated chip) were most of a held duck's idle CPU, and a push that
 * topples it takes several hundred ms, so the fall is seen at most this much later. A verb's
 * first targets start a cycle and a trunk read at once; while targets change, both come each tick.
 */
const HOLD_READ_MS = 100;
/**
 * A tick counts as HOLD_READ_MS after the last read from half a period before: ticks come on a grid
 * (five periods, or one resting tick, later) a little late or early, and a read missed by 0.1 ms
 * would wait for the tick after.
 */
const HOLD_READ_DUE_MS = HOLD_READ_MS - 10;

/**
 * The bus's transactions read the link while their replies are due; between them (holding, every
 * HOLD_READ_MS) nothing is asked and nothing should come. The link's own read then only notices a
 * lost adapter with no transaction to notice it (a bus at fault), and stray bytes.
 */
const IDLE_POLL_MS = 250;

/**
 * How often a faulted bus is read, to learn whether every servo answers again (a servo back, the
 * adapter plugged in again): a read only, never a write, and never trusted as a reading.
 */
const PROBE_MS = 500;

/**
 * A bus cycle out for longer than this is late: until it answers, the loop gets no reading (it
 * holds, and runs no policy on a pose it no longer knows), and the verb it spoils says so. Two
 * periods at 50 Hz: a cycle takes 2-3 ms. A loaded host's serial link is late in the kernel,
 * whose tty worker threads run at normal priority (a pty round trip up to 125 ms beside four busy
 * processes, with both ends under SCHED_FIFO); a twin's duck walking on it fell and the run said
 * only `fell`.
 */
export const LATE_READING_MS = 40;

/** imu_problem while the IMU is set up and its first reading has not come yet (not a fault). */
export const IMU_PENDING = 'no reading yet';

/** What sense() answers, parsed back by the body with the same schema. */
export const BusFactsSchema = z.object({
  protocol: z.enum(['feetech', 'dynamixel']),
  torque: z.boolean(),
  /** Why the bus can no longer be trusted (`servo 22 (left_hip_pitch) silent …`), or null. */
  fault: z.nullable(z.string()),
  /** Every servo answered the last read of the bus (after a fault too: it is back, though still not trusted). */
  answering: z.boolean(),
  attached: z.boolean(),
  /** A trunk reading came from the IMU and it has not failed since. */
  imu: z.boolean(),
  /** Why there is no IMU reading (`no BNO055 answers on i2c-1 at 0x28: …`), or null. */
  imu_problem: z.nullable(z.string()),
  /** Trunk tilt from the IMU's gravity, rad (0 without an IMU). */
  tilt_rad: z.number(),
  yaw_rad: z.number(),
  cycles: z.number(),
  sent: z.number(),
  counters: z.object({ timeouts: z.number(), damaged: z.number(), retries: z.number() }),
  /** Ticks with no reading for a late answer (LATE_READING_MS, or a failed cycle), cycles answered after the bus gave up (late-cycles.ts): since the plant opened. */
  late: LateSchema,
  /** The same since the body's last mark, a verb's start (late-tally.ts). */
  late_since_mark: LateSchema,
  positions: z.array(z.number()),
});
export type BusFacts = z.infer<typeof BusFactsSchema>;

/** What a test puts at the plant's edge instead of a device: the IMU's I²C device. */
export interface PlantEdges {
  readonly imuDevice?: I2cDevice;
}

export async function createPlant(options: Json | undefined, edges: PlantEdges = {}): Promise<Plant> {
  const o = Options.parse(options);
  const model = modelByName(BUS_SERVO_MODEL[o.protocol]) as ServoModel;
  const r = model.registers;
  const rows = o.joints;
  const ids = rows.map((j) => j.id);
  const byId = new Map(rows.map((j) => [j.id, j]));
  const bus = new ServoBus({ protocol: protocolNamed(o.protocol), baud: o.baud, timeoutMs: o.timeoutMs, retries: 1, patient: true });
  let link: TtyLink;
  try {
    link = await TtyLink.open(bus, { path: o.port, baud: o.baud, idlePollMs: IDLE_POLL_MS });
  } catch (err) {
    bus.close();
    const e = err instanceof BridgeError ? err : new BridgeError(String(err));
    throw new Error(`${e.message}${e.hint !== undefined ? ` (${e.hint})` : ''}`);
  }
  const servos = jointServos(bus, model, rows);

  let fault: string | undefined;
  let answering = true;
  let torque = false;
  /** Goals are written only after the body switched torque on itself: a torque found on at open is left holding. */
  let armed = false;
  let goals: Float64Array | undefined;
  let goalsDirty = false;
  let frame: JointReading | undefined;
  let busy = false;
  /** When the joints were last read back (performance.now() ms). */
  let frameAt = Number.NEGATIVE_INFINITY;
  let sentSinceRead = false;
  let cycleAt = Number.NEGATIVE_INFINITY;
  let yaw = 0;
  let lastTick: number | undefined;
  let imu: ReturnType<TrunkImu['latest']>;
  let imuAt = Number.NEGATIVE_INFINITY;
  /** Torque came on where the joints stand and the loop has not yet been told: its old targets are not goals. */
  let retaken = false;
  /** The last tick sent targets that differ from the ones before (a skill is moving the duck). */
  let moving = false;
  const c = { cycles: 0, sent: 0 };
  const late = new LateTally();
  /** The joints have not been read since a cycle failed: the loop gets no reading until they are. */
  let stale = false;
  /** The fault is a cycle's that timed out: its words change as late answers come. */
  let faultLate = false;

  const names = (list: readonly number[]): string => list.map((id) => byId.get(id)).map((j) => (j !== undefined ? label(j) : 'a servo')).join(', ');
  const why = (err: unknown): string => {
    if (err instanceof ServoTimeoutError) return `${names(err.ids)} did not answer`;
    if (err instanceof BusLostError) return `the bus adapter on ${o.port} was lost (${err.message})`;
    if (err instanceof ServoBusError && 'ids' in err) {
      const named = (err as ServoBusError & { ids: readonly number[] }).ids.map((id) => byId.get(id)).filter((j): j is JointRow => j !== undefined);
      return `${named.map(label).join(', ') || 'a servo'}: ${err.message}`;
    }
    return err instanceof Error ? err.message : String(err);
  };

  const cycle = async (): Promise<void> => {
    busy = true;
    cycleAt = performance.now();
    try {
      if (armed && goalsDirty && goals !== undefined) {
        goalsDirty = false;
        await servos.writeGoals(goals);
        c.sent++;
      }
      frame = await servos.read();
      frameAt = performance.now();
      c.cycles++;
      stale = false;
      lateCycles.answered();
    } catch (err) {
      stale = true;
      if (err instanceof ServoTimeoutError && err.instruction === 'sync read') lateCycles.timedOut(err, fault !== undefined);
      else {
        fault ??= why(err);
        answering = false;
      }
    } finally {
      busy = false;
    }
  };

  /** A faulted bus read again, only to say whether every servo answers now. */
  const probe = async (): Promise<void> => {
    busy = true;
    cycleAt = performance.now();
    try {
      await servos.read();
      answering = true;
    } catch {
      answering = false;
    } finally {
      busy = false;
    }
  };

  const setTorque = async (on: boolean): Promise<TorqueReadBack> => {
    if (on && fault !== undefined) throw new Error(`torque stays off: ${fault}`);
    if (!bus.attached) throw new Error(`the adapter is gone: ${r.busWatchdog !== undefined ? 'the Bus Watchdog stops the servos' : 'the servos hold their last goal until their power is cut'}`);
    // Already holding goals it wrote (a motion verb's torque on): switched again and read back, the
    // goals left as they are; rewriting them to where the joints sag under the duck's weight let it
    // drop for a tick or two (in the twin, 2 ticks swung the trunk 0.015 rad, 5 ticks 0.08).
    if (on && !armed) {
      // The servos take the pose they stand in as their goal first: switching on moves nothing,
      // and the loop is told to hold that pose (torqueOnHere), not the one it held before.
      const now = await servos.read();
      frame = now;
      frameAt = performance.now();
      goals = now.pos.slice();
      await servos.writeGoals(goals);
      goalsDirty = false;
      retaken = true;
    }
    await servos.switchTorque(on);
    const back = await servos.readTorque(on);
    torque = on ? back.stuck.length === 0 && back.silent.length === 0 : back.stuck.length > 0 || back.silent.length > 0;
    armed = on && torque;
    return back;
  };

  /**
   * A body that cannot be opened still lets go: torque off to every servo (one sync write, read
   * back), so a stop asked of a duck with one servo silent or alarmed reaches the others, which
   * would otherwise go on holding (a Feetech servo holds its last goal).
   */
  const letGo = async (): Promise<{ readonly text: string; readonly silent: number }> => {
    try {
      await servos.switchTorque(false);
    } catch (err) {
      return { text: `torque off could not be sent: ${why(err)}`, silent: 0 };
    }
    const back = await servos.readTorque(false);
    const confirmed = rows.length - back.stuck.length - back.silent.length;
    const unconfirmed = [...back.stuck.map((j) => `${j} still on`), ...back.silent.map((j) => `${j} did not answer`)];
    return { text: `torque off sent: confirmed on ${unconfirmed.length === 0 ? `all ${confirmed}` : confirmed} servos${unconfirmed.length > 0 ? `, ${unconfirmed.join(', ')}` : ''}`, silent: back.silent.length };
  };

  try {
    frame = await servos.read();
    frameAt = performance.now();
    const back = await servos.readTorque(true);
    torque = back.stuck.length === 0 && back.silent.length === 0;
  } catch (err) {
    const off = await letGo();
    bus.close();
    await link.close();
    // Not one servo answered, twice: the bus is said once (the wrong protocol or baud, or no power), not each of its servos.
    if (off.silent === rows.length) throw new Error(`no ${o.protocol} servo answered on ${o.port} at ${o.baud} baud (ids ${idRanges(ids)}) (${slowAdapterHint(o.port, o.timeoutMs) ?? silentBusHint(o.protocol, o.port, o.baud)})`);
    throw new Error(`the servos on ${o.port} cannot be driven: ${why(err)}; ${off.text}`);
  }
  const opened = await openTrunkImu({ ...(o.imu !== undefined ? { imu: o.imu } : {}), ...(o.simImu !== undefined ? { simImu: o.simImu } : {}), ...(edges.imuDevice !== undefined ? { device: edges.imuDevice } : {}) });
  const trunkImu: TrunkImu | undefined = typeof opened === 'string' ? undefined : opened;
  const imuProblem = typeof opened === 'string' ? opened : undefined;
  const stopServing = serveServoBus(o.channel, { torque: setTorque, markLate: () => late.mark() });
  const lateCycles = new LateCycles({
    bus,
    poll: () => link.poll(),
    timeoutMs: o.timeoutMs,
    servos: rows.length,
    names,
    fault: (text, again) => {
      if (again) {
        if (faultLate) fault = text;
        return;
      }
      if (fault === undefined) {
        fault = text;
        faultLate = true;
      }
      answering = false;
    },
    again: () => {
      if (!busy && fault === undefined && bus.attached) void cycle();
    },
    tally: late,
  });
  bus.on('detached', (reason) => {
    fault ??= `the bus adapter on ${o.port} was lost (${reason.message})`;
    armed = false;
    answering = false;
  });

  const joints: JointSpec[] = rows.map((j) => ({ name: j.name, min: j.min, max: j.max, maxVelocity: JOINT_MAX_VELOCITY }));
  let closed = false;
  return {
    joints,
    // The servos hold their last goal: a loop with nothing to run ticks when a hold read is due.
    restingPeriodMs: HOLD_READ_MS,
    read(): SensorFrame | undefined {
      // No link.poll() here: the bus reads the port while a reply is due, and the link's own
      // timer between (IDLE_POLL_MS); a read each tick mostly found nothing, and "nothing yet"
      // is an exception thrown.
      const now = performance.now();
      // Holding (no new targets since the last tick), the trunk is read every HOLD_READ_MS.
      if (moving || now - imuAt >= HOLD_READ_DUE_MS) {
        imuAt = now;
        trunkImu?.tick();
        imu = trunkImu?.latest();
      }
      const imuFault = trunkImu?.fault();
      // The IMU failing mid-run is the bus's fault too: a policy fed a stale trunk is not walking.
      if (imuFault !== undefined) {
        fault ??= imuFault;
        imu = undefined;
      }
      if (imu !== undefined && lastTick !== undefined) yaw = Math.atan2(Math.sin(yaw + imu.gyro[2] * ((now - lastTick) / 1000)), Math.cos(yaw + imu.gyro[2] * ((now - lastTick) / 1000)));
      lastTick = now;
      // A tick whose targets did not change starts no cycle in send(): its reading is read here (holding, every HOLD_READ_MS).
      // After a cycle whose answers all came late, the joints are read again at once.
      if (!sentSinceRead && !busy && fault === undefined && !lateCycles.listening && bus.attached && (stale || now - cycleAt >= HOLD_READ_DUE_MS)) void cycle();
      else if (!busy && fault !== undefined && bus.attached && now - cycleAt >= PROBE_MS) void probe();
      sentSinceRead = false;
      moving = false;
      if (fault !== undefined || frame === undefined) return undefined;
      // No reading while a cycle is out too long, or since one failed: the pose is no longer known.
      if (stale || (busy && now - cycleAt > LATE_READING_MS)) {
        late.tick(now - frameAt);
        return undefined;
      }
      // Nor while the trunk's read is out as long: its last reading is a trunk that has since moved.
      const imuOut = trunkImu?.outMs(now) ?? 0;
      if (imuOut > LATE_READING_MS) {
        late.imu(imuOut);
        return undefined;
      }
      // No IMU reading: an upright duck at rest, and the body refuses the motion verbs.
      const gyro = imu?.gyro ?? [0, 0, 0];
      const gravity = imu?.gravity ?? [0, 0, -1];
      const roll = Math.atan2(-gravity[1], -gravity[2]);
      const pitch = Math.asin(Math.max(-1, Math.min(1, gravity[0])));
      const reading: SensorFrame = { gyro, gravity, ...(imu?.accel !== undefined ? { accel: imu.accel } : {}), jointPos: frame.pos, jointVel: frame.vel, trunk: { x: 0, y: 0, z: 0, roll, pitch, yaw } };
      if (!retaken) return reading;
      retaken = false;
      return { ...reading, torqueOnHere: true };
    },
    send(targets: Float64Array): void {
      if (retaken) return;
      if (goals !== undefined && goals.every((g, i) => g === targets[i])) return;
      goals = targets.slice();
      goalsDirty = true;
      moving = true;
      // Written at once, and the joints read right after: the next tick reads where they went.
      if (!busy && fault === undefined && !lateCycles.listening && bus.attached) {
        sentSinceRead = true;
        void cycle();
      }
    },
    limp(): void {
      void setTorque(false).catch(() => undefined);
    },
    sense: (): BusFacts => {
      const k = bus.counters();
      const imu = trunkImu?.latest();
      return {
        protocol: o.protocol,
        torque,
        fault: fault ?? null,
        answering: answering && bus.attached,
        attached: bus.attached,
        imu: imu !== undefined,
        imu_problem: imuProblem ?? trunkImu?.fault() ?? (imu === undefined && trunkImu !== undefined ? IMU_PENDING : null),
        tilt_rad: imu !== undefined ? Math.acos(Math.max(-1, Math.min(1, -imu.gravity[2]))) : 0,
        yaw_rad: yaw,
        cycles: c.cycles,
        sent: c.sent,
        counters: { timeouts: k.timeouts, damaged: k.damaged, retries: k.retries },
        late: { ...late.total },
        late_since_mark: late.since,
        positions: Array.from(frame?.pos ?? []),
      };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      stopServing();
      lateCycles.close();
      const imuClosed = trunkImu?.close();
      // The last word on the bus, whatever state the body left: torque off to every servo.
      await bus.write(BROADCAST_ID, r.torqueEnable.address, [0]).catch(() => undefined);
      bus.close();
      await Promise.all([link.close(), imuClosed]);
    },
  };
}
