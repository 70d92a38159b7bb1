/**
 * One run's recording on disk: an MCAP file, its chunks zstd-compressed (zstd.ts: Node's own, or
 * WebAssembly where Node has none) once a recording is long enough to fill one. Messages are encoded when they are added (a message may change after) and queued; one
 * write runs at a time, off the caller's path. The queue is bounded: past it a message is dropped
 * and counted, never waited for, so a slow SD card costs the recording messages and the run
 * nothing. A chunk closes when it fills and at least once a second, so a killed run's file holds
 * all but its last second and reads with a streaming reader (Foxglove reads such a file, and
 * `mcap recover` indexes it); close() writes the last chunk and the summary (schemas, channels,
 * statistics, the chunk index) an indexed reader needs.
 */
import { close as closeFd, openSync, write } from 'node:fs';
import { join } from 'node:path';
import type { IWritable } from '@mcap/core';
import { ensurePrivateDir } from '../config/paths.js';
import { logger } from '../log.js';
import { VERSION } from '../version.js';
import { CHANNELS, encodeMessage, type ChannelName } from './channels.js';
import { McapChunkWriter } from './mcap-writer.js';
import { nanos } from './time.js';
import { loadZstd, type Zstd } from './zstd.js';

/** Uncompressed bytes a chunk holds before it is written: about a second of a 50 Hz walk. */
export const CHUNK_BYTES = 64 * 1024;
/**
 * The longest a message waits in an open chunk: what a killed run loses. Shorter chunks compress
 * worse; at a second a walk's chunks are near CHUNK_BYTES anyway.
 */
export const CHUNK_MS = 1000;
/** Messages waiting for the disk past which new ones are dropped (about 20 s of a 50 Hz walk). */
export const MAX_QUEUED = 5000;
/**
 * A recording's message bytes past which its chunks are compressed: zstd is loaded then, and
 * waited for before the rest is written, so every full chunk is compressed. A shorter recording
 * (`quackd run hello-world`: one chunk of a few KiB) is stored uncompressed, as MCAP allows chunk
 * by chunk: where zstd is WebAssembly (Node 20), compiling it, its first call and the compilation
 * V8 then finishes in the background (which holds the process's exit) cost a one-shot run about
 * 100 ms on this machine, more than its few kilobytes would save.
 */
export const COMPRESS_FROM_BYTES = CHUNK_BYTES / 2;

/** Appends to an open file, tracking where the next byte goes, as the writer asks. */
class FileWritable implements IWritable {
  private at = 0n;
  constructor(private readonly fd: number) {}
  position(): bigint {
    return this.at;
  }
  async write(buffer: Uint8Array): Promise<void> {
    // The writer reuses its buffer after this resolves: copied now, written whole.
    const bytes = Buffer.from(buffer);
    this.at += BigInt(bytes.length);
    for (let done = 0; done < bytes.length; ) {
      done += await new Promise<number>((resolve, reject) => write(this.fd, bytes, done, bytes.length - done, null, (err, n) => (err !== null ? reject(err) : n === 0 ? reject(new Error('the disk took no bytes')) : resolve(n))));
    }
  }
}

interface Queued {
  readonly channel: ChannelName;
  readonly logTime: bigint;
  readonly data: Uint8Array;
}

const encoder = new TextEncoder();

export class McapFile {
  private readonly channelIds = new Map<ChannelName, number>();
  /** One schema record per schema: the three joint-state channels share sensor_msgs/msg/JointState. */
  private readonly schemaIds = new Map<string, number>();
  private queue: Queued[] = [];
  private pumping: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private sequence = 0;
  /** Message bytes handed to the writer: past COMPRESS_FROM_BYTES, chunks are compressed. */
  private bytes = 0;
  /** The open chunk is to be written at the next turn of the pump. */
  private chunkDue = false;
  private readonly chunkTimer: NodeJS.Timeout;
  /** Messages dropped because the queue was full (or the file failed). */
  dropped = 0;
  /** The compressor of this recording's chunks once it is long enough, or undefined (none could load). */
  private zstd: Zstd | undefined;
  private zstdAsked = false;
  /** Messages written (handed to the writer). */
  written = 0;
  /** The first write that failed: nothing more is written after it. */
  failure: Error | undefined;

  private readonly writer: McapChunkWriter;
  /** Made with the file, in its run's command: a logger writes to the stream of the command that made it. */
  private readonly log = logger('recording');

  private constructor(
    readonly path: string,
    private readonly fd: number,
  ) {
    this.writer = new McapChunkWriter(new FileWritable(fd), { chunkBytes: CHUNK_BYTES, compress: (data) => this.compressChunk(data) });
    this.chunkTimer = setInterval(() => {
      this.chunkDue = true;
      this.pumping ??= this.pump();
    }, CHUNK_MS).unref();
  }

