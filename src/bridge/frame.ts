/**
 * Serial framing, byte for byte the firmware's (firmware-bridge/src/frame.c): payload + CRC-32
 * (IEEE, little-endian), COBS-encoded, ended by a 0x00 delimiter. Pure: no I/O, no timers. The
 * streaming decoder accepts chunks split anywhere, enforces the length limit and counts every
 * frame it drops by reason; only a frame whose CRC matches is ever returned.
 */

export const FRAME_MAX_PAYLOAD = 1024;
export const FRAME_CRC_LEN = 4;
const MAX_RAW = FRAME_MAX_PAYLOAD + FRAME_CRC_LEN;
/** COBS adds one byte per 254 plus one; the delimiter is not counted. */
export const FRAME_MAX_ENCODED = MAX_RAW + Math.floor(MAX_RAW / 254) + 1;

export interface FrameCounters {
  /** Frames accepted. */
  ok: number;
  /** CRC mismatch. */
  crc: number;
  /** COBS structure broken. */
  malformed: number;
  /** More than FRAME_MAX_ENCODED bytes before a delimiter. */
  overlong: number;
  /** Shorter than the CRC plus one payload byte. */
  runt: number;
  /**
   * The tail of a frame already under way when the link was joined (a port opened, or reopened,
   * while the firmware was sending; serialport flushes what was queued): skipped, not damage.
   */
  cut: number;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 as zlib computes it; "123456789" → 0xcbf43926. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = (CRC_TABLE[(crc ^ b) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function cobsEncode(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(input.length + Math.ceil(input.length / 254) + 1);
  let codeAt = 0;
  let o = 1;
  let code = 1;
  for (const byte of input) {
    if (byte !== 0) {
      out[o++] = byte;
      code++;
    }
    if (byte === 0 || code === 0xff) {
      out[codeAt] = code;
      codeAt = o++;
      code = 1;
    }
  }
  out[codeAt] = code;
  return out.subarray(0, o);
}

type CobsResult = Uint8Array | 'malformed' | 'overlong';

function cobsDecode(input: Uint8Array, cap: number): CobsResult {
  const out = new Uint8Array(cap);
  let i = 0;
  let o = 0;
  while (i < input.length) {
    const code = input[i++] ?? 0;
    if (code === 0) return 'malformed';
    const run = code - 1;
    if (run > input.length - i) return 'malformed';
    if (run > cap - o) return 'overlong';
    out.set(input.subarray(i, i + run), o);
    o += run;
    i += run;
    if (code !== 0xff && i < input.length) {
      if (o >= cap) return 'overlong';
      out[o++] = 0;
    }
  }
  return out.subarray(0, o);
}

/** Frame one payload for the wire (delimiter included). Throws on an empty or oversized payload: that is a bug. */
export function encodeFrame(payload: Uint8Array): Uint8Array {
  if (payload.length === 0 || payload.length > FRAME_MAX_PAYLOAD) {
    throw new RangeError(`frame payload must be 1..${FRAME_MAX_PAYLOAD} bytes, got ${payload.length}`);
  }
  const raw = new Uint8Array(payload.length + FRAME_CRC_LEN);
  raw.set(payload);
  new DataView(raw.buffer).setUint32(payload.length, crc32(payload), true);
  const enc = cobsEncode(raw);
  const wire = new Uint8Array(enc.length + 1);
  wire.set(enc);
  return wire;
}

export function emptyFrameCounters(): FrameCounters {
  return { ok: 0, crc: 0, malformed: 0, overlong: 0, runt: 0, cut: 0 };
}

/** Streaming decoder: push chunks as they arrive, get back the payloads they completed. */
export class FrameDecoder {
  readonly counters: FrameCounters = emptyFrameCounters();
  private readonly buf = new Uint8Array(FRAME_MAX_ENCODED);
  private len = 0;
  /** After an overlong frame, skip to the next delimiter. */
  private discarding = false;
  /**
   * No frame has come whole since the link was joined: the first that fails is the tail of one
   * cut at its start, not a damaged one. A link that is damaged still fails the next.
   */
  private joining = true;

  push(chunk: Uint8Array): Uint8Array[] {
    const frames: Uint8Array[] = [];
    for (const byte of chunk) {
      if (byte !== 0) {
        if (this.discarding) continue;
        if (this.len >= FRAME_MAX_ENCODED) {
          this.discarding = true;
          this.len = 0;
          this.counters.overlong++;
          continue;
        }
        this.buf[this.len++] = byte;
        continue;
      }
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      if (this.len === 0) continue; // idle delimiters resynchronise; they are not frames
      const payload = this.finish(this.buf.subarray(0, this.len));
      this.len = 0;
      if (payload !== undefined) frames.push(payload);
    }
    return frames;
  }

  /** Forget a partial frame (e.g. after the link was replaced). */
  reset(): void {
    this.len = 0;
    this.discarding = false;
    this.joining = true;
  }

  /** A frame failed `why`; the first after the link was joined was cut, not damaged. */
  private failed(why: 'crc' | 'malformed' | 'overlong' | 'runt'): undefined {
    this.counters[this.joining ? 'cut' : why]++;
    this.joining = false;
    return undefined;
  }

  private finish(encoded: Uint8Array): Uint8Array | undefined {
    const raw = cobsDecode(encoded, MAX_RAW);
    if (raw === 'malformed' || raw === 'overlong') return this.failed(raw);
    if (raw.length < FRAME_CRC_LEN + 1) return this.failed('runt');
    const plen = raw.length - FRAME_CRC_LEN;
    const payload = raw.slice(0, plen);
    const want = new DataView(raw.buffer, raw.byteOffset).getUint32(plen, true);
    if (crc32(payload) !== want) return this.failed('crc');
    this.counters.ok++;
    this.joining = false;
    return payload;
  }
}
