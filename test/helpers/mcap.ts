/**
 * Reads a recording back as Foxglove would: @mcap/core's indexed reader for a file that was
 * closed (its summary says the channels, schemas and counts), its streaming reader for one that
 * was not (a killed run: the chunks written before the kill). zstd chunks decompressed by the
 * same WebAssembly module quackd compresses with. JSON messages are parsed; CDR ones are read
 * field by field as their ros2msg schema lays them out (decodeCdr), so a test sees their values.
 */
import assert from 'node:assert/strict';
import { open, readFile } from 'node:fs/promises';
import { McapIndexedReader, McapStreamReader, type McapTypes } from '@mcap/core';
import * as zstd from '@foxglove/wasm-zstd';

export interface ReadBack {
  /** topic → schema name */
  readonly schemas: Map<string, string>;
  /** topic → messages, each decoded from JSON or CDR */
  readonly messages: Map<string, unknown[]>;
}

const decompressHandlers = { zstd: (data: Uint8Array, size: bigint) => zstd.decompress(data, Number(size)) };

/** sensor_msgs/msg/JointState as quackd fills it. */
export interface JointState {
  header: { stamp: { sec: number; nanosec: number }; frame_id: string };
  name: string[];
  position: number[];
  velocity: number[];
  effort: number[];
}

/** A little-endian CDR reader: alignment counts from after the 4-byte encapsulation header. */
class Cdr {
  private at = 4;
  private readonly view: DataView;
  constructor(data: Uint8Array) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    assert.equal(this.view.getUint16(0, false), 1, 'CDR_LE encapsulation');
  }
  private align(n: number): void {
    this.at += (n - ((this.at - 4) % n)) % n;
  }
  uint32(): number {
    this.align(4);
    return (this.at += 4), this.view.getUint32(this.at - 4, true);
  }
  int32(): number {
    this.align(4);
    return (this.at += 4), this.view.getInt32(this.at - 4, true);
  }
  float64(): number {
    this.align(8);
    return (this.at += 8), this.view.getFloat64(this.at - 8, true);
  }
  string(): string {
    const n = this.uint32();
    const s = Buffer.from(this.view.buffer, this.view.byteOffset + this.at, n - 1).toString('utf8');
    this.at += n;
    return s;
  }
  strings(): string[] {
    return Array.from({ length: this.uint32() }, () => this.string());
  }
  float64s(): number[] {
    return Array.from({ length: this.uint32() }, () => this.float64());
  }
  header(): JointState['header'] {
    return { stamp: { sec: this.int32(), nanosec: this.uint32() }, frame_id: this.string() };
  }
  vector3(): { x: number; y: number; z: number } {
    return { x: this.float64(), y: this.float64(), z: this.float64() };
  }
  done(): void {
    assert.equal(this.at, this.view.byteLength, 'the message read to its end');
  }
}

/** The CDR messages quackd writes, by schema name, decoded as their ros2msg definitions say. */
const CDR: Record<string, (r: Cdr) => unknown> = {
  'sensor_msgs/msg/JointState': (r) => ({ header: r.header(), name: r.strings(), position: r.float64s(), velocity: r.float64s(), effort: r.float64s() }),
  'quackd/msg/Imu': (r) => ({ header: r.header(), gyro: r.vector3(), gravity: r.vector3(), accel: r.vector3() }),
  'quackd/msg/ControlTick': (r) => ({ header: r.header(), tick: r.uint32(), late_ms: r.float64(), work_ms: r.float64(), limited: r.strings(), dropped: r.uint32() }),
};

export function decodeCdr(schemaName: string, data: Uint8Array): unknown {
  const read = CDR[schemaName];
  assert.ok(read !== undefined, `no CDR reader for ${schemaName}`);
  const r = new Cdr(data);
  const message = read(r);
  r.done();
  return message;
}

/** A message's content, as its channel's encoding says. */
export function decodeMessage(encoding: string, schemaName: string, data: Uint8Array): unknown {
  if (encoding === 'cdr') return decodeCdr(schemaName, data);
  assert.equal(encoding, 'json');
  return JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as unknown;
}

function add(into: ReadBack, topic: string, message: unknown): void {
  const list = into.messages.get(topic) ?? [];
  list.push(message);
  into.messages.set(topic, list);
}

/** The indexed reader over a closed file: throws when the file has no summary. */
export async function readIndexed(
  path: string,
): Promise<ReadBack & { readonly counts: Map<string, number>; readonly compressions: readonly string[]; readonly metadata: Map<string, Map<string, string>> }> {
  await zstd.isLoaded;
  const handle = await open(path, 'r');
  try {
    const readable = {
      size: async () => BigInt((await handle.stat()).size),
      read: async (offset: bigint, size: bigint) => {
        const buf = Buffer.alloc(Number(size));
        await handle.read(buf, 0, Number(size), Number(offset));
        return buf;
      },
    };
    const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
    const out: ReadBack = { schemas: new Map(), messages: new Map() };
    for (const channel of reader.channelsById.values()) out.schemas.set(channel.topic, reader.schemasById.get(channel.schemaId)?.name ?? '');
    const counts = new Map<string, number>();
    for (const [id, n] of reader.statistics?.channelMessageCounts ?? []) counts.set(reader.channelsById.get(id)?.topic ?? `#${id}`, Number(n));
    for await (const m of reader.readMessages()) {
      const channel = reader.channelsById.get(m.channelId);
      add(out, channel?.topic ?? '', decodeMessage(channel?.messageEncoding ?? '', reader.schemasById.get(channel?.schemaId ?? -1)?.name ?? '', m.data));
    }
    // Each chunk's compression, in file order ('' for one stored as it is).
    const compressions = reader.chunkIndexes.map((c) => c.compression);
    // The metadata records by name, as Foxglove's metadata panel lists them.
    const metadata = new Map<string, Map<string, string>>();
    for await (const m of reader.readMetadata()) metadata.set(m.name, m.metadata);
    return { ...out, counts, compressions, metadata };
  } finally {
    await handle.close();
  }
}

/** The streaming reader over whatever the file holds; `complete`: it ended with a footer. */
export async function readStreaming(path: string): Promise<ReadBack & { readonly complete: boolean }> {
  await zstd.isLoaded;
  const reader = new McapStreamReader({ decompressHandlers });
  reader.append(await readFile(path));
  const out: ReadBack = { schemas: new Map(), messages: new Map() };
  const schemaNames = new Map<number, string>();
  const channels = new Map<number, McapTypes.Channel>();
  for (let record: McapTypes.TypedMcapRecord | undefined; (record = reader.nextRecord()) !== undefined; ) {
    if (record.type === 'Schema') schemaNames.set(record.id, record.name);
    else if (record.type === 'Channel') {
      channels.set(record.id, record);
      out.schemas.set(record.topic, schemaNames.get(record.schemaId) ?? '');
    } else if (record.type === 'Message') {
      const channel = channels.get(record.channelId);
      add(out, channel?.topic ?? '', decodeMessage(channel?.messageEncoding ?? '', schemaNames.get(channel?.schemaId ?? -1) ?? '', record.data));
    }
  }
  return { ...out, complete: reader.done() };
}
