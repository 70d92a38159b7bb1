/**
 * The host firmware's joints with no physics but a builder's hands (quackd-fw-host --plant,
 * hal/host/plant.h): a servo with torque on stands at the goal the firmware last wrote it, one with
 * torque off stays where it is until the test moves it (move()), as a hand bends a limp duck's
 * knee. The trunk reads level and still. It steps every 5 ms on the wall clock, in the test's own
 * process; the firmware's boot goals (its home pose) are where the joints stand at first.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { FILE_BYTES, GOALS_AT, GOALS_BYTES, JOINTS, STATE_AT, STATE_BYTES } from './plant-file.js';

const STEP_MS = 5;
/** The accelerometer upright: gravity's reaction, +z. */
const UPRIGHT = [0, 0, 9.81];

export class HandPlant {
  private readonly fd: number;
  private readonly goalBuf = Buffer.alloc(GOALS_BYTES);
  private readonly stateBuf = Buffer.alloc(STATE_BYTES);
  private pos: Float64Array | undefined;
  private torqueMask = 0;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;

  /** The shared file, made in `dir` before the firmware opens it (pass `--plant file`). */
  readonly file: string;

  constructor(dir: string) {
    this.file = join(dir, 'plant.bin');
    this.fd = openSync(this.file, 'w+');
    writeSync(this.fd, Buffer.alloc(FILE_BYTES), 0, FILE_BYTES, 0);
  }

  /** Starts stepping (once the firmware runs: its boot goals say where the joints stand). */
  start(): this {
    this.timer ??= setInterval(() => this.step(), STEP_MS);
    return this;
  }

  /** Bends a limp joint to `rad`; a joint holding torque is the firmware's and refuses. */
  move(joint: number, rad: number): void {
    if (this.pos === undefined) throw new Error('the firmware has told the joints nothing yet');
    if (this.torqueOn(joint)) throw new Error(`joint ${joint} holds torque: a hand cannot move it`);
    this.pos[joint] = rad;
    this.publish();
  }

  position(joint: number): number {
    return this.pos?.[joint] ?? Number.NaN;
  }

  torqueOn(joint: number): boolean {
    return (this.torqueMask & (1 << joint)) !== 0;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    closeSync(this.fd);
  }

  private step(): void {
    const b = this.goalBuf;
    if (readSync(this.fd, b, 0, GOALS_BYTES, GOALS_AT) === GOALS_BYTES) {
      const seq = b.readUInt32LE(0);
      // A record whose two seqs differ was read mid-write: the next step reads it whole.
      if (seq !== 0 && seq === b.readUInt32LE(GOALS_BYTES - 4)) {
        this.torqueMask = b.readUInt32LE(4);
        const goals = Array.from({ length: JOINTS }, (_, i) => b.readFloatLE(8 + 4 * i));
        if (this.pos === undefined) this.pos = Float64Array.from(goals);
        else for (let i = 0; i < JOINTS; i++) if (this.torqueOn(i)) this.pos[i] = goals[i] ?? 0;
      }
    }
    this.publish();
  }

  private publish(): void {
    if (this.pos === undefined) return;
    const b = this.stateBuf;
    this.seq += 1;
    b.writeUInt32LE(this.seq, 0);
    const values = [...this.pos, ...new Array<number>(JOINTS).fill(0), 0, 0, 0, ...UPRIGHT];
    values.forEach((v, i) => b.writeFloatLE(v, 4 + 4 * i));
    b.writeUInt32LE(this.seq, STATE_BYTES - 4);
    writeSync(this.fd, b, 0, STATE_BYTES, STATE_AT);
  }
}
