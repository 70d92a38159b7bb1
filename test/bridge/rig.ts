/**
 * The bridge test rig: builds the host firmware with make, makes a real pty pair with socat
 * (pty-pair.ts) and runs quackd-fw-host on one end, so tests talk to the firmware exactly as quackd
 * talks to a duck. Both stand for hardware and run under SCHED_FIFO where allowed
 * (test/helpers/hardware-priority.ts), so a machine's load delays quackd, never the duck. Every
 * child process it starts is killed by cleanup() and, as a last resort, when the test process
 * exits, even if a test failed half-way.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { JsonRpcBody, greet } from '../../src/bodies/microduck/jsonrpc/jsonrpc-body.js';
import { BridgeClient } from '../../src/bridge/client.js';
import { SerialLink } from '../../src/bridge/serial.js';
import { asHardware } from '../helpers/hardware-priority.js';
import { PtyPair, exited, live, onPath, waitFor } from '../helpers/pty-pair.js';

export { sleep, waitFor } from '../helpers/pty-pair.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const FW_DIR = join(REPO, 'firmware-bridge');
export const FW_HOST = join(FW_DIR, 'build', 'quackd-fw-host');

/** Why the pty tests cannot run here, or undefined when they can (CI installs all three). */
export function missingTools(): string | undefined {
  // CI installs all three: there a missing tool must fail the run, not quietly skip the bridge.
  if (process.env['CI'] === 'true') return undefined;
  const missing = ['socat', 'make', 'gcc'].filter((t) => !onPath(t));
  return missing.length > 0 ? `needs ${missing.join(', ')} (apt-get install socat make gcc)` : undefined;
}

let built = false;
export function buildFirmware(): void {
  if (built) return;
  execFileSync('make', ['-s', '-C', FW_DIR, 'host'], { stdio: ['ignore', 'ignore', 'pipe'] });
  built = true;
}

export class Rig {
  private readonly pty = new PtyPair('quackd-bridge-', { near: 'host', far: 'fw' });
  readonly dir = this.pty.dir;
  /** The end quackd opens. */
  readonly hostPath = this.pty.near;
  /** The end the firmware opens. */
  readonly fwPath = this.pty.far;
  private firmware: ChildProcess | undefined;
  private fwLog = '';

  /** A pty pair and the firmware on it; extra args go to quackd-fw-host. */
  static async start(fwArgs: readonly string[] = []): Promise<Rig> {
    buildFirmware();
    const rig = new Rig();
    try {
      await rig.startLink();
      await rig.startFirmware(fwArgs);
    } catch (err) {
      await rig.cleanup();
      throw err;
    }
    return rig;
  }

  async startLink(): Promise<void> {
    await this.pty.open();
  }

  async startFirmware(args: readonly string[] = []): Promise<void> {
    const child = live(spawn(...asHardware(FW_HOST, ['--port', this.fwPath, ...args]), { stdio: ['ignore', 'ignore', 'pipe'] }));
    let ready = false;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (s: string) => {
      this.fwLog += s;
      if (s.includes('ready on')) ready = true;
    });
    this.firmware = child;
    await waitFor('the firmware to be ready', () => ready || child.exitCode !== null);
    if (!ready) throw new Error(`quackd-fw-host exited: ${this.fwLog}`);
  }

  /** Pull the plug on the firmware only (socat stays: the port itself does not vanish). */
  async killFirmware(): Promise<void> {
    const child = this.firmware;
    this.firmware = undefined;
    if (child === undefined) return;
    child.kill('SIGKILL');
    await exited(child);
  }

  /**
   * Unplug: socat exits and removes both pty links, as a USB device node disappears. The firmware
   * goes too, unless `keepFirmware` (started with --reopen, it waits for the link to come back,
   * as a duck on its own battery does).
   */
  async unplug(options: { readonly keepFirmware?: boolean } = {}): Promise<void> {
    await this.pty.unplug();
    if (options.keepFirmware !== true) await this.killFirmware();
  }

  /** A signal to the firmware (SIGUSR1 starts its next `--tilt-at USR1:…` step). */
  signalFirmware(signal: NodeJS.Signals): void {
    if (this.firmware === undefined) throw new Error('the firmware is not running');
    this.firmware.kill(signal);
  }

  /** Freeze the pty relay (SIGSTOP socat): nothing crosses either way until resumeLink(). */
  pauseLink(): void {
    this.pty.pause();
  }

  resumeLink(): void {
    this.pty.resume();
  }

  firmwareLog(): string {
    return this.fwLog;
  }

  async cleanup(): Promise<void> {
    await this.killFirmware();
    await this.pty.close();
  }
}

/**
 * A microduck:jsonrpc body on the rig built by hand, for a patient client (`timeoutMs`): a test
 * that freezes the relay or runs on a loaded machine must not see its requests time out.
 */
export async function patientBody(rig: Rig, timeoutMs = 3000): Promise<JsonRpcBody> {
  const client = new BridgeClient({ timeoutMs });
  const link = await SerialLink.open(client, { path: rig.hostPath });
  const hello = await greet(client, rig.hostPath).catch(async (err: unknown) => {
    client.close();
    await link.close();
    throw err;
  });
  return new JsonRpcBody(client, hello, { label: rig.hostPath, close: () => link.close() });
}

export interface Wired {
  readonly rig: Rig;
  readonly client: BridgeClient;
}

/**
 * For a describe block: a rig and a client attached over its link, set up before its tests and
 * torn down after them. Read `wired.rig` and `wired.client` inside the tests.
 */
export function wiredClient(fwArgs: readonly string[], clientOptions: ConstructorParameters<typeof BridgeClient>[0]): Wired {
  let rig: Rig | undefined;
  let client: BridgeClient | undefined;
  let link: SerialLink | undefined;
  before(async () => {
    rig = await Rig.start(fwArgs);
    client = new BridgeClient(clientOptions);
    link = await SerialLink.open(client, { path: rig.hostPath });
  });
  after(async () => {
    client?.close();
    await link?.close();
    await rig?.cleanup();
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the rig is not up: use it inside a test');
    return v;
  };
  return {
    get rig() {
      return ready(rig);
    },
    get client() {
      return ready(client);
    },
  };
}
