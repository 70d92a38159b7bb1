/**
 * Reads a recording back as Foxglove would: @mcap/core's indexed reader for a file that was
 * closed (its summary says the channels, schemas and counts), its streaming reader for one that
 * was not (a killed run: the chunks written before the kill). zstd chunks decompressed by the
 * same WebAssembly module quackd compresses with.
 */
import { open, readFile } from 'node:fs/promises';
import { McapIndexedReader, McapStreamReader, type McapTypes } from '@mcap/core';
import * as zstd from '@foxglove/wasm-zstd';

export interface ReadBack {
  /** topic → schema name */
  readonly schemas: Map<string, string>;
  /** topic → messages, each decoded from JSON */
  readonly messages: Map<string, unknown[]>;
}

const decompressHandlers = { zstd: (data: Uint8Array, size: bigint) => zstd.decompress(data, Number(size)) };

function add(into: ReadBack, topic: string, data: Uint8Array): void {
  const list = into.messages.get(topic) ?? [];
  list.push(JSON.parse(Buffer.from(data).toString('utf8')) as unknown);
  into.messages.set(topic, list);
}

/** The indexed reader over a closed file: throws when the file has no summary. */
export async function readIndexed(path: string): Promise<ReadBack & { readonly counts: Map<string, number>; readonly compressions: readonly string[] }> {
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
    for await (const m of reader.readMessages()) add(out, reader.channelsById.get(m.channelId)?.topic ?? '', m.data);
    // Each chunk's compression, in file order ('' for one stored as it is).
    const compressions = reader.chunkIndexes.map((c) => c.compression);
    return { ...out, counts, compressions };
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
  const topics = new Map<number, string>();
  for (let record: McapTypes.TypedMcapRecord | undefined; (record = reader.nextRecord()) !== undefined; ) {
    if (record.type === 'Schema') schemaNames.set(record.id, record.name);
    else if (record.type === 'Channel') {
      topics.set(record.id, record.topic);
      out.schemas.set(record.topic, schemaNames.get(record.schemaId) ?? '');
    } else if (record.type === 'Message') add(out, topics.get(record.channelId) ?? '', record.data);
  }
  return { ...out, complete: reader.done() };
}