  /** Opens `<dir>/<runId>.mcap` (0600, never over an existing file) and writes its header. */
  static async create(dir: string, runId: string, metadata: Readonly<Record<string, string>> = {}): Promise<McapFile> {
    ensurePrivateDir(dir);
    const path = join(dir, `${runId}.mcap`);
    const fd = openSync(path, 'wx', 0o600);
    const file = new McapFile(path, fd);
    try {
      await file.writer.start({ profile: '', library: `quackd ${VERSION}` });
      await file.writer.addMetadata({ name: 'quackd.run', metadata: new Map(Object.entries({ run: runId, ...metadata })) });
    } catch (err) {
      file.stopChunkTimer();
      closeFd(fd, () => undefined);
      throw err;
    }
    return file;
  }

  /** Queues one message at `epochMs` (an object for a JSON channel, its bytes for a CDR one); false when it was dropped. Never waits; throws only for a CDR channel given no bytes (a caller's bug). */
  add(channel: ChannelName, epochMs: number, message: unknown): boolean {
    if (this.closing !== undefined || this.failure !== undefined || this.queue.length >= MAX_QUEUED) {
      this.dropped += 1;
      return false;
    }
    this.queue.push({ channel, logTime: nanos(epochMs), data: encodeMessage(channel, message) });
    this.pumping ??= this.pump();
    return true;
  }

  /**
   * Writes what is queued, the last chunk, what was lost (`quackd.recording` metadata: the
   * messages dropped here, and `lost`, what others counted) and the summary, then closes the
   * file. Idempotent; never rejects.
   */
  close(lost: Readonly<Record<string, number>> = {}): Promise<void> {
    this.closing ??= (async () => {
      this.stopChunkTimer();
      await this.pumping;
      const counts = Object.entries({ dropped_messages: this.dropped, ...lost }).map(([k, v]): [string, string] => [k, String(v)]);
      if (this.zstd !== undefined) counts.push(['zstd', this.zstd.source]);
      if (this.failure === undefined) await this.writer.addMetadata({ name: 'quackd.recording', metadata: new Map(counts) }).catch((err: unknown) => this.fail(err));
      if (this.failure === undefined) await this.writer.end().catch((err: unknown) => this.fail(err));
      await new Promise<void>((resolve) => closeFd(this.fd, () => resolve()));
    })();
    return this.closing;
  }

  /** One writer call at a time, as it requires. */
  private async pump(): Promise<void> {
    try {
      while ((this.queue.length > 0 || this.chunkDue) && this.failure === undefined) {
        const batch = this.queue;
        this.queue = [];
        for (const m of batch) {
          const channelId = this.channelIds.get(m.channel) ?? this.register(m.channel);
          this.bytes += m.data.length;
          // Off the caller's path: the queue holds what comes meanwhile.
          if (this.bytes >= COMPRESS_FROM_BYTES && !this.zstdAsked) {
            this.zstdAsked = true;
            this.zstd = await loadZstd();
          }
          await this.writer.addMessage({ channelId, sequence: this.sequence++, logTime: m.logTime, publishTime: m.logTime, data: m.data });
          this.written += 1;
        }
        if (this.chunkDue) {
          this.chunkDue = false;
          await this.writer.closeChunk();
        }
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.pumping = undefined;
    }
  }

  /** zstd's fastest level (on a walk's JSON it halves level 3's time for a slightly better ratio, measured on 64 KiB chunks) once this recording is long enough; before, as it is. */
  private compressChunk(data: Uint8Array): { compression: string; compressedData: Uint8Array } {
    return this.zstd !== undefined && this.bytes >= COMPRESS_FROM_BYTES ? { compression: 'zstd', compressedData: this.zstd.compress(data, 1) } : { compression: '', compressedData: data };
  }

  private stopChunkTimer(): void {
    clearInterval(this.chunkTimer);
  }

  private register(name: ChannelName): number {
    const spec = CHANNELS[name];
    const schemaId = this.schemaIds.get(spec.schemaName) ?? this.writer.registerSchema({ name: spec.schemaName, encoding: spec.schemaEncoding, data: encoder.encode(spec.schema) });
    this.schemaIds.set(spec.schemaName, schemaId);
    const id = this.writer.registerChannel({ topic: spec.topic, schemaId, messageEncoding: spec.encoding, metadata: new Map() });
    this.channelIds.set(name, id);
    return id;
  }

  private fail(err: unknown): void {
    if (this.failure === undefined) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      // Said when it happens: a full disk leaves a file cut short, and the counts at the end say only that samples were lost.
      this.log.warn({ path: this.path, err: this.failure.message }, `the recording stopped at a failed write (${this.failure.message}); the run goes on: ${this.path}`);
    }
    this.dropped += this.queue.length;
    this.queue = [];
  }
}
