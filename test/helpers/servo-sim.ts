/**
 * A servo-bus simulator: the far end of a servo bus in a test, as the host firmware is for the
 * bridge. It answers Feetech or Dynamixel instructions from a register table per servo (set up
 * from the model's control table: model number, firmware, id, a centred position), records every
 * instruction it received, and misbehaves on cue: drop a servo's next replies, garble or cut
 * them, keep a servo silent, raise error bits. With `baud` it paces its replies as a wire at that
 * rate would (the instruction's bytes, the servo's return delay, then the reply's bytes, one
 * after another on the one wire), so a bus's timings over a pty mean something.
 *
 * It runs over any pair of streams (attach), over the far end of a held pty (ServoSim.open,
 * held-pty.ts), or in a process of its own (servo-sim-main.ts, on a master it inherits), where
 * pacing's short busy-waits cannot stall the bus under test.
 */
import type { Readable } from 'node:stream';
import { encodeRegister, modelByName, type ServoModel } from '../../src/servo-bus/models.js';
import { BROADCAST_ID, type PacketDecoder, type ProtocolName, type RawPacket } from '../../src/servo-bus/packet.js';
import { protocolNamed, type ServoProtocol } from '../../src/servo-bus/protocol.js';
import type { FarEnd } from './held-pty.js';

export interface SimServoSpec {
  readonly id: number;
  /** A model name from src/servo-bus/models.ts (STS3215, XL330-M288 …). */
  readonly model: string;
  /** Feetech: [major, minor] at addresses 0–1; Dynamixel: [version] at address 6. */
  readonly firmware?: readonly number[];
  /** Register bytes to set after the defaults: address → byte. */
  readonly registers?: Readonly<Record<number, number>>;
}

export interface ServoSimOptions {
  readonly protocol: ProtocolName;
  readonly servos: readonly SimServoSpec[];
  /** Pace bytes as a wire at this rate would (default: answer at once). */
  readonly baud?: number;
  /** Each servo's wait before it answers, in µs (Return Delay Time; default 0). */
  readonly returnDelayUs?: number;
  /**
   * Called after a write or sync write changed a servo's table: where a twin hooks in (a goal
   * position written drives its joint; what it reads back goes into the table with table(id)).
   */
  readonly onWrite?: (id: number, address: number, data: Uint8Array) => void;
}

export interface ReceivedInstruction {
  /** The id it was addressed to (254: everyone). */
  readonly id: number;
  /** ping, read, write, sync read, sync write … or 0x.. for one the simulator does not know. */
  readonly instruction: string;
  readonly params: readonly number[];
}

/** Instructions that change a servo: what `bus scan` must never send. */
export const WRITING = new Set(['write', 'reg write', 'action', 'sync write', 'reboot']);

interface Servo {
  readonly id: number;
  readonly model: ServoModel;
  readonly table: Uint8Array;
  silent: boolean;
  drop: number;
  garble: number;
  cut: number;
  error: number;
}

export class ServoSim {
  readonly protocol: ServoProtocol;
  /** Every whole instruction received, in order. */
  readonly received: ReceivedInstruction[] = [];
  private readonly servos = new Map<number, Servo>();
  private readonly decoder: PacketDecoder;
  private readonly byteMs: number;
  private readonly delayMs: number;
  private readonly onWrite: ServoSimOptions['onWrite'];
  private write: ((bytes: Uint8Array) => void) | undefined;
  private input: Readable | undefined;
  /** When the one wire is next free, in performance.now() ms (pacing only). */
  private wireFreeAt = 0;
  private readonly outbox: { readonly at: number; readonly bytes: Uint8Array }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lagMs = 0;
  private lagUntil = 0;
  private readonly held: { readonly at: number; readonly chunk: Uint8Array }[] = [];
  /** Sync reads still to hold (holdReplies), how long, and until when replies wait (performance.now() ms). */
  private holdLeft = 0;
  private holdMs = 0;
  private holdUntil = 0;

  constructor(options: ServoSimOptions) {
    this.protocol = protocolNamed(options.protocol);
    this.decoder = this.protocol.decoder();
    this.byteMs = options.baud !== undefined ? 10_000 / options.baud : 0;
    this.delayMs = (options.returnDelayUs ?? 0) / 1000;
    this.onWrite = options.onWrite;
    for (const spec of options.servos) this.servos.set(spec.id, makeServo(options.protocol, spec));
  }

  /** Answers on the far end of a held pty (HeldPty's `far`, the rig's wire, or farEndOn an inherited master). */
  static open(end: FarEnd, options: ServoSimOptions): ServoSim {
    const sim = new ServoSim(options);
    // The pty's owner closes the master (unplug, close); closing the simulator only stops its answers.
    // Its writes are synchronous: a paced reply leaves at its time even while this thread busy-waits for the next.
    sim.attach(end.input, (bytes) => end.write(bytes));
    return sim;
  }

