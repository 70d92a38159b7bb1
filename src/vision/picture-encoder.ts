/**
 * JPEG pictures made on a thread of their own (picture-worker.ts), for what takes pictures often
 * (the recording's camera frames), so no encode ever runs on the main thread. The thread starts
 * at the first picture and ends at close(); a picture asked after close, or one the thread failed
 * on, rejects with one line.
 */
import type { Worker } from 'node:worker_threads';
import type { CameraFrame } from '../camera/camera.js';
import { siblingModule, spawnWorker } from '../worker-thread.js';

export interface EncodeRequest {
  readonly id: number;
  readonly width: number;
  readonly height: number;
  readonly rgb: ArrayBufferLike;
  readonly pictureWidth: number;
}

export interface EncodeAnswer {
  readonly id: number;
  readonly jpeg?: ArrayBufferLike;
  readonly error?: string;
}

export class PictureEncoder {
  private worker: Worker | undefined;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (jpeg: Uint8Array) => void; reject: (err: Error) => void }>();
  private closed = false;

  private start(): Worker {
    const worker = spawnWorker(siblingModule(import.meta.url, 'picture-worker'));
    worker.on('message', (a: EncodeAnswer) => {
      const w = this.waiting.get(a.id);
      this.waiting.delete(a.id);
      if (this.waiting.size === 0) worker.unref();
      if (a.jpeg !== undefined) w?.resolve(new Uint8Array(a.jpeg));
      else w?.reject(new Error(`the picture encoder failed: ${a.error ?? 'no picture'}`));
    });
    const fail = (why: string) => {
      for (const w of this.waiting.values()) w.reject(new Error(`the picture encoder ${why}`));
      this.waiting.clear();
      this.worker = undefined;
    };
    worker.on('error', (err) => fail(`failed: ${err.message.split('\n')[0] ?? ''}`));
    worker.on('exit', () => fail('stopped'));
    // An idle thread must not keep a finished process alive; one with a picture to make must.
    worker.unref();
    return worker;
  }

  /** `frame` as a JPEG at most `pictureWidth` wide; the frame's bytes are copied, so the caller's stay its own. */
  encode(frame: Pick<CameraFrame, 'width' | 'height' | 'rgb'>, pictureWidth: number): Promise<Uint8Array> {
    if (this.closed) return Promise.reject(new Error('the picture encoder is closed'));
    this.worker ??= this.start();
    const id = ++this.next;
    const rgb = frame.rgb.slice().buffer;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker?.ref();
      const req: EncodeRequest = { id, width: frame.width, height: frame.height, rgb, pictureWidth };
      this.worker?.postMessage(req, [rgb as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
