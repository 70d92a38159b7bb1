/**
 * The serial edge for a worker thread. `serialport`'s native poller runs on the process's main
 * event loop and aborts the process when a port is opened from a worker (V8 "HandleScope without
 * proper locking"), so the control worker opens the device as a plain tty instead: `stty` sets
 * raw mode and the baud rate, a node:tty stream writes it, and reads are polled: the loop that
 * owns the link calls poll() at each tick (read, compute, write in one wake-up, where an event
 * per state frame would wake the thread 50 more times a second), and a fallback timer polls
 * whenever nobody has for FALLBACK_POLL_MS (the greeting before the loop starts, a loop gone), or
 * the `idlePollMs` its owner gives (a servo bus, whose own transactions read the link).
 * It keeps the promises serial.ts keeps on the main thread: the port is locked as serialport
 * locks it (port-lock.ts), so a second opener is refused with the same words; and when the device
 * vanishes (unplugged: the read side ends with EIO) the client is detached, its waiting requests
 * fail, and the same path is tried again until it comes back (or the link is closed), when the
 * client is attached to it afresh. Who is at the far end then is for a hello to say (its boot id).
 */
import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { closeSync, constants, existsSync, openSync, readdirSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Duplex, Readable } from 'node:stream';
import { WriteStream } from 'node:tty';
import type { LinkUser } from './link-user.js';
import { LinkLostError, PortError } from './errors.js';
import { cannotOpen, refusedPort } from './open-refusal.js';
import { askLowLatency, type LowLatency } from './low-latency.js';
import { lockPort } from './port-lock.js';
import { Reopener } from './reopen.js';

const BY_ID = '/dev/serial/by-id';
/** Longer than the loop's period, so a ticking loop always polls first and this never fires. */
const FALLBACK_POLL_MS = 50;
/** The kernel's tty buffer is 4 KiB; one read of that size takes all it can hold. */
const READ_CHUNK = 4096;

export interface TtyLinkOptions {
  readonly path: string;
  readonly baud: number;
  /** Reopen the path when it comes back after a loss (default true). */
  readonly reconnect?: boolean;
  /** How often to look for the port while it is gone (default 200 ms). */
  readonly retryMs?: number;
  /** How long the link may go unread before its own timer reads it (default FALLBACK_POLL_MS). */
  readonly idlePollMs?: number;
}

export interface TtyLinkEvents {
  lost: [reason: Error];
  restored: [];
}

/** Serial ports here, from the file system only (no serialport in a worker). */
function portsHere(): string[] {
  const found: string[] = [];
  try {
    for (const name of readdirSync(BY_ID)) found.push(join(BY_ID, name));
  } catch {
    // no by-id directory
  }
  try {
    for (const name of readdirSync('/dev')) if (/^tty(ACM|USB)\d+$/.test(name)) found.push(join('/dev', name));
  } catch {
    // /dev unreadable
  }
  return found;
}

interface Tty {
  /** the read side, non-blocking, read only by poll() */
  readonly input: number;
  readonly output: WriteStream;
  /** The locked descriptor, apart from the streams' (libuv reopens a pty slave's, which would shed the lock). */
  readonly lock: FileHandle;
  /** What the driver said to handing over each byte at once (low-latency.ts). */
  readonly lowLatency: LowLatency;
}

const refused = (path: string, err: unknown): PortError => cannotOpen(path, err instanceof Error ? err.message : String(err));

/**
 * Opens `path` locked, raw, at `baud`. Locked first, so a port someone else holds is left exactly
 * as they set it. The lock is a FileHandle: a worker terminated before it closed its plant still
 * closes it, so the port is never left locked by a thread that is gone. Throws PortError with a hint.
 */
