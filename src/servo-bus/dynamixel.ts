/**
 * Dynamixel Protocol 2.0 packets, byte for byte as the ROBOTIS e-manual gives them:
 * `FF FF FD 00 id lenL lenH instr params… crcL crcH`, len = stuffed instr + params + 2, CRC-16
 * (polynomial 0x8005, unreflected, initial 0) over everything before it, and byte stuffing (FD
 * after every FF FF FD in instr and params) so a header never appears inside a packet. A status
 * packet is instruction 0x55 with the error byte first. Pure: no I/O, no timers; the decoder
 * resynchronises on the next header after noise, a torn packet or a wrong CRC.
 */
import { BROADCAST_ID, StreamDecoder, type Framing } from './packet.js';

export const DYNAMIXEL = {
  ping: 0x01,
  read: 0x02,
  write: 0x03,
  regWrite: 0x04,
  action: 0x05,
  reboot: 0x08,
  status: 0x55,
  syncRead: 0x82,
  syncWrite: 0x83,
} as const;

const CRC_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? (c << 1) ^ 0x8005 : c << 1;
    table[i] = c & 0xffff;
  }
  return table;
})();

/** CRC-16 as the e-manual's update_crc computes it; "123456789" → 0xFEE8 (CRC-16/BUYPASS). */
export function crc16(bytes: Uint8Array, crc = 0): number {
  for (const b of bytes) crc = ((crc << 8) ^ (CRC_TABLE[((crc >> 8) ^ b) & 0xff] ?? 0)) & 0xffff;
  return crc;
}

/** Status error byte, low seven bits: why the instruction was not carried out. */
const REFUSALS: Readonly<Record<number, string>> = {
  1: 'result fail',
  2: 'instruction error',
  3: 'CRC error',
  4: 'data range error',
  5: 'data length error',
  6: 'data limit error',
  7: 'access error',
};
/** Status error bit 7: the servo has a hardware error (details in its Hardware Error Status register). */
export const ALERT_BIT = 0x80;

/** Why a servo refused the instruction, or undefined when it carried it out. */
export function dynamixelRefusal(error: number): string | undefined {
  const n = error & 0x7f;
  return n === 0 ? undefined : (REFUSALS[n] ?? `error ${n}`);
}

export function dynamixelAlarms(error: number): string[] {
  return (error & ALERT_BIT) !== 0 ? ['hardware error'] : [];
}

/** Hardware Error Status (X series, address 70), bit by bit as the control table names them. */
const HARDWARE_BITS: readonly (readonly [number, string])[] = [
  [0x01, 'voltage'],
  [0x04, 'overheat'],
  [0x08, 'motor encoder'],
  [0x10, 'electrical shock'],
  [0x20, 'overload'],
];

export function dynamixelHardwareErrors(status: number): string[] {
  const words = HARDWARE_BITS.filter(([bit]) => (status & bit) !== 0).map(([, w]) => w);
  for (let b = 0; b < 8; b++) if ((status & (1 << b)) !== 0 && !HARDWARE_BITS.some(([bit]) => bit === 1 << b)) words.push(`bit ${b}`);
  return words;
}

const HEADER = [0xff, 0xff, 0xfd, 0x00] as const;
/** Header, reserved, id, length (2), instruction, CRC (2). */
export const DYNAMIXEL_OVERHEAD = 10;
/** DynamixelSDK's RXPACKET_MAX_LEN: a longer length field is noise, not a packet. */
const MAX_LEN = 1024;

/** Insert FD after every FF FF FD in `body` (instruction + params); `before` are the two bytes preceding it on the wire. */
function stuff(body: Uint8Array, before: readonly [number, number]): Uint8Array {
  const out: number[] = [];
  let a = before[0];
  let b = before[1];
  for (const c of body) {
    out.push(c);
    if (a === 0xff && b === 0xff && c === 0xfd) out.push(0xfd);
    a = b;
    b = c;
  }
  return Uint8Array.from(out);
}

