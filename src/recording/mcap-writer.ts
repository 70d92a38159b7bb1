/**
 * An MCAP writer whose chunks close when the recording says, not only when they fill. @mcap/core's
 * McapWriter closes a chunk once it passes its size and has no call to close one early, so a run
 * killed in its first seconds kept only its header. This writer is built on @mcap/core's
 * record-level API (McapRecordBuilder, McapChunkBuilder): the data section is compressed chunks,
 * each followed by its message indexes, with metadata records between them; end() writes the
 * summary an indexed reader needs (schemas, channels, statistics, chunk and metadata indexes) and
 * the footer. CRCs are written as 0, which the spec reads as "not computed".
 */
import { McapChunkBuilder, McapRecordBuilder, type IWritable, type McapTypes } from '@mcap/core';

export type CompressChunk = (data: Uint8Array) => { compression: string; compressedData: Uint8Array };

export interface ChunkPolicy {
  /** Uncompressed bytes past which a chunk closes by itself. */
  readonly chunkBytes: number;
  readonly compress: CompressChunk;
}

/** Like McapWriter, one call at a time: each must resolve before the next. */
export class McapChunkWriter {
  private readonly records = new McapRecordBuilder();
  private readonly chunk = new McapChunkBuilder({ useMessageIndex: true });
  private readonly schemas = new Map<number, McapTypes.Schema>();
  private readonly channels = new Map<number, McapTypes.Channel>();
  /** Channels whose Channel (and Schema) record is in the data section already. */
  private readonly announced = new Set<number>();
  private readonly announcedSchemas = new Set<number>();
  private readonly chunkIndexes: McapTypes.ChunkIndex[] = [];
  private readonly metadataIndexes: McapTypes.MetadataIndex[] = [];
  readonly statistics: McapTypes.Statistics = { messageCount: 0n, schemaCount: 0, channelCount: 0, attachmentCount: 0, metadataCount: 0, chunkCount: 0, messageStartTime: 0n, messageEndTime: 0n, channelMessageCounts: new Map() };

  constructor(
    private readonly out: IWritable,
    private readonly policy: ChunkPolicy,
  ) {}

  async start(header: McapTypes.Header): Promise<void> {
    this.records.writeMagic();
    this.records.writeHeader(header);
    await this.flush();
  }

  registerSchema(info: Omit<McapTypes.Schema, 'id'>): number {
    const id = this.schemas.size + 1;
    this.schemas.set(id, { ...info, id });
    this.statistics.schemaCount += 1;
    return id;
  }

  registerChannel(info: Omit<McapTypes.Channel, 'id'>): number {
    const id = this.channels.size;
    this.channels.set(id, { ...info, id });
    this.statistics.channelCount += 1;
    return id;
  }

  async addMessage(message: McapTypes.Message): Promise<void> {
    const s = this.statistics;
    if (s.messageCount === 0n || message.logTime < s.messageStartTime) s.messageStartTime = message.logTime;
    if (s.messageCount === 0n || message.logTime > s.messageEndTime) s.messageEndTime = message.logTime;
    s.messageCount += 1n;
    s.channelMessageCounts.set(message.channelId, (s.channelMessageCounts.get(message.channelId) ?? 0n) + 1n);
    if (!this.announced.has(message.channelId)) this.announce(message.channelId);
    this.chunk.addMessage(message);
    if (this.chunk.byteLength >= this.policy.chunkBytes) await this.closeChunk();
  }

  /** A metadata record in the data section (the open chunk stays open). */
  async addMetadata(metadata: McapTypes.Metadata): Promise<void> {
    const offset = this.out.position();
    const length = this.records.writeMetadata(metadata);
    this.metadataIndexes.push({ offset, length, name: metadata.name });
    this.statistics.metadataCount += 1;
    await this.flush();
  }

  /** Writes the open chunk and its message indexes; nothing when it holds no message. */
  async closeChunk(): Promise<void> {
    if (this.chunk.numMessages === 0) return;
    const data = this.chunk.buffer;
    const { compression, compressedData } = this.policy.compress(data);
    const chunkStartOffset = this.out.position();
    const chunkLength = this.records.writeChunk({ messageStartTime: this.chunk.messageStartTime, messageEndTime: this.chunk.messageEndTime, uncompressedSize: BigInt(data.length), uncompressedCrc: 0, compression, records: compressedData });
    const messageIndexOffsets = new Map<number, bigint>();
    let messageIndexLength = 0n;
    for (const index of this.chunk.indices) {
      messageIndexOffsets.set(index.channelId, chunkStartOffset + chunkLength + messageIndexLength);
      messageIndexLength += this.records.writeMessageIndex(index);
    }
    this.chunkIndexes.push({ messageStartTime: this.chunk.messageStartTime, messageEndTime: this.chunk.messageEndTime, chunkStartOffset, chunkLength, messageIndexOffsets, messageIndexLength, compression, compressedSize: BigInt(compressedData.length), uncompressedSize: BigInt(data.length) });
    this.statistics.chunkCount += 1;
    this.chunk.reset();
    await this.flush();
  }

  /** The last chunk, the summary and the footer: after it the file reads with an indexed reader. */
  async end(): Promise<void> {
    await this.closeChunk();
    this.records.writeDataEnd({ dataSectionCrc: 0 });
    await this.flush();
    const summaryStart = this.out.position();
    for (const schema of this.schemas.values()) this.records.writeSchema(schema);
    for (const channel of this.channels.values()) this.records.writeChannel(channel);
    this.records.writeStatistics(this.statistics);
    for (const index of this.metadataIndexes) this.records.writeMetadataIndex(index);
    for (const index of this.chunkIndexes) this.records.writeChunkIndex(index);
    // No summary offsets: a reader then reads the (small) summary whole, as the spec allows.
    this.records.writeFooter({ summaryStart, summaryOffsetStart: 0n, summaryCrc: 0 });
    this.records.writeMagic();
    await this.flush();
  }

  /** The channel's records go in the chunk that first carries it, so a streaming reader meets them before its messages. */
  private announce(channelId: number): void {
    const channel = this.channels.get(channelId);
    if (channel === undefined) throw new Error(`no channel ${channelId} was registered`);
    const schema = this.schemas.get(channel.schemaId);
    if (schema !== undefined && !this.announcedSchemas.has(schema.id)) {
      this.chunk.addSchema(schema);
      this.announcedSchemas.add(schema.id);
    }
    this.chunk.addChannel(channel);
    this.announced.add(channelId);
  }

  private async flush(): Promise<void> {
    if (this.records.length === 0) return;
    await this.out.write(this.records.buffer);
    this.records.reset();
  }
}
