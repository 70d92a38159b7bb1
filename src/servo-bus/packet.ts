/**
 * What both servo protocols' codecs share: a packet as the wire carries it (an id, the byte after
 * the length, the parameters), a status reply as the bus reads it, and the counters a streaming
 * decoder keeps. Pure types and one helper; each protocol (feetech.ts, dynamixel.ts) owns its bytes.
 */

/** Feetech and Dynamixel both answer ids 0–252; 254 is everyone (no reply but to ping on Dynamixel). */
export const MAX_SERVO_ID = 252;
export const BROADCAST_ID = 0xfe;

export type ProtocolName = 'feetech' | 'dynamixel';
export const PROTOCOLS: readonly ProtocolName[] = ['feetech', 'dynamixel'];

/** One whole packet off the wire, checksum verified. `code` is the instruction (or, for a Feetech status, the error byte). */
export interface RawPacket {
  readonly id: number;
  readonly code: number;
  readonly params: Uint8Array;
}

/** A servo's reply: its error byte as sent, and the data after it. */
export interface StatusPacket {
  readonly id: number;
  readonly error: number;
  readonly data: Uint8Array;
}

export interface DecoderCounters {
  /** Packets whose checksum (Feetech) or CRC (Dynamixel) matched. */
  ok: number;
  /** Packets dropped for a wrong checksum or CRC. */
  checksum: number;
  /** Bytes skipped while looking for a header: line noise, a torn packet, an impossible length. */
  skipped: number;
}

export const emptyDecoderCounters = (): DecoderCounters => ({ ok: 0, checksum: 0, skipped: 0 });

/** A streaming decoder: push chunks split anywhere, get back the whole packets they completed. */
export interface PacketDecoder {
  readonly counters: DecoderCounters;
  push(chunk: Uint8Array): RawPacket[];
  /** Bytes held towards a packet not yet whole: a reply still arriving, or one cut short. */
  readonly pending: number;
  /** Forget a partial packet (a new transaction starts: stale bytes belong to nobody). Returns how many bytes it dropped. */
  reset(): number;
}

/** Bytes as the vendors' manuals print them: `FF FF 01 02 01 FB`. */
export function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
}

/** A growable byte buffer for the decoders: append at the end, consume from the front. */
class ByteQueue {
  private buf = new Uint8Array(512);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  append(chunk: Uint8Array): void {
    if (this.end + chunk.length > this.buf.length) {
      const live = this.buf.subarray(this.start, this.end);
      const next = this.buf.length - this.length >= chunk.length ? this.buf : new Uint8Array(Math.max(this.buf.length * 2, this.length + chunk.length));
      next.set(live);
      this.buf = next;
      this.end = live.length;
      this.start = 0;
    }
    this.buf.set(chunk, this.end);
    this.end += chunk.length;
  }

  at(i: number): number {
    return this.buf[this.start + i] ?? 0;
  }

  view(from: number, to: number): Uint8Array {
    return this.buf.subarray(this.start + from, this.start + to);
  }

  drop(n: number): void {
    this.start = Math.min(this.end, this.start + n);
    if (this.start === this.end) this.start = this.end = 0;
  }

  clear(): number {
    const n = this.length;
    this.start = this.end = 0;
    return n;
  }
}

/** How one protocol frames a packet: all the shared streaming decoder needs to know. */
export interface Framing {
  readonly header: readonly number[];
  /** Bytes from the header's start needed before total() can answer. */
  readonly sizeKnownAt: number;
  /** The whole packet's length from its first bytes, or undefined when they cannot start one (noise). */
  total(first: (i: number) => number): number | undefined;
  /** Its checksum or CRC matches. */
  intact(frame: Uint8Array): boolean;
  /** The packet inside a whole, intact frame. */
  packet(frame: Uint8Array): RawPacket;
}

/**
 * The streaming decoder both protocols share: push chunks split anywhere, get back the packets
 * they completed. After noise, an impossible length or a bad checksum it drops what cannot be a
 * packet's start and looks for the next header, which may lie inside what the bad one claimed.
 */
export class StreamDecoder implements PacketDecoder {
  readonly counters: DecoderCounters = emptyDecoderCounters();
  private readonly q = new ByteQueue();

  constructor(private readonly framing: Framing) {}

  get pending(): number {
    return this.q.length;
  }

  push(chunk: Uint8Array): RawPacket[] {
    const { q, framing: f } = this;
    const h = f.header;
    q.append(chunk);
    const packets: RawPacket[] = [];
    for (;;) {
      // Find the header; a partial one at the end may be completed by the next chunk.
      let at = 0;
      while (at + h.length <= q.length && !h.every((b, i) => q.at(at + i) === b)) at++;
      if (at > 0) {
        this.counters.skipped += at;
        q.drop(at);
      }
      if (q.length < f.sizeKnownAt) break;
      const total = f.total((i) => q.at(i));
      if (total === undefined) {
        this.counters.skipped++;
        q.drop(1);
        continue;
      }
      if (q.length < total) break;
      const frame = q.view(0, total);
      if (!f.intact(frame)) {
        // Drop the header only: the real next packet may start inside what this one claimed.
        this.counters.checksum++;
        q.drop(h.length);
        continue;
      }
      this.counters.ok++;
      packets.push(f.packet(frame));
      q.drop(total);
    }
    return packets;
  }

  reset(): number {
    return this.q.clear();
  }
}
