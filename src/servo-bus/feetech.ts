/**
 * Feetech STS/SCS packets, byte for byte as the servos speak them (the ROBOTIS Protocol 1.0 frame,
 * which Feetech kept): `FF FF id len instr params… sum`, len = params + 2, sum = ~(id + len +
 * instr + params) & 0xFF. A status reply has the same frame with the error byte where the
 * instruction was. Pure: no I/O, no timers. The decoder resynchronises on the next `FF FF`
 * after noise, a torn packet or a wrong checksum, as FTServo's rxPacket does.
 */
import { BROADCAST_ID, StreamDecoder, type Framing } from './packet.js';

export const FEETECH = {
  ping: 0x01,
  read: 0x02,
  write: 0x03,
  regWrite: 0x04,
  action: 0x05,
  syncRead: 0x82,
  syncWrite: 0x83,
} as const;

/** The status error byte's bits, as Feetech's SDK names them (scservo_sdk: ERRBIT_*). */
const ALARM_BITS: readonly (readonly [number, string])[] = [
  [0x01, 'voltage'],
  [0x02, 'angle sensor'],
  [0x04, 'overheat'],
  [0x08, 'overcurrent'],
  [0x20, 'overload'],
];

/** The words for a status error byte; unnamed bits as `bit N`. */
export function feetechAlarms(error: number): string[] {
  const words: string[] = [];
  let rest = error;
  for (const [bit, word] of ALARM_BITS) {
    if ((error & bit) !== 0) words.push(word);
    rest &= ~bit;
  }
  for (let b = 0; b < 8; b++) if ((rest & (1 << b)) !== 0) words.push(`bit ${b}`);
  return words;
}

const HEADER = 0xff;
/** FTServo's RXPACKET_MAX_LEN: a longer length byte is noise, not a packet. */
const MAX_LEN = 250;
/** Header, id, length, instruction or error, checksum. */
export const FEETECH_OVERHEAD = 6;

function checksum(bytes: Uint8Array): number {
  let sum = 0;
  for (const b of bytes) sum += b;
  return ~sum & 0xff;
}

/** One packet for the wire. Throws RangeError on a bad id or too many parameters: that is a bug. */
export function feetechPacket(id: number, code: number, params: ArrayLike<number> = []): Uint8Array {
  if (!Number.isInteger(id) || id < 0 || id > BROADCAST_ID) throw new RangeError(`servo id must be 0..254, got ${id}`);
  const len = params.length + 2;
  if (len > MAX_LEN) throw new RangeError(`a Feetech packet carries at most ${MAX_LEN - 2} parameter bytes, got ${params.length}`);
  const out = new Uint8Array(len + 4);
  out.set([HEADER, HEADER, id, len, code]);
  out.set(params, 5);
  out[out.length - 1] = checksum(out.subarray(2, out.length - 1));
  return out;
}

export const feetechPing = (id: number): Uint8Array => feetechPacket(id, FEETECH.ping);
export const feetechRead = (id: number, address: number, length: number): Uint8Array => feetechPacket(id, FEETECH.read, [address, length]);
export const feetechWrite = (id: number, address: number, data: ArrayLike<number>): Uint8Array => feetechPacket(id, FEETECH.write, [address, ...Array.from(data)]);

export function feetechSyncRead(ids: readonly number[], address: number, length: number): Uint8Array {
  return feetechPacket(BROADCAST_ID, FEETECH.syncRead, [address, length, ...ids]);
}

/** One packet writing `length` bytes at `address` on every servo listed, each its own bytes. */
export function feetechSyncWrite(address: number, length: number, entries: ReadonlyArray<readonly [number, ArrayLike<number>]>): Uint8Array {
  const params = [address, length];
  for (const [id, data] of entries) {
    if (data.length !== length) throw new RangeError(`sync write of ${length} bytes: servo ${id} was given ${data.length}`);
    params.push(id, ...Array.from(data));
  }
  return feetechPacket(BROADCAST_ID, FEETECH.syncWrite, params);
}

/** A status packet with `data` for the simulator and the tests: the servo's side of the frame. */
export const feetechStatus = (id: number, error: number, data: ArrayLike<number> = []): Uint8Array => feetechPacket(id, error, data);

const FRAMING: Framing = {
  header: [HEADER, HEADER],
  sizeKnownAt: 4,
  // FF FF FF: the header's first byte was noise (or a preamble); an id of 255 cannot be.
  total: (at) => (at(2) > BROADCAST_ID || at(3) < 2 || at(3) > MAX_LEN ? undefined : at(3) + 4),
  intact: (frame) => checksum(frame.subarray(2, frame.length - 1)) === frame[frame.length - 1],
  packet: (frame) => ({ id: frame[2] ?? 0, code: frame[4] ?? 0, params: frame.slice(5, frame.length - 1) }),
};

/** Status packets (or, for the simulator, instructions) out of the bytes as they arrive. */
export class FeetechDecoder extends StreamDecoder {
  constructor() {
    super(FRAMING);
  }
}
