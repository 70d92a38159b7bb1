/**
 * The serial edge for a worker thread. `serialport`'s native poller runs on the process's main
 * event loop and aborts the process when a port is opened from a worker (V8 "HandleScope without
 * proper locking"), so the control worker opens the device as a plain tty instead: `stty` sets
 * raw mode and the baud rate, and node:tty streams read and write it on the worker's own loop.
 * No reconnect: a link lost here ends the plant; the body reports it and the run ends.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import { ReadStream, WriteStream } from 'node:tty';
import type { BridgeClient } from './client.js';
import { LinkLostError, PortError } from './errors.js';

const BY_ID = '/dev/serial/by-id';

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

function hint(message: string): string | undefined {
  if (/permission denied|EACCES/i.test(message)) return 'no permission: add yourself to the dialout group';
  if (/is a directory|EISDIR/i.test(message)) return 'that is a directory, not a serial device';
  if (/not a typewriter|ENOTTY|inappropriate ioctl|not a tty/i.test(message)) return 'that is not a serial device';
  return undefined;
}

export class TtyLink {
  private closed = false;

  private constructor(
    private readonly client: BridgeClient,
    readonly path: string,
    private readonly input: ReadStream,
    private readonly output: WriteStream,
  ) {}

  /** Opens `path` raw at `baud` and attaches it to the client. Throws PortError with a hint. */
  static open(client: BridgeClient, options: { readonly path: string; readonly baud: number }): TtyLink {
    const { path, baud } = options;
    if (!existsSync(path)) {
      const ports = portsHere();
      throw new PortError(`serial port ${path} not found`, ports.length > 0 ? `ports here: ${ports.slice(0, 4).join(', ')}` : 'no serial ports found: is the duck plugged in?');
    }
    // One descriptor per stream: each tty handle closes its own, never the other's.
    const flags = constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK;
    let fd: number;
    let fdOut: number;
    try {
      fd = openSync(path, flags);
    } catch (err) {
      const m = err instanceof Error ? err.message : String(err);
      throw new PortError(`cannot open ${path}: ${m.replace(/^[A-Z]+: /, '').split(',')[0] ?? m}`, hint(m));
    }
    try {
      execFileSync('stty', ['-F', path, String(baud), 'raw', '-echo', '-echoe', '-echok', '-ixon', '-ixoff', '-crtscts', 'clocal', 'cread', 'min', '1', 'time', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
      fdOut = openSync(path, flags);
    } catch (err) {
      closeSync(fd);
      const m = err instanceof Error && 'stderr' in err ? String((err as { stderr: unknown }).stderr).trim() : String(err);
      throw new PortError(`cannot set ${path} to ${baud} baud raw: ${m.split('\n')[0] ?? m}`, hint(m) ?? 'that is not a serial device, or stty is missing');
    }
    const input = new ReadStream(fd);
    input.setRawMode(true);
    const output = new WriteStream(fdOut);
    const link = new TtyLink(client, path, input, output);
    const stream = Duplex.from({ readable: input, writable: output });
    // A vanished device ends the read side (EIO): that is the link lost.
    const lost = (): void => link.lost();
    input.once('end', lost);
    input.once('close', lost);
    input.on('error', lost);
    output.on('error', lost);
    stream.on('error', () => undefined);
    client.attach(stream);
    return link;
  }

  private lost(): void {
    if (this.closed) return;
    this.client.detach(new LinkLostError(`serial link to ${this.path} lost`));
  }

  /** Detach the client and close the device. Idempotent. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.client.detach(new LinkLostError(`serial link to ${this.path} closed`));
    this.input.removeAllListeners();
    this.output.removeAllListeners();
    this.input.on('error', () => undefined);
    this.output.on('error', () => undefined);
    this.input.destroy();
    this.output.destroy();
    return Promise.resolve();
  }
}
