/**
 * The bridge test rig: builds the host firmware with make, opens a pty it holds itself
 * (held-pty.ts: quackd opens the slave's link, as a USB adapter's) and runs quackd-fw-host on its
 * master, handed over a cable (pty-cable.ts) so it can be unplugged and plugged back in while the
 * firmware runs on. Tests talk to the firmware exactly as quackd talks to a duck. The firmware
 * stands for hardware and runs under SCHED_FIFO where allowed (test/helpers/hardware-priority.ts),
 * so a machine's load delays quackd, never the duck. Every child process it starts is killed by
 * cleanup() and, as a last resort, when the test process exits, even if a test failed half-way.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { JsonRpcBody, greet } from '../../src/bodies/microduck/jsonrpc/jsonrpc-body.js';
import { BridgeClient } from '../../src/bridge/client.js';
import { SerialLink } from '../../src/bridge/serial.js';
import { asHardware } from '../helpers/hardware-priority.js';
import { HeldPty } from '../helpers/held-pty.js';
import { PtyCable } from '../helpers/pty-cable.js';
import { exited, live, onPath, waitFor } from '../helpers/pty-pair.js';

export { sleep, waitFor } from '../helpers/pty-pair.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const FW_DIR = join(REPO, 'firmware-bridge');
export const FW_HOST = join(FW_DIR, 'build', 'quackd-fw-host');

/** Why the firmware tests cannot run here (no make or gcc to build it), or undefined when they can. */
export function missingTools(): string | undefined {
  // CI installs both: there a missing tool must fail the run, not quietly skip the bridge.
  if (process.env['CI'] === 'true') return undefined;
  const missing = ['make', 'gcc'].filter((t) => !onPath(t));
  return missing.length > 0 ? `needs ${missing.join(', ')} (apt-get install ${missing.join(' ')})` : undefined;
}

let built = false;
export function buildFirmware(): void {
  if (built) return;
  execFileSync('make', ['-s', '-C', FW_DIR, 'host'], { stdio: ['ignore', 'ignore', 'pipe'] });
  built = true;
}

/** What the firmware says each time its link goes (hal/host/main.c): `link hung up (the cable)` when pulled out. */
const LINK_GONE = /link (hung up|closed|write failed)/g;

export class Rig {
  private readonly pty = new HeldPty('quackd-bridge-', { near: 'host' });
  readonly dir = this.pty.dir;
  /** The end quackd opens. */
  readonly hostPath = this.pty.near;
  private firmware: { readonly child: ChildProcess; readonly cable: PtyCable } | undefined;
  private plugged = false;
  private fwLog = '';

  /** A pty and the firmware on it; extra args go to quackd-fw-host. */
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

  /** Plugs a new pty in (the link at hostPath again), and into the firmware if it runs. */
  async startLink(): Promise<void> {
    await this.pty.open();
    this.plugged = true;
    this.firmware?.cable.plug(this.pty.master);
  }

  async startFirmware(args: readonly string[] = []): Promise<void> {
    const cable = new PtyCable();
    let child: ChildProcess;
    try {
      // The cable's end is the firmware's fd 3 (spawn dup2s it there, without close-on-exec).
      child = live(spawn(...asHardware(FW_HOST, ['--cable', '3', ...args]), { stdio: ['ignore', 'ignore', 'pipe', cable.programEnd] }));
    } finally {
      cable.started();
    }
    let ready = false;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (s: string) => {
      this.fwLog += s;
      if (s.includes('ready on')) ready = true;
    });
    this.firmware = { child, cable };
    if (this.plugged) cable.plug(this.pty.master);
    await waitFor('the firmware to be ready', () => ready || child.exitCode !== null);
    if (!ready) throw new Error(`quackd-fw-host exited: ${this.fwLog}`);
  }

  /** Pull the plug on the firmware only (the rig keeps the pty: the port itself does not vanish). */
  async killFirmware(): Promise<void> {
    const firmware = this.firmware;
    this.firmware = undefined;
    if (firmware === undefined) return;
    firmware.child.kill('SIGKILL');
    await exited(firmware.child);
    firmware.cable.close();
  }

  /**
   * Unplug: the pty goes and its link with it, as a USB device node disappears, and quackd's port
   * hangs up. The firmware goes too, unless `keepFirmware` (started with --reopen, it waits for
   * the link to come back, as a duck on its own battery does).
   */
  async unplug(options: { readonly keepFirmware?: boolean } = {}): Promise<void> {
    const firmware = this.firmware;
    if (this.plugged && firmware !== undefined && firmware.child.exitCode === null) {
      // The firmware lets go of its copy of the master first: the port hangs up only at the last close.
      const before = this.linkLosses();
      firmware.cable.pull();
      await waitFor('the firmware to let go of the pty', () => this.linkLosses() > before || firmware.child.exitCode !== null || firmware.child.signalCode !== null);
    }
    this.plugged = false;
    await this.pty.unplug();
    if (options.keepFirmware !== true) await this.killFirmware();
  }

  private linkLosses(): number {
    return this.fwLog.match(LINK_GONE)?.length ?? 0;
  }

  /** A signal to the firmware (SIGUSR1 starts its next `--tilt-at USR1:…` step). */
  signalFirmware(signal: NodeJS.Signals): void {
    if (this.firmware === undefined) throw new Error('the firmware is not running');
    this.firmware.child.kill(signal);
  }

  /** Freeze the wire (held-pty.ts's pause): nothing crosses either way until resumeLink(). */
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
    this.plugged = false;
    await this.pty.close();
  }
}

/**
 * A microduck:jsonrpc body on the rig built by hand, for a patient client (`timeoutMs`): a test
 * that freezes the wire or runs on a loaded machine must not see its requests time out.
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
