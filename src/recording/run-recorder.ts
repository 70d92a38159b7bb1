/**
 * A run's recording, wired: every transcript line as foxglove.Log, every transcript frame as the
 * robot's pose and the room, the robot's control ticks from the runtime's bus, and the pictures
 * its camera took. It listens and
 * never holds anything up: its file drops what it cannot take, and a recording that cannot be
 * opened is a log line, never a failed run (the transcript is the run's record; this is its film).
 */
import type { EventBus } from '../runtime/events.js';
import { logger } from '../log.js';
import type { FilmCounts } from './camera-film.js';
import type { TranscriptEvent } from '../transcript/events.js';
import { tickMessages } from './joint-messages.js';
import { McapFile } from './mcap-file.js';
import { foxgloveTime } from './time.js';
import { transcriptMessages } from './transcript-messages.js';

export interface RecordingReport {
  readonly path: string;
  readonly messages: number;
  /** Ticks the control worker's ring lost, and messages the file's queue dropped. */
  readonly droppedTicks: number;
  readonly droppedMessages: number;
}

export class RunRecorder {
  private droppedTicks = 0;
  private film: FilmCounts | undefined;
  private readonly unlisten: () => void;
  private closing: Promise<RecordingReport> | undefined;

  private constructor(
    private readonly file: McapFile,
    robot: string,
    events: EventBus | undefined,
  ) {
    this.unlisten =
      events?.on('control:ticks', (batch) => {
        if (batch.robot !== robot) return;
        // This run's losses, not those of the runs the held body's loop recorded before it.
        this.droppedTicks += batch.lost;
        for (const tick of batch.ticks) for (const m of tickMessages(batch.joints, tick, this.droppedTicks)) this.file.add(m.channel, m.epochMs, m.message);
      }) ?? (() => undefined);
  }

  get path(): string {
    return this.file.path;
  }

  /** `<dir>/<runId>.mcap`, or undefined (said in the log) when it cannot be made. */
  static async open(dir: string, runId: string, robot: string, events: EventBus | undefined): Promise<RunRecorder | undefined> {
    try {
      return new RunRecorder(await McapFile.create(dir, runId, { robot }), robot, events);
    } catch (err) {
      logger('recording').warn({ dir, err: err instanceof Error ? err.message : String(err) }, 'this run is not recorded');
      return undefined;
    }
  }

  /** One transcript line, as the run emits it. */
  event(event: TranscriptEvent): void {
    for (const m of transcriptMessages(event, Date.now())) this.file.add(m.channel, m.epochMs, m.message);
  }

  /** A picture the robot's camera took, as the pilot was sent it (JSON's bytes are base64, as Foxglove reads them). */
  picture(jpeg: Uint8Array, epochMs: number): void {
    this.file.add('camera', epochMs, { timestamp: foxgloveTime(epochMs), frame_id: 'camera', data: Buffer.from(jpeg).toString('base64'), format: 'jpeg' });
  }

  /** A frame of the camera film (camera-film.ts), on its own topic: /camera stays what the pilot was shown. */
  filmFrame(jpeg: Uint8Array, epochMs: number): void {
    this.file.add('film', epochMs, { timestamp: foxgloveTime(epochMs), frame_id: 'camera', data: Buffer.from(jpeg).toString('base64'), format: 'jpeg' });
  }

  /** What the camera film recorded and missed, for the summary. */
  filmed(counts: FilmCounts): void {
    this.film = counts;
  }

  /** Stops listening, writes the summary and closes the file. Idempotent. */
  close(): Promise<RecordingReport> {
    this.closing ??= (async () => {
      this.unlisten();
      await this.file.close({ dropped_ticks: this.droppedTicks, ...this.film });
      if (this.droppedTicks > 0 || this.file.dropped > 0) logger('recording').warn({ path: this.file.path, droppedTicks: this.droppedTicks, droppedMessages: this.file.dropped, ...(this.file.failure !== undefined ? { err: this.file.failure.message } : {}) }, 'the recording lost samples');
      return { path: this.file.path, messages: this.file.written, droppedTicks: this.droppedTicks, droppedMessages: this.file.dropped };
    })();
    return this.closing;
  }
}
