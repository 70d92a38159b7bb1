/**
 * Little-endian CDR (the encoding ROS 2 and Foxglove's `cdr` channels use), written straight into
 * one reused buffer: the control ticks' messages (50 a second per channel) are numbers and a few
 * names, and building objects, JSON text and UTF-8 copies of them cost the main thread more than
 * the rest of recording. Alignment counts from after the 4-byte encapsulation header, as CDR says.
 */

/** Each string's UTF-8 bytes, once: joint names repeat every tick. */
const utf8 = new Map<string, Buffer>();
const bytesOf = (s: string): Buffer => {
  let b = utf8.get(s);
  if (b === undefined) {
    b = Buffer.from(s, 'utf8');
    if (utf8.size < 4096) utf8.set(s, b);
  }
  return b;
};

export class CdrWriter {
  private buf = Buffer.alloc(1024);
  private at = 0;

  /** Starts a message: the CDR_LE encapsulation header. */
  begin(): this {
    this.at = 0;
    this.room(4);
    this.buf.writeUInt32BE(0x00010000, 0);
    this.at = 4;
    return this;
  }

  uint32(v: number): this {
    this.align(4);
    this.buf.writeUInt32LE(v >>> 0, this.at);
    this.at += 4;
    return this;
  }

  int32(v: number): this {
    this.align(4);
    this.buf.writeInt32LE(v | 0, this.at);
    this.at += 4;
    return this;
  }

  float64(v: number): this {
    this.align(8);
    this.buf.writeDoubleLE(v, this.at);
    this.at += 8;
    return this;
  }

  string(s: string): this {
    const b = bytesOf(s);
    this.uint32(b.length + 1);
    this.room(b.length + 1);
    b.copy(this.buf, this.at);
    this.buf[this.at + b.length] = 0;
    this.at += b.length + 1;
    return this;
  }

  /** A sequence's length; its elements follow. */
  length(n: number): this {
    return this.uint32(n);
  }

  /** The message's bytes, a copy the caller may keep: the buffer is reused. */
  end(): Uint8Array {
    return new Uint8Array(this.buf.subarray(0, this.at));
  }

  private align(n: number): void {
    const pad = (n - ((this.at - 4) % n)) % n;
    this.room(pad + 8);
    this.buf.fill(0, this.at, this.at + pad);
    this.at += pad;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = Buffer.alloc(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }
}