/** The inverse: drop the FD that follows each FF FF FD. */
function unstuff(body: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? 0;
    out.push(c);
    if (i >= 2 && c === 0xfd && body[i - 1] === 0xff && body[i - 2] === 0xff && body[i + 1] === 0xfd) i++;
  }
  return Uint8Array.from(out);
}

/** One packet for the wire. Throws RangeError on a bad id or an oversized packet: that is a bug. */
export function dynamixelPacket(id: number, instruction: number, params: ArrayLike<number> = []): Uint8Array {
  if (!Number.isInteger(id) || id < 0 || id > BROADCAST_ID || id === 0xfd) throw new RangeError(`servo id must be 0..252 or 254, got ${id}`);
  const plain = new Uint8Array(params.length + 1);
  plain[0] = instruction;
  plain.set(params, 1);
  const len0 = plain.length + 2;
  const body = stuff(plain, [len0 & 0xff, len0 >> 8]);
  const len = body.length + 2;
  if (len > MAX_LEN) throw new RangeError(`a Dynamixel packet carries at most ${MAX_LEN} bytes after its length, got ${len}`);
  const out = new Uint8Array(7 + len);
  out.set(HEADER);
  out.set([id, len & 0xff, len >> 8], 4);
  out.set(body, 7);
  const crc = crc16(out.subarray(0, out.length - 2));
  out[out.length - 2] = crc & 0xff;
  out[out.length - 1] = crc >> 8;
  return out;
}

const u16 = (v: number): [number, number] => [v & 0xff, (v >> 8) & 0xff];

export const dynamixelPing = (id: number): Uint8Array => dynamixelPacket(id, DYNAMIXEL.ping);
export const dynamixelRead = (id: number, address: number, length: number): Uint8Array => dynamixelPacket(id, DYNAMIXEL.read, [...u16(address), ...u16(length)]);
export const dynamixelWrite = (id: number, address: number, data: ArrayLike<number>): Uint8Array => dynamixelPacket(id, DYNAMIXEL.write, [...u16(address), ...Array.from(data)]);

export function dynamixelSyncRead(ids: readonly number[], address: number, length: number): Uint8Array {
  return dynamixelPacket(BROADCAST_ID, DYNAMIXEL.syncRead, [...u16(address), ...u16(length), ...ids]);
}

export function dynamixelSyncWrite(address: number, length: number, entries: ReadonlyArray<readonly [number, ArrayLike<number>]>): Uint8Array {
  const params = [...u16(address), ...u16(length)];
  for (const [id, data] of entries) {
    if (data.length !== length) throw new RangeError(`sync write of ${length} bytes: servo ${id} was given ${data.length}`);
    params.push(id, ...Array.from(data));
  }
  return dynamixelPacket(BROADCAST_ID, DYNAMIXEL.syncWrite, params);
}

/** A status packet, the servo's side: for the simulator and the tests. */
export const dynamixelStatus = (id: number, error: number, data: ArrayLike<number> = []): Uint8Array => dynamixelPacket(id, DYNAMIXEL.status, [error, ...Array.from(data)]);

const FRAMING: Framing = {
  header: [0xff, 0xff, 0xfd],
  sizeKnownAt: 7,
  total: (at) => {
    const id = at(4);
    const len = at(5) | (at(6) << 8);
    return at(3) !== 0x00 || id === 0xfd || id === 0xff || len < 3 || len > MAX_LEN ? undefined : len + 7;
  },
  intact: (frame) => {
    const crc = crc16(frame.subarray(0, frame.length - 2));
    return frame[frame.length - 2] === (crc & 0xff) && frame[frame.length - 1] === crc >> 8;
  },
  packet: (frame) => {
    const body = unstuff(frame.subarray(7, frame.length - 2));
    return { id: frame[4] ?? 0, code: body[0] ?? 0, params: body.slice(1) };
  },
};

/** Status packets (or, for the simulator, instructions) out of the bytes as they arrive. */
export class DynamixelDecoder extends StreamDecoder {
  constructor() {
    super(FRAMING);
  }
}
