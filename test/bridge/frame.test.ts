/**
 * The TS frame decoder: table tests, then property-based fuzzing with fast-check: random bytes,
 * truncated frames, flipped bits, overlong frames and valid frames split at every byte boundary.
 * No input crashes it, and no frame is ever accepted that was not sent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc32 as zlibCrc32 } from 'node:zlib';
import fc from 'fast-check';
import { FRAME_MAX_ENCODED, FRAME_MAX_PAYLOAD, FrameDecoder, crc32, encodeFrame } from '../../src/bridge/frame.js';

const payload = fc.uint8Array({ minLength: 1, maxLength: FRAME_MAX_PAYLOAD });
/** Payloads rich in zeros and long non-zero runs, where COBS has its edge cases. */
const tricky = fc.oneof(
  payload,
  fc.uint8Array({ minLength: 1, maxLength: 600, min: 0, max: 2 }),
  fc.integer({ min: 250, max: 1024 }).map((n) => new Uint8Array(n).fill(0x55)),
);

function decodeAll(chunks: readonly Uint8Array[]): { frames: Uint8Array[]; decoder: FrameDecoder } {
  const decoder = new FrameDecoder();
  const frames = chunks.flatMap((c) => decoder.push(c));
  return { frames, decoder };
}

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

describe('frame: table', () => {
  it('CRC-32 is zlib\'s', () => {
    assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (b) => crc32(b) === zlibCrc32(b)));
  });

  it('encodes a known frame byte for byte', () => {
    // payload 00 ff 00: raw = 00 ff 00 + CRC-32 LE; COBS: 01 | 02 ff | 05 crc0..crc3 | 00
    const wire = encodeFrame(Uint8Array.from([0, 0xff, 0]));
    const crc = crc32(Uint8Array.from([0, 0xff, 0]));
    const c = [crc & 0xff, (crc >>> 8) & 0xff, (crc >>> 16) & 0xff, crc >>> 24];
    assert.ok(c.every((b) => b !== 0), 'pick a payload whose CRC has no zero byte');
    assert.deepEqual([...wire], [0x01, 0x02, 0xff, 0x05, ...c, 0x00]);
  });

  it('takes a payload of exactly the length limit, at the longest encoding the decoder allows', () => {
    const p = new Uint8Array(FRAME_MAX_PAYLOAD).fill(0x55);
    const wire = encodeFrame(p);
    assert.equal(wire.length, FRAME_MAX_ENCODED + 1);
    const { frames, decoder } = decodeAll([wire]);
    assert.equal(frames.length, 1);
    assert.ok(same(frames[0] ?? new Uint8Array(), p));
    assert.equal(decoder.counters.overlong, 0);
  });

  it('refuses to encode an empty or oversized payload', () => {
    assert.throws(() => encodeFrame(new Uint8Array(0)), RangeError);
    assert.throws(() => encodeFrame(new Uint8Array(FRAME_MAX_PAYLOAD + 1)), RangeError);
  });

  it('counts each kind of drop', () => {
    const d = new FrameDecoder();
    d.push(Uint8Array.from([0, 0, 0])); // idle delimiters are not frames
    d.push(encodeFrame(Uint8Array.from([1]))); // in step with the sender
    d.push(Uint8Array.from([0x05, 1, 0])); // COBS says 4 bytes follow, 1 does
    d.push(Uint8Array.from([0x03, 1, 2, 0])); // 2 bytes: shorter than a CRC
    d.push(Uint8Array.from([0x07, 1, 2, 3, 4, 5, 6, 0])); // CRC mismatch
    d.push(new Uint8Array(FRAME_MAX_ENCODED + 5).fill(7));
    d.push(Uint8Array.from([0]));
    assert.deepEqual(d.counters, { ok: 1, crc: 1, malformed: 1, overlong: 1, runt: 1, cut: 0 });
  });

  it('a link joined mid-frame: the first tail is cut, not damage; the next failure is, and a rejoin forgives one again', () => {
    const wire = encodeFrame(new TextEncoder().encode('{"jsonrpc":"2.0","method":"state","params":{}}'));
    const d = new FrameDecoder();
    // The port opened while a frame was under way: its last bytes, then whole frames.
    assert.equal(d.push(Uint8Array.from([...wire.subarray(9), ...wire, ...wire])).length, 2);
    assert.deepEqual(d.counters, { ok: 2, crc: 0, malformed: 0, overlong: 0, runt: 0, cut: 1 });
    d.push(wire.subarray(9)); // in step now: a tail is damage
    assert.equal(d.counters.malformed + d.counters.crc + d.counters.runt, 1);
    d.reset(); // the link replaced
    d.push(Uint8Array.from([...wire.subarray(5), ...wire]));
    assert.deepEqual([d.counters.cut, d.counters.ok], [2, 3]);
    // A link that never frames (a wrong baud) is damage from its second frame on.
    const garbled = new FrameDecoder();
    for (let i = 0; i < 3; i++) garbled.push(Uint8Array.from([0x05, 1, 0]));
    assert.deepEqual([garbled.counters.cut, garbled.counters.malformed], [1, 2]);
  });
});