  /** Answer what arrives on `input` by calling `write`. */
  attach(input: Readable, write: (bytes: Uint8Array) => void): void {
    this.input = input;
    this.write = write;
    input.on('data', (chunk: Buffer) => this.receive(chunk));
    input.on('error', () => undefined);
  }

  /** A servo's register table, live: a test reads what was written, or sets what will be read. */
  table(id: number): Uint8Array {
    return this.servo(id).table;
  }

  /** Keep servo `id` silent (true) or let it answer again. */
  silence(id: number, on = true): void {
    this.servo(id).silent = on;
  }

  /** Servo `id` sends nothing for its next `count` replies. */
  drop(id: number, count = 1): void {
    this.servo(id).drop += count;
  }

  /** Servo `id`'s next `count` replies have a byte flipped: the checksum no longer matches. */
  garble(id: number, count = 1): void {
    this.servo(id).garble += count;
  }

  /** Servo `id`'s next `count` replies stop half-way. */
  cut(id: number, count = 1): void {
    this.servo(id).cut += count;
  }

  /** Servo `id` answers with these error bits set from now on (0 clears them). */
  raise(id: number, errorBits: number): void {
    this.servo(id).error = errorBits;
  }

  /** What was received that would change a servo (write, sync write, reg write, action, reboot). */
  writes(): ReceivedInstruction[] {
    return this.received.filter((r) => WRITING.has(r.instruction));
  }

  close(): void {
    clearTimeout(this.timer);
    this.input?.removeAllListeners('data');
    this.write = undefined;
  }

  private servo(id: number): Servo {
    const s = this.servos.get(id);
    if (s === undefined) throw new Error(`the simulator has no servo ${id}`);
    return s;
  }

  /**
   * The wire is slow for `windowMs` from now: every byte that arrives is taken `lagMs` after it
   * came (a loaded host's pty, whose kernel worker is starved), so a write lands and its reply
   * leaves that much later.
   */
  lag(lagMs: number, windowMs: number): void {
    this.lagMs = lagMs;
    this.lagUntil = performance.now() + windowMs;
  }

  private receive(chunk: Uint8Array): void {
    if (this.lagMs > 0 && performance.now() < this.lagUntil) {
      const at = performance.now() + this.lagMs;
      this.held.push({ at, chunk });
      if (this.held.length === 1) setTimeout(() => this.release(), this.lagMs);
      return;
    }
    if (this.held.length > 0) {
      this.held.push({ at: 0, chunk });
      return;
    }
    this.take(chunk);
  }

  /**
   * The answers to the next `count` sync reads (a bus cycle's read and its retry) reach the host
   * `ms` after the first of them came, all at once, and so does any other reply meanwhile: the
   * servos answered in time, the host's tty path was starved and read them late.
   */
  holdReplies(ms: number, count: number): void {
    this.holdMs = ms;
    this.holdLeft = count;
  }

  private release(): void {
    while (this.held.length > 0 && (this.held[0]?.at ?? 0) <= performance.now() + 0.5) this.take(this.held.shift()!.chunk);
    const next = this.held[0];
    if (next !== undefined) setTimeout(() => this.release(), Math.max(0, next.at - performance.now()));
  }

  private take(chunk: Uint8Array): void {
    if (this.byteMs > 0) this.wireFreeAt = Math.max(performance.now(), this.wireFreeAt) + chunk.length * this.byteMs;
    for (const p of this.decoder.push(chunk)) this.answer(p);
  }