async function openTty(path: string, baud: number): Promise<Tty> {
  let lock: FileHandle;
  try {
    lock = await open(path, constants.O_RDONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch (err) {
    throw refused(path, err);
  }
  // One descriptor per stream: each tty handle closes its own, never the other's.
  const flags = constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK;
  const fds: number[] = [];
  try {
    lockPort(lock.fd, path);
    try {
      fds.push(openSync(path, flags));
    } catch (err) {
      throw refused(path, err);
    }
    execFileSync('stty', ['-F', path, String(baud), 'raw', '-echo', '-echoe', '-echok', '-ixon', '-ixoff', '-crtscts', 'clocal', 'cread', 'min', '1', 'time', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    fds.push(openSync(path, flags));
  } catch (err) {
    for (const fd of fds) closeSync(fd);
    await lock.close();
    if (err instanceof PortError) throw err;
    const m = err instanceof Error && 'stderr' in err ? String((err as { stderr: unknown }).stderr).trim() : String(err);
    // stty's "Inappropriate ioctl for device" of /dev/null or a file is the port's fault, said as an open's.
    throw refusedPort(path, m) ?? new PortError(`cannot set ${path} to ${baud} baud raw: ${m.split('\n')[0] ?? m}`, 'is it a serial port? is stty installed?');
  }
  const input = fds[0] ?? -1;
  return { input, output: new WriteStream(fds[1] ?? -1), lock, lowLatency: await askLowLatency(input) };
}

/** Closes the streams and the lock (letting go of a device node that vanished); resolves once they are. */
async function shut(tty: Tty): Promise<void> {
  const out = tty.output;
  const closed = out.closed ? Promise.resolve() : new Promise<void>((resolve) => out.once('close', () => resolve()));
  out.removeAllListeners('error');
  out.on('error', () => undefined);
  out.destroy();
  closeSync(tty.input);
  await closed;
  await tty.lock.close();
}

export class TtyLink extends EventEmitter<TtyLinkEvents> {
  private tty: Tty | undefined;
  private closed = false;
  private readonly reopener: Reopener<Tty>;
  private readonly chunk = Buffer.alloc(READ_CHUNK);
  private fallback: NodeJS.Timeout | undefined;

  private constructor(
    private readonly client: LinkUser,
    readonly path: string,
    baud: number,
    private readonly reconnect: boolean,
    retryMs: number,
    private readonly idlePollMs: number,
  ) {
    super();
    /*
     * stty and flock run synchronously, a few ms, as at the first open: the loop sharing this
     * thread reads nothing while the link is down, so there is no tick to delay.
     */
    this.reopener = new Reopener(path, retryMs, () => openTty(path, baud), shut, (tty) => {
      this.use(tty);
      this.emit('restored');
    });
  }

  /** Opens `path` and attaches it to the client. Rejects with a PortError with a hint. */
  static async open(client: LinkUser, options: TtyLinkOptions): Promise<TtyLink> {
    const { path, baud } = options;
    if (!existsSync(path)) {
      const ports = portsHere();
      throw new PortError(`serial port ${path} not found`, ports.length > 0 ? `ports here: ${ports.slice(0, 4).join(', ')}` : 'no serial ports found: is the duck plugged in?');
    }
    const link = new TtyLink(client, path, baud, options.reconnect ?? true, options.retryMs ?? 200, options.idlePollMs ?? FALLBACK_POLL_MS);
    link.use(await openTty(path, baud));
    return link;
  }

  get connected(): boolean {
    return this.tty !== undefined;
  }

  /** Whether the driver hands over each byte at once (an FTDI adapter's latency timer at 1 ms), while the port is open. */
  get lowLatency(): LowLatency | undefined {
    return this.tty?.lowLatency;
  }

  /** Stops reconnecting, detaches the client and closes the device. Idempotent. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    clearInterval(this.fallback);
    this.reopener.stop();
    this.client.detach(new LinkLostError(`serial link to ${this.path} closed`));
    const tty = this.tty;
    this.tty = undefined;
    return tty !== undefined ? shut(tty) : Promise.resolve();
  }

  /**
   * Hands the client every byte the device holds now, without waiting. A read that fails other
   * than "nothing yet" (EIO: the device vanished), or reads the end, is the link lost.
   */
  poll(): void {
    const tty = this.tty;
    if (tty === undefined) return;
    this.fallback?.refresh();
    for (;;) {
      let n: number;
      // "Nothing yet" is thrown: without a stack to capture, most of what that costs a tick goes.
      const depth = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        n = readSync(tty.input, this.chunk, 0, READ_CHUNK, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') this.lost(tty);
        return;
      } finally {
        Error.stackTraceLimit = depth;
      }
      if (n === 0) return this.lost(tty);
      this.client.feed(this.chunk.subarray(0, n));
      if (this.tty !== tty || n < READ_CHUNK) return;
    }
  }

  private use(tty: Tty): void {
    this.tty = tty;
    // Nothing arrives through the stream's readable side: poll() feeds the client.
    const stream = Duplex.from({ readable: new Readable({ read: () => undefined }), writable: tty.output });
    tty.output.on('error', () => this.lost(tty));
    stream.on('error', () => undefined);
    this.client.attach(stream, () => this.poll());
    this.fallback ??= setInterval(() => this.poll(), this.idlePollMs);
  }

  private lost(tty: Tty): void {
    if (this.closed || this.tty !== tty) return;
    this.tty = undefined;
    const shutting = shut(tty);
    const reason = new LinkLostError(`serial link to ${this.path} lost`);
    this.client.detach(reason);
    this.emit('lost', reason);
    // Not before the old descriptors are closed: their lock would refuse the reopen.
    if (this.reconnect) void shutting.then(() => this.reopener.schedule());
  }
}