describe('frame: properties (fast-check)', () => {
  it('round-trips any payload', () => {
    fc.assert(fc.property(tricky, (p) => {
      const { frames, decoder } = decodeAll([encodeFrame(p)]);
      return frames.length === 1 && same(frames[0] ?? new Uint8Array(), p) && decoder.counters.ok === 1;
    }), { numRuns: 500 });
  });

  it('accepts a valid frame split at every byte boundary', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), (p) => {
      const wire = encodeFrame(p);
      for (let k = 0; k <= wire.length; k++) {
        const { frames } = decodeAll([wire.subarray(0, k), wire.subarray(k)]);
        assert.equal(frames.length, 1, `split at ${k}`);
        assert.ok(same(frames[0] ?? new Uint8Array(), p));
      }
    }), { numRuns: 100 });
  });

  it('accepts nothing from random bytes, in any chunking, and never throws', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 4000 }), fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 20 }), (bytes, sizes) => {
      const chunks: Uint8Array[] = [];
      let at = 0;
      for (const s of sizes) {
        chunks.push(bytes.subarray(at, at + s));
        at += s;
      }
      chunks.push(bytes.subarray(at));
      return decodeAll(chunks).frames.length === 0;
    }), { numRuns: 1000 });
  });

  it('never accepts a frame with flipped bits as anything but what was sent', () => {
    const flips = fc.uniqueArray(fc.nat(), { minLength: 1, maxLength: 8 });
    fc.assert(fc.property(tricky, flips, (p, positions) => {
      const wire = encodeFrame(p);
      const bits = (wire.length - 1) * 8; // never the delimiter: that is a truncation, tested below
      for (const pos of positions) {
        const bit = pos % bits;
        const at = Math.floor(bit / 8);
        wire[at] = (wire[at] ?? 0) ^ (1 << (bit % 8));
      }
      const { frames } = decodeAll([Uint8Array.from([0]), wire]);
      return frames.every((f) => same(f, p));
    }), { numRuns: 1000 });
  });

  it('drops truncated frames and resynchronises on the next one', () => {
    fc.assert(fc.property(tricky, payload, fc.nat(), (p, q, cut) => {
      const wire = encodeFrame(p);
      const truncated = wire.subarray(0, cut % (wire.length - 1));
      const { frames } = decodeAll([truncated, Uint8Array.from([0]), encodeFrame(q)]);
      const last = frames.at(-1);
      return last !== undefined && same(last, q) && frames.every((f) => same(f, p) || same(f, q));
    }), { numRuns: 500 });
  });

  it('drops overlong frames, counts them and resynchronises', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 255 }), payload, (extra, fill, q) => {
      const long = new Uint8Array(FRAME_MAX_ENCODED + extra).fill(fill);
      const { frames, decoder } = decodeAll([long, Uint8Array.from([0]), encodeFrame(q)]);
      return frames.length === 1 && same(frames[0] ?? new Uint8Array(), q) && decoder.counters.overlong === 1;
    }), { numRuns: 200 });
  });

  it('loses no frame and invents none when garbage sits between frames', () => {
    const garbage = fc.uint8Array({ maxLength: 200 }).map((g) => Uint8Array.from([...g, 0]));
    fc.assert(fc.property(fc.array(fc.tuple(garbage, payload), { minLength: 1, maxLength: 8 }), (parts) => {
      const { frames } = decodeAll(parts.flatMap(([g, p]) => [g, encodeFrame(p)]));
      return frames.length === parts.length && frames.every((f, i) => same(f, parts[i]?.[1] ?? new Uint8Array()));
    }), { numRuns: 300 });
  });
});
