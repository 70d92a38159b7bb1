/**
 * Who is on a servo bus: ping each id in turn and, for each that answers, read what it is (model
 * number and firmware; Dynamixel's ping says it, a Feetech servo is read at addresses 0–4). Only
 * ping and read are ever sent, so a scan cannot change a servo. A garbled answer is asked again
 * (someone is there); silence is not (an absent id would cost its timeout once per retry). A
 * servo whose answer came after its timeout (a loaded host, a slow USB adapter: the answer lands in
 * the next id's turn) is there all the same, and is asked again at the end, patiently: on a loaded
 * Pi a wiring check must not miss a run of servos behind one stall.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ServoBus } from './bus.js';
import { dynamixelHardwareErrors } from './dynamixel.js';
import { BusLostError, ServoBusError, ServoGarbledError, ServoTimeoutError } from './errors.js';
import { feetechModelFromBytes, modelByNumber } from './models.js';

export interface FoundServo {
  readonly id: number;
  readonly model: number;
  /** The model's name, or undefined for a number quackd's tables do not know. */
  readonly name: string | undefined;
  /** Feetech `major.minor`; Dynamixel the single version number. */
  readonly firmware: string;
  /** The status error bits in words (and, on Dynamixel, the Hardware Error Status behind the alert). */
  readonly alarms: readonly string[];
}

export interface ScanResult {
  readonly servos: readonly FoundServo[];
  /** Ids whose every answer came back garbled: something is there, its reply unreadable. */
  readonly garbled: readonly number[];
}

export interface ScanOptions {
  readonly ids: readonly number[];
  /** Silence before an id is called empty (default: the bus's). */
  readonly timeoutMs?: number;
  /** Asks again after a garbled answer (default 2). */
  readonly garbledRetries?: number;
  /** Called before each id is pinged (progress). */
  readonly onId?: (id: number) => void;
}

/** How long a servo that answered late is given when asked again. */
const LATE_TIMEOUT_MS = 250;

/** Pings `ids` one by one and identifies each servo that answers. Fails only on a lost link. */
export async function scanBus(bus: ServoBus, options: ScanOptions): Promise<ScanResult> {
  const servos: FoundServo[] = [];
  const garbled: number[] = [];
  const timing = options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {};
  const retries = options.garbledRetries ?? 2;
  const late = new Set<number>();
  const heard = (id: number): void => void late.add(id);
  const ask = async (id: number, patient: boolean): Promise<void> => {
    const retry = patient ? { timeoutMs: LATE_TIMEOUT_MS, retries } : { ...timing, retries };
    try {
      const pong = await bus.ping(id, patient ? retry : { ...timing, retries: 0 }).catch((err: unknown) => {
        if (err instanceof ServoGarbledError) return bus.ping(id, retry);
        throw err;
      });
      servos.push(await identify(bus, id, pong.data, pong.alarms, retry));
    } catch (err) {
      if (err instanceof ServoGarbledError) garbled.push(id);
      else if (!(err instanceof ServoTimeoutError)) throw err;
    }
  };
  bus.on('stray', heard);
  try {
    for (const id of options.ids) {
      options.onId?.(id);
      await ask(id, false);
    }
    // A bus that answered late once may still have answers on their way: they count too.
    if (late.size > 0) await delay(LATE_TIMEOUT_MS);
  } finally {
    bus.off('stray', heard);
  }
  const known = new Set([...servos.map((s) => s.id), ...garbled]);
  for (const id of options.ids) if (late.has(id) && !known.has(id)) await ask(id, true);
  return { servos: servos.sort((a, b) => a.id - b.id), garbled: garbled.sort((a, b) => a - b) };
}

async function identify(bus: ServoBus, id: number, ping: Uint8Array, alarms: readonly string[], retry: { readonly retries: number }): Promise<FoundServo> {
  if (bus.protocol.name === 'dynamixel') {
    const model = (ping[0] ?? 0) | ((ping[1] ?? 0) << 8);
    const found = modelByNumber('dynamixel', model);
    const hardware = found?.registers.hardwareError;
    // The alert bit says only that something is wrong; the register says what (when it can be read).
    const words = alarms.length > 0 && hardware !== undefined ? await bus.read(id, hardware.address, 1, retry).then((r) => dynamixelHardwareErrors(r.data[0] ?? 0), unreadable) : [];
    return { id, model, name: found?.name, firmware: String(ping[2] ?? 0), alarms: words.length > 0 ? words : alarms };
  }
  const head = await bus.read(id, 0, 5, retry);
  const d = head.data;
  const { number, model } = feetechModelFromBytes(d[3] ?? 0, d[4] ?? 0);
  return { id, model: number, name: model?.name, firmware: `${d[0] ?? 0}.${d[1] ?? 0}`, alarms: [...new Set([...alarms, ...head.alarms])] };
}

/** A detail that could not be read leaves the servo listed without it; a lost link still ends the scan. */
function unreadable(err: unknown): string[] {
  if (err instanceof BusLostError || !(err instanceof ServoBusError)) throw err;
  return [];
}

/** `1-14`, `7`, `1,3,10-12` → the ids, each within 0..max. Throws RangeError saying what is wrong. */
export function parseIdRange(text: string, max: number): number[] {
  const ids = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (m === null) throw new RangeError(`"${part.trim()}" is not an id or a range like 1-14`);
    const from = Number(m[1]);
    const to = m[2] !== undefined ? Number(m[2]) : from;
    if (from > to) throw new RangeError(`${from}-${to} runs backwards`);
    if (to > max) throw new RangeError(`ids go from 0 to ${max}, not ${to}`);
    for (let id = from; id <= to; id++) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** parseIdRange's inverse, for a person: `10–14, 20–24, 30–33`. */
export function idRanges(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    runs.push(j === i ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return runs.join(', ');
}
