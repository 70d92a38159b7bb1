/**
 * What each tick did, for whoever records it (src/recording), carried out of the control worker
 * through shared memory: a ring of fixed-width records that the worker writes and the main thread
 * drains. One writer, one reader, two counters; the worker never waits: when the ring is full
 * (the main thread has not drained it for the ring's length of ticks) the tick is dropped and
 * counted, and the reader says how many were.
 *
 * A record, as Float64 values: epoch ms, tick index, late ms, work ms, gyro xyz, gravity xyz,
 * trunk x y z roll pitch yaw (NaN when the plant does not know), accelerometer xyz (NaN where the
 * plant reads none), then per joint its target as
 * the skill asked (NaN on a tick that held), the target applied after the safety stage (NaN
 * before the first), and its measured position (NaN on a failed read).
 */
import type { SensorFrame } from './plant.js';

export const TICK_FIELDS = 19;
const WRITTEN = 0;
const READ = 1;
const DROPPED = 2;

/** Room for this many ticks: five seconds at 50 Hz before a stalled reader costs ticks. */
export const RING_TICKS = 256;
/**
 * In lock-step the loop runs as fast as the plant steps (a MuJoCo twin's walk: bursts of 2500
 * ticks a second), so 256 ticks were gone between two reads 100 ms apart: a sim run's recording
 * lost up to 173 ticks. Eight times the room (about 1 MB for 14 joints) holds 800 ms of that.
 */
export const LOCKSTEP_RING_TICKS = 2048;

export const recordWidth = (joints: number): number => TICK_FIELDS + 3 * joints;

/**
 * Each tick's epoch ms, as its record carries it. In real time, the wall's. In lockstep the loop
 * runs faster than the wall (a twin walk of 66 s took 8.5 s) and stands still between verbs, so a
 * tick is one period after the last, or the wall's time if that is later: a walk replays at the
 * robot's own speed, and the next verb's ticks start no earlier than it did.
 */
export function tickStamper(lockstep: boolean, periodMs: number): () => number {
  // This thread's performance clock has its own origin, the main thread's another.
  const origin = performance.timeOrigin;
  if (!lockstep) return () => origin + performance.now();
  let last = -Infinity;
  return () => (last = Math.max(last + periodMs, origin + performance.now()));
}

/** The shared memory for a ring of `capacity` ticks of `joints` joints. */
export function tickRingBuffer(joints: number, capacity = RING_TICKS): SharedArrayBuffer {
  return new SharedArrayBuffer(16 + capacity * recordWidth(joints) * 8);
}

export interface TickSample {
  readonly index: number;
  readonly lateMs: number;
  readonly workMs: number;
  readonly frame: SensorFrame | undefined;
  readonly desired: ArrayLike<number> | undefined;
  readonly applied: ArrayLike<number> | undefined;
}

class Ring {
  protected readonly counters: Int32Array;
  protected readonly slots: Float64Array;
  protected readonly width: number;
  protected readonly capacity: number;

  constructor(
    buffer: SharedArrayBuffer,
    readonly joints: number,
  ) {
    this.counters = new Int32Array(buffer, 0, 4);
    this.width = recordWidth(joints);
    this.slots = new Float64Array(buffer, 16);
    this.capacity = Math.floor(this.slots.length / this.width);
  }
}

/** The worker's end. */
export class TickRingWriter extends Ring {
  push(epochMs: number, s: TickSample): void {
    const written = Atomics.load(this.counters, WRITTEN);
    if (written - Atomics.load(this.counters, READ) >= this.capacity) {
      Atomics.add(this.counters, DROPPED, 1);
      return;
    }
    const at = (written % this.capacity) * this.width;
    const slots = this.slots;
    const f = s.frame;
    slots[at] = epochMs;
    slots[at + 1] = s.index;
    slots[at + 2] = s.lateMs;
    slots[at + 3] = s.workMs;
    for (let k = 0; k < 3; k++) {
      slots[at + 4 + k] = f?.gyro[k] ?? NaN;
      slots[at + 7 + k] = f?.gravity[k] ?? NaN;
    }
    const trunk = f?.trunk;
    slots[at + 10] = trunk?.x ?? NaN;
    slots[at + 11] = trunk?.y ?? NaN;
    slots[at + 12] = trunk?.z ?? NaN;
    slots[at + 13] = trunk?.roll ?? NaN;
    slots[at + 14] = trunk?.pitch ?? NaN;
    slots[at + 15] = trunk?.yaw ?? NaN;
    for (let k = 0; k < 3; k++) slots[at + 16 + k] = f?.accel?.[k] ?? NaN;
    const n = this.joints;
    for (let i = 0; i < n; i++) {
      slots[at + TICK_FIELDS + i] = s.desired?.[i] ?? NaN;
      slots[at + TICK_FIELDS + n + i] = s.applied?.[i] ?? NaN;
      slots[at + TICK_FIELDS + 2 * n + i] = f?.jointPos[i] ?? NaN;
    }
    Atomics.store(this.counters, WRITTEN, written + 1);
  }
}

/** One tick as the main thread reads it back. */
export interface TickRecord {
  readonly epochMs: number;
  readonly index: number;
  readonly lateMs: number;
  readonly workMs: number;
  readonly gyro: readonly [number, number, number];
  readonly gravity: readonly [number, number, number];
  /** m/s², NaN where the plant reads no accelerometer */
  readonly accel: readonly [number, number, number];
  /** undefined when the plant does not know where the trunk is */
  readonly trunk?: { readonly x: number; readonly y: number; readonly z: number; readonly roll: number; readonly pitch: number; readonly yaw: number };
  readonly desired: Float64Array;
  readonly applied: Float64Array;
  readonly measured: Float64Array;
}

/** The main thread's end. */
export class TickRingReader extends Ring {
  /** Ticks the ring has dropped since it was made. */
  get dropped(): number {
    return Atomics.load(this.counters, DROPPED);
  }

  /** Passes over every record written since the last drain, reading none (nobody wants them). */
  skip(): void {
    Atomics.store(this.counters, READ, Atomics.load(this.counters, WRITTEN));
  }

  /** Every record written since the last drain, oldest first. */
  drain(): TickRecord[] {
    const written = Atomics.load(this.counters, WRITTEN);
    const out: TickRecord[] = [];
    const n = this.joints;
    for (let r = Atomics.load(this.counters, READ); r < written; r++) {
      const at = (r % this.capacity) * this.width;
      const v = this.slots.slice(at, at + this.width);
      const trunk = Number.isNaN(v[10]) ? undefined : { x: v[10] ?? 0, y: v[11] ?? 0, z: v[12] ?? 0, roll: v[13] ?? 0, pitch: v[14] ?? 0, yaw: v[15] ?? 0 };
      out.push({
        epochMs: v[0] ?? 0,
        index: v[1] ?? 0,
        lateMs: v[2] ?? 0,
        workMs: v[3] ?? 0,
        gyro: [v[4] ?? NaN, v[5] ?? NaN, v[6] ?? NaN],
        gravity: [v[7] ?? NaN, v[8] ?? NaN, v[9] ?? NaN],
        accel: [v[16] ?? NaN, v[17] ?? NaN, v[18] ?? NaN],
        ...(trunk !== undefined ? { trunk } : {}),
        desired: v.subarray(TICK_FIELDS, TICK_FIELDS + n),
        applied: v.subarray(TICK_FIELDS + n, TICK_FIELDS + 2 * n),
        measured: v.subarray(TICK_FIELDS + 2 * n, TICK_FIELDS + 3 * n),
      });
    }
    Atomics.store(this.counters, READ, written);
    return out;
  }
}
