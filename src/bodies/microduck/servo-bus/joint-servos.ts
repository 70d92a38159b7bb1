/**
 * The duck's joints as its servos hold them, over the bus: every joint's angle and velocity from
 * one sync read of the servos' registers (through the joint table's direction and offset), goals
 * turned into servo counts for one sync write, torque switched on every servo and read back from
 * each. The control plant decides when the bus is asked and what a failure means; this is only
 * how a joint's words become a servo's bytes and back, kept apart so the plant reads as its
 * schedule.
 */
import type { ServoBus } from '../../../servo-bus/bus.js';
import { decodeRegister, encodeRegister, type Register, type ServoModel } from '../../../servo-bus/models.js';
import type { TorqueReadBack } from './channel.js';
import { jointAngle, servoAngle, servoLabel as label, type JointRow } from './joint-table.js';

/** Dynamixel Bus Watchdog: 5 × 20 ms. The loop talks to every servo each 20 ms, so only a dead quackd lets it run out. */
const WATCHDOG_COUNTS = 5;

/** Where the joints are, rad, and how fast they move, rad/s; in the joint table's order. */
export interface JointReading {
  readonly pos: Float64Array;
  readonly vel: Float64Array;
}

export interface JointServos {
  /** Every joint in one sync read; a reply carrying an alarm bit (overload, overheat…) fails it, naming the joint. */
  read(): Promise<JointReading>;
  /** Every joint's goal in one sync write (nothing answers it). */
  writeGoals(targets: Float64Array): Promise<void>;
  /** Torque on or off to every servo in one sync write; switched on, the Bus Watchdog (Dynamixel's) is armed with it. */
  switchTorque(on: boolean): Promise<void>;
  /** Every servo's torque register, one read each, so a silent one does not hide the others. */
  readTorque(asked: boolean): Promise<TorqueReadBack>;
}

export function jointServos(bus: ServoBus, model: ServoModel, rows: readonly JointRow[]): JointServos {
  const r = model.registers;
  const ids = rows.map((j) => j.id);
  const centre = model.countsPerTurn / 2;
  const bytes = (reg: Register, v: number): Uint8Array => encodeRegister(reg, v, model.byteOrder);
  const value = (reg: Register, data: Uint8Array, at: number): number => decodeRegister(reg, data.subarray(at, at + reg.size), model.byteOrder);
  const toCounts = (rad: number, reg: Register): number => centre + rad / reg.unit;
  const fromCounts = (counts: number, reg: Register): number => (counts - centre) * reg.unit;
  // Position and velocity in one read: whichever comes first, through the end of the other.
  const p = r.presentPosition;
  const v = r.presentVelocity;
  const start = Math.min(p.address, v.address);
  const span = Math.max(p.address + p.size, v.address + v.size) - start;

  return {
    async read(): Promise<JointReading> {
      const replies = await bus.syncRead(ids, start, span);
      const pos = new Float64Array(rows.length);
      const vel = new Float64Array(rows.length);
      for (const [i, reply] of replies.entries()) {
        const j = rows[i] as JointRow;
        if (reply.alarms.length > 0) throw new Error(`${label(j)} raised ${reply.alarms.join(', ')}`);
        pos[i] = jointAngle(j, fromCounts(value(p, reply.data, p.address - start), p));
        vel[i] = j.direction * value(v, reply.data, v.address - start) * v.unit;
      }
      return { pos, vel };
    },
    async writeGoals(targets: Float64Array): Promise<void> {
      const entries = new Map(rows.map((j, i) => [j.id, bytes(r.goalPosition, toCounts(servoAngle(j, targets[i] ?? 0), r.goalPosition))]));
      await bus.syncWrite(r.goalPosition.address, entries);
    },
    async switchTorque(on: boolean): Promise<void> {
      await bus.syncWrite(r.torqueEnable.address, new Map(ids.map((id) => [id, [on ? 1 : 0]])));
      if (on && r.busWatchdog !== undefined) {
        // 0 first: a watchdog that ran out (quackd died) holds the servos until it is cleared.
        await bus.syncWrite(r.busWatchdog.address, new Map(ids.map((id) => [id, [0]])));
        await bus.syncWrite(r.busWatchdog.address, new Map(ids.map((id) => [id, [WATCHDOG_COUNTS]])));
      }
    },
    async readTorque(asked: boolean): Promise<TorqueReadBack> {
      const stuck: string[] = [];
      const silent: string[] = [];
      for (const j of rows) {
        try {
          const reply = await bus.read(j.id, r.torqueEnable.address, 1);
          if ((reply.data[0] ?? 0) !== 0 !== asked) stuck.push(label(j));
        } catch {
          silent.push(label(j));
        }
      }
      return { asked, stuck, silent };
    },
  };
}
