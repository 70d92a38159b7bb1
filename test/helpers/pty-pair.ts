/**
 * A real pty pair made by socat, the wire between quackd and a far end that is a program of its
 * own opening a path (the host firmware for the bridge, the servo simulator of bench/servo-bus.ts).
 * A simulator in a node process holds its pty itself instead (held-pty.ts: one pty, no relay).
 * `near` is the end quackd opens, `far` the other. Every socat started here is killed by close() and, as a last
 * resort, when the test process exits, even if a test failed half-way; `live` is that registry,
 * for the far end's own children too.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asHardware } from './hardware-priority.js';

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Keep `child` on the list of processes killed when the test process exits, and never what keeps
 * it from exiting: a rig a failed test left behind (its body would not open, so its cleanup never
 * ran) once held a test file open for over an hour after its last test, waiting on its children.
 */
export function live(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.unref();
  (child.stderr as Socket | null)?.unref();
  return child;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  // Held while a test waits for it: an unreferenced child alone would let the process exit first.
  child.ref();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export function onPath(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export class PtyPair {
  readonly dir: string;
  /** The end quackd opens. */
  readonly near: string;
  /** The end the far side (firmware, simulator) opens. */
  readonly far: string;
  private socat: ChildProcess | undefined;

  constructor(prefix = 'quackd-pty-', names: { readonly near: string; readonly far: string } = { near: 'host', far: 'far' }) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    this.near = join(this.dir, names.near);
    this.far = join(this.dir, names.far);
  }

  /** Starts socat and waits until both links exist. */
  async open(): Promise<this> {
    // The wire stands for a USB link, which the host's load never starves (hardware-priority.ts).
    this.socat = live(spawn(...asHardware('socat', [`pty,raw,echo=0,link=${this.near}`, `pty,raw,echo=0,link=${this.far}`]), { stdio: 'ignore' }));
    await waitFor('socat pty links', () => existsSync(this.near) && existsSync(this.far));
    return this;
  }

  /** Unplug: socat exits and removes both links, as a USB device node disappears. */
  async unplug(): Promise<void> {
    const child = this.socat;
    this.socat = undefined;
    if (child !== undefined) {
      child.kill('SIGTERM');
      await exited(child);
    }
    await waitFor('the pty links to go', () => !existsSync(this.near));
  }

  /** Freeze the relay (SIGSTOP socat): nothing crosses either way until resume(). */
  pause(): void {
    this.socat?.kill('SIGSTOP');
  }

  resume(): void {
    this.socat?.kill('SIGCONT');
  }

  /** Kills socat and removes the directory. Idempotent. */
  async close(): Promise<void> {
    const socat = this.socat;
    this.socat = undefined;
    if (socat !== undefined) {
      socat.kill('SIGKILL');
      await exited(socat);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
