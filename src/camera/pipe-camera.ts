/**
 * A camera whose frames come out of a child process's stdout, one fixed-size raw frame after
 * another (ffmpeg's rawvideo, rpicam-vid's yuv420): the process grabs at its own capped rate,
 * so nothing here waits on the device and the control loop, in its worker, never sees it.
 * Started at the first grab and kept running; when it ends (unplugged, killed) the waiting grab
 * fails with one line and the next grab starts it again (a camera plugged back in comes back).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CameraError, type Camera, type CameraFrame, type CameraHealth, type GrabOptions } from './camera.js';

export interface PipeCameraOptions {
  /** Shown in every line: `/dev/video0`. */
  readonly source: string;
  /** The program and its arguments; `name` is what a person is told to install when it is missing. */
  readonly command: string;
  readonly args: readonly string[];
  readonly install: string;
  readonly width: number;
  readonly height: number;
  /** Bytes of one raw frame on the pipe. */
  readonly frameBytes: number;
  /** The raw frame to packed RGB (identity for rgb24). */
  readonly toRgb?: (raw: Uint8Array, width: number, height: number) => Uint8Array;
  /** How long a grab waits for its frame (the first one, which includes the process's start, twice this). */
  readonly deadlineMs: number;
}

/** How long a stopped camera's process has to end before it is killed. */
const KILL_GRACE_MS = 500;

/**
 * The first frame of a freshly started process gets this many deadlines: ffmpeg probing a network
 * stream, or a sensor's exposure settling, takes time the steady stream never does (a loaded CI
 * run saw ffmpeg's first frame of an MJPEG stream after more than 3 s).
 */
const FIRST_FRAME_DEADLINES = 2;

/**
 * Frames a grab lets pass before it takes one: the first to come whole after the call may have
 * been made before it. ffmpeg's MJPEG path hands a frame on only once the next one has begun
 * (measured from a loopback stream that stamps its frames: at 2 fps 19 grabs of 20 got a frame
 * made before the call, median 219 ms, up to 448 ms, and beside six busy processes 30 of 30, up
 * to 685 ms: the view from partway through the turn a scan step had just finished), and a sensor's frame in progress was exposed before it.
 */
const FRAMES_IN_FLIGHT = 1;

interface Waiter {
  /** Frames still to let pass. */
  passing: number;
  readonly resolve: (frame: CameraFrame) => void;
  readonly reject: (error: CameraError) => void;
}

/** The last line a process wrote on stderr, kept short: the why of its end. */
function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return (lines[lines.length - 1] ?? '').trim().slice(0, 160);
}

export class PipeCamera implements Camera {
  readonly source: string;
  private child: ChildProcess | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stderr = '';
  private waiters: Waiter[] = [];
  private closed = false;
  /** Whether the running process has delivered a whole frame yet (its first gets the start allowance). */
  private streaming = false;

  constructor(private readonly options: PipeCameraOptions) {
    this.source = options.source;
  }

  /** The child's pid while it runs (health, and tests that pull the plug). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  grab(signal?: AbortSignal, options?: GrabOptions): Promise<CameraFrame> {
    if (this.closed) return Promise.reject(new CameraError('gone', `camera ${this.source} is closed`));
    this.start();
    return new Promise<CameraFrame>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      const waiter: Waiter = {
        // A process this grab started has made nothing before it.
        passing: this.streaming && options?.take !== 'next' ? FRAMES_IN_FLIGHT : 0,
        resolve: (frame) => {
          done();
          resolve(frame);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      const wait = this.streaming ? this.options.deadlineMs : this.options.deadlineMs * FIRST_FRAME_DEADLINES;
      const what = this.streaming ? `no frame within ${wait} ms` : `no first frame within ${wait} ms of starting`;
      const timer = setTimeout(() => waiter.reject(new CameraError('timeout', `camera ${this.source}: ${what}`)), wait);
      const onAbort = (): void => waiter.reject(new CameraError('timeout', `camera ${this.source}: grab stopped`));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  async health(): Promise<CameraHealth> {
    const started = Date.now();
    try {
      const frame = await this.grab();
      return { status: 'ok', detail: `camera ${this.source}: ${frame.width}×${frame.height} frame in ${Date.now() - started} ms` };
    } catch (error) {
      return { status: 'fail', detail: error instanceof Error ? error.message : String(error) };
    }
  }

  close(): Promise<void> {
    this.closed = true;
    this.stopChild();
    this.failAll(new CameraError('gone', `camera ${this.source} is closed`));
    return Promise.resolve();
  }

  private start(): void {
    if (this.child !== undefined) return;
    this.pending = [];
    this.pendingBytes = 0;
    this.stderr = '';
    this.streaming = false;
    const child = spawn(this.options.command, [...this.options.args], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => this.take(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-2000);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (this.child !== child) return;
      this.child = undefined;
      const missing = error.code === 'ENOENT';
      this.failAll(new CameraError(missing ? 'missing' : 'gone', missing ? `camera ${this.source}: ${this.options.command} is not installed (${this.options.install})` : `camera ${this.source}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      if (this.child !== child) return;
      this.child = undefined;
      if (this.closed) return;
      this.failAll(this.endError(code, signal));
    });
  }

  /** Why the process's end failed the grab: a frame cut short, or the camera gone and what it said. */
  private endError(code: number | null, signal: NodeJS.Signals | null): CameraError {
    if (this.pendingBytes > 0) {
      return new CameraError('corrupt', `camera ${this.source}: a short frame (${this.pendingBytes} of ${this.options.frameBytes} bytes), then the camera stopped`);
    }
    const how = signal !== null ? `killed by ${signal}` : `exited with code ${code ?? '?'}`;
    const said = lastLine(this.stderr);
    return new CameraError('gone', `camera ${this.source}: ${this.options.command} ${how}${said === '' ? '' : `: ${said}`}`);
  }

  /** Cut the byte stream into frames; only the newest whole frame matters to a waiting grab. */
  private take(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const size = this.options.frameBytes;
    while (this.pendingBytes >= size) {
      const all = Buffer.concat(this.pending, this.pendingBytes);
      const raw = new Uint8Array(all.buffer, all.byteOffset, size);
      const rest = all.subarray(size);
      this.pending = rest.length > 0 ? [rest] : [];
      this.pendingBytes = rest.length;
      this.streaming = true;
      if (this.waiters.length > 0) this.deliver(raw);
    }
  }

  private deliver(raw: Uint8Array): void {
    const taking = this.waiters.filter((w) => w.passing === 0);
    for (const waiter of this.waiters) waiter.passing = Math.max(0, waiter.passing - 1);
    if (taking.length === 0) return;
    const { width, height, toRgb } = this.options;
    const rgb = toRgb === undefined ? Uint8Array.from(raw) : toRgb(raw, width, height);
    const frame: CameraFrame = { width, height, rgb, at: Date.now() };
    for (const waiter of taking) waiter.resolve(frame);
  }

  private failAll(error: CameraError): void {
    for (const waiter of [...this.waiters]) waiter.reject(error);
  }

  private stopChild(): void {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    // ffmpeg only notes a SIGTERM while it is stuck opening a stalled device: it gets a moment, then SIGKILL.
    const kill = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    kill.unref();
    child.once('exit', () => clearTimeout(kill));
  }
}
