/**
 * The serial edge: the only module that imports `serialport`. Opens a port by path (prefer the
 * stable /dev/serial/by-id/... names), hands the stream to its user (a BridgeClient, or a servo
 * bus: link-user.ts), and when the port vanishes (unplugged, socat gone) fails the user's waiting
 * requests and keeps trying to reopen the same path until it comes back or the link is closed.
 */
import { EventEmitter } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import type { LinkUser } from './link-user.js';
import { LinkLostError, PortError } from './errors.js';
import { askLowLatency, type LowLatency } from './low-latency.js';
import { cannotOpen } from './open-refusal.js';
import { DEFAULT_BAUD } from './protocol.js';
import { Reopener } from './reopen.js';

export { DEFAULT_BAUD };
const BY_ID = '/dev/serial/by-id';

export interface SerialLinkOptions {
  readonly path: string;
  readonly baud?: number;
  /** Reopen the path when it comes back after a loss (default true). */
  readonly reconnect?: boolean;
  /** How often to look for the port while it is gone. */
  readonly retryMs?: number;
}

export interface SerialLinkEvents {
  lost: [reason: Error];
  restored: [];
}

/** What each open port's driver said to low latency, for health to show. */
const latencyOf = new WeakMap<SerialPort, LowLatency>();

async function openPort(path: string, baudRate: number): Promise<SerialPort> {
  const port = await new Promise<SerialPort>((resolve, reject) => {
    const opening = new SerialPort({ path, baudRate, autoOpen: false });
    opening.open((err) => (err ? reject(cannotOpen(path, err.message)) : resolve(opening)));
  });
  // Replies handed over at once, not after an FTDI adapter's 16 ms latency timer (low-latency.ts).
  const fd = (port.port as { readonly fd?: number | null } | undefined)?.fd;
  if (typeof fd === 'number') latencyOf.set(port, await askLowLatency(fd));
  return port;
}

function closePort(port: SerialPort): Promise<void> {
  return new Promise((resolve) => {
    if (!port.isOpen) {
      resolve();
      return;
    }
    port.close(() => resolve());
  });
}

/** A port that is missing gets a hint listing the ports that do exist. */
export async function portHint(): Promise<string> {
  const ports = await listPorts();
  return ports.length > 0 ? `ports here: ${ports.slice(0, 4).join(', ')}` : 'no serial ports found: is the duck plugged in?';
}

/**
 * Serial ports on this machine, stable names first. SerialPort.list() shells out to udevadm and
 * rejects where it is absent (containers, minimal images), so it is a bonus, not the source.
 */
export async function listPorts(): Promise<string[]> {
  const found = new Set<string>();
  try {
    for (const name of readdirSync(BY_ID)) found.add(join(BY_ID, name));
  } catch {
    // no by-id directory: no USB serial devices, or no udev
  }
  try {
    for (const name of readdirSync('/dev')) {
      if (/^tty(ACM|USB)\d+$/.test(name)) found.add(join('/dev', name));
    }
  } catch {
    // /dev unreadable: nothing to add
  }
  try {
    for (const p of await SerialPort.list()) found.add(p.path);
  } catch {
    // udevadm missing
  }
  return [...found];
}

export class SerialLink extends EventEmitter<SerialLinkEvents> {
  private port: SerialPort | undefined;
  private closed = false;
  private readonly reopener: Reopener<SerialPort>;

  private constructor(
    private readonly client: LinkUser,
    readonly path: string,
    readonly baud: number,
    private readonly reconnect: boolean,
    retryMs: number,
  ) {
    super();
    this.reopener = new Reopener(path, retryMs, () => openPort(path, baud), closePort, (port) => {
      this.use(port);
      this.emit('restored');
    });
  }

  /** Open the port and attach it to the client. Throws PortError with a hint when it is missing. */
  static async open(client: LinkUser, options: SerialLinkOptions): Promise<SerialLink> {
    const link = new SerialLink(client, options.path, options.baud ?? DEFAULT_BAUD, options.reconnect ?? true, options.retryMs ?? 200);
    if (!existsSync(options.path)) {
      throw new PortError(`serial port ${options.path} not found`, await portHint());
    }
    link.use(await openPort(link.path, link.baud));
    return link;
  }

  get connected(): boolean {
    return this.port?.isOpen === true;
  }

  /** What the open port's driver said when asked for low latency; undefined while no port is open. */
  get lowLatency(): LowLatency | undefined {
    return this.port === undefined ? undefined : latencyOf.get(this.port);
  }

  /** Stop reconnecting, detach the client and close the port. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    this.reopener.stop();
    const port = this.port;
    this.port = undefined;
    this.client.detach(new LinkLostError(`serial link to ${this.path} closed`));
    if (port !== undefined) {
      port.removeAllListeners();
      port.on('error', () => undefined); // a close racing an unplug must not become an unhandled error
      await closePort(port);
    }
  }

  private use(port: SerialPort): void {
    this.port = port;
    port.once('close', () => this.lost(new LinkLostError(`serial link to ${this.path} lost`)));
    // Errors also arrive as 'close' for a vanished device; the client sees them through attach().
    port.on('error', () => undefined);
    this.client.attach(port);
  }

  private lost(reason: Error): void {
    if (this.closed) return;
    this.port = undefined;
    this.client.detach(reason);
    this.emit('lost', reason);
    if (this.reconnect) this.reopener.schedule();
  }
}
