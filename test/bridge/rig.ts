/**
 * The bridge test rig: builds the host firmware with make, makes a real pty pair with socat and
 * runs quackd-fw-host on one end, so tests talk to the firmware exactly as quackd talks to a duck.
 * Both stand for hardware and run under SCHED_FIFO where allowed (test/helpers/hardware-priority.ts),
 * so a machine's load delays quackd, never the duck. Every child process it starts is killed by
 * cleanup() and, as a last resort, when the test process exits, even if a test failed half-way.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { JsonRpcBody, greet } from '../../src/bodies/microduck/jsonrpc/jsonrpc-body.js';
import { BridgeClient } from '../../src/bridge/client.js';
import { SerialLink } from '../../src/bridge/serial.js';
import { asHardware } from '../helpers/hardware-priority.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const FW_DIR = join(REPO, 'firmware-bridge');
export const FW_HOST = join(FW_DIR, 'build', 'quackd-fw-host');

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Killed when the test process exits, and never what keeps it from exiting: a rig a failed test
 * left behind (its body would not open, so its cleanup never ran) once held a test file open for
 * over an hour after its last test, waiting on its own children.
 */
function watched(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.unref();
  (child.stderr as Socket | null)?.unref();
  return child;
}

function onPath(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

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

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  // Held while a test waits for it: an unreferenced child alone would let the process exit first.
  child.ref();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export class Rig {
  readonly dir = mkdtempSync(join(tmpdir(), 'quackd-bridge-'));
  /** The end quackd opens. */
  readonly hostPath = join(this.dir, 'host');
  /** The end the firmware opens. */
  readonly fwPath = join(this.dir, 'fw');
  private socat: ChildProcess | undefined;
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
    const child = watched(spawn(...asHardware('socat', [`pty,raw,echo=0,link=${this.hostPath}`, `pty,raw,echo=0,link=${this.fwPath}`]), { stdio: 'ignore' }));
    this.socat = child;
    await waitFor('socat pty links', () => existsSync(this.hostPath) && existsSync(this.fwPath));
  }

  async startFirmware(args: readonly string[] = []): Promise<void> {
    const child = watched(spawn(...asHardware(FW_HOST, ['--port', this.fwPath, ...args]), { stdio: ['ignore', 'ignore', 'pipe'] }));
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
    const child = this.socat;
    this.socat = undefined;
    if (child !== undefined) {
      child.kill('SIGTERM');
      await exited(child);
    }
    if (options.keepFirmware !== true) await this.killFirmware();
    await waitFor('the pty links to go', () => !existsSync(this.hostPath));
  }

  /** A signal to the firmware (SIGUSR1 starts its next `--tilt-at USR1:…` step). */
  signalFirmware(signal: NodeJS.Signals): void {
    if (this.firmware === undefined) throw new Error('the firmware is not running');
    this.firmware.kill(signal);
  }

  /** Freeze the pty relay (SIGSTOP socat): nothing crosses either way until resumeLink(). */
  pauseLink(): void {
    this.socat?.kill('SIGSTOP');
  }

  resumeLink(): void {
    this.socat?.kill('SIGCONT');
  }

  firmwareLog(): string {
    return this.fwLog;
  }

  async cleanup(): Promise<void> {
    await this.killFirmware();
    const socat = this.socat;
    this.socat = undefined;
    if (socat !== undefined) {
      socat.kill('SIGKILL');
      await exited(socat);
    }
    rmSync(this.dir, { recursive: true, force: true });
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