  private answer(p: RawPacket): void {
    const name = this.protocol.instructionName(p.code);
    this.received.push({ id: p.id, instruction: name, params: [...p.params] });
    const dxl = this.protocol.name === 'dynamixel';
    const word = (at: number): number => (dxl ? (p.params[at] ?? 0) | ((p.params[at + 1] ?? 0) << 8) : (p.params[at] ?? 0));
    const head = dxl ? 4 : 2; // address and length: two bytes each on Dynamixel, one on Feetech
    const broadcast = p.id === BROADCAST_ID;
    const targets = broadcast ? [...this.servos.values()].sort((a, b) => a.id - b.id) : [this.servos.get(p.id)].filter((s): s is Servo => s !== undefined);
    switch (name) {
      case 'ping':
        if (broadcast && !this.protocol.broadcastPingAnswers) return;
        // Dynamixel's ping reply carries the model number and the firmware version; Feetech's nothing.
        for (const s of targets) this.reply(s, dxl ? [...s.table.subarray(0, 2), s.table[s.model.registers.firmware.address] ?? 0] : []);
        return;
      case 'read':
        for (const s of targets) this.reply(s, s.table.slice(word(0), word(0) + word(dxl ? 2 : 1)));
        return;
      case 'write':
        for (const s of targets) {
          this.store(s, word(0), p.params.subarray(dxl ? 2 : 1));
          if (!broadcast) this.reply(s, []);
        }
        return;
      case 'sync read': {
        if (this.holdLeft > 0) {
          this.holdLeft--;
          if (this.holdUntil <= performance.now()) this.holdUntil = performance.now() + this.holdMs;
        }
        const [address, length] = [word(0), word(dxl ? 2 : 1)];
        for (const id of p.params.subarray(head)) {
          const s = this.servos.get(id);
          if (s !== undefined) this.reply(s, s.table.slice(address, address + length));
        }
        return;
      }
      case 'sync write': {
        const [address, length] = [word(0), word(dxl ? 2 : 1)];
        for (let at = head; at + 1 + length <= p.params.length; at += 1 + length) {
          const s = this.servos.get(p.params[at] ?? -1);
          if (s !== undefined) this.store(s, address, p.params.subarray(at + 1, at + 1 + length));
        }
        return;
      }
      default:
        // reg write, action, reboot and the rest: recorded, not acted on
        return;
    }
  }

  private store(s: Servo, address: number, data: Uint8Array): void {
    s.table.set(data, address);
    this.onWrite?.(s.id, address, data);
  }

  private reply(s: Servo, data: ArrayLike<number>): void {
    if (s.silent) return;
    if (s.drop > 0) {
      s.drop--;
      return;
    }
    let bytes = this.protocol.status(s.id, s.error, data);
    if (s.garble > 0) {
      s.garble--;
      bytes = Uint8Array.from(bytes);
      const at = bytes.length - 2;
      bytes[at] = (bytes[at] ?? 0) ^ 0x41;
    } else if (s.cut > 0) {
      s.cut--;
      bytes = bytes.slice(0, Math.ceil(bytes.length / 2));
    }
    this.send(bytes);
  }

  private send(bytes: Uint8Array): void {
    const held = this.holdUntil > performance.now();
    if (this.byteMs === 0 && !held && this.outbox.length === 0) {
      this.write?.(bytes);
      return;
    }
    if (held) this.wireFreeAt = Math.max(this.wireFreeAt, this.holdUntil);
    this.wireFreeAt += this.delayMs + bytes.length * this.byteMs;
    this.outbox.push({ at: this.wireFreeAt, bytes });
    this.flush();
  }

  /** Sends what is due; waits for the next one with a timer when it is far, by spinning when it is near (timers are ~1 ms coarse). */
  private flush(): void {
    clearTimeout(this.timer);
    for (;;) {
      const next = this.outbox[0];
      if (next === undefined) return;
      const wait = next.at - performance.now();
      if (wait > 1.5) {
        this.timer = setTimeout(() => this.flush(), wait - 1);
        return;
      }
      while (performance.now() < next.at) {
        // busy-wait: the reply leaves when its last byte would have
      }
      this.outbox.shift();
      this.write?.(next.bytes);
    }
  }
}

function makeServo(protocol: ProtocolName, spec: SimServoSpec): Servo {
  const model = modelByName(spec.model);
  if (model === undefined || model.protocol !== protocol) throw new Error(`the simulator has no ${protocol} model ${spec.model}`);
  const r = model.registers;
  const table = new Uint8Array(1024);
  const put = (reg: typeof r.id, value: number): void => table.set(encodeRegister(reg, value, model.byteOrder), reg.address);
  put(r.modelNumber, model.number);
  if (protocol === 'feetech') table.set(spec.firmware ?? [3, 10], r.firmware.address);
  else table[r.firmware.address] = spec.firmware?.[0] ?? 52;
  put(r.id, spec.id);
  const centre = model.countsPerTurn / 2;
  put(r.goalPosition, centre);
  put(r.presentPosition, centre);
  put(r.presentVoltage, protocol === 'feetech' ? 74 : 50);
  put(r.presentTemperature, 31);
  // The factory's limits: an STS3215 of the 7.4 V kind 4.0–8.0 V, an XL330 3.5–7.0 V; both 70 °C.
  put(r.minVoltageLimit, protocol === 'feetech' ? 40 : 35);
  put(r.maxVoltageLimit, protocol === 'feetech' ? 80 : 70);
  put(r.temperatureLimit, 70);
  for (const [address, byte] of Object.entries(spec.registers ?? {})) table[Number(address)] = byte;
  return { id: spec.id, model, table, silent: false, drop: 0, garble: 0, cut: 0, error: 0 };
}
