/**
 * The rigs' process helpers: the far end of a wire that is a program of its own (the host
 * firmware, a servo twin, a bench's simulator) is started through `live`, the registry of
 * children killed when the test process exits, even if a test failed half-way; waitFor, sleep,
 * exited and onPath beside it. (This file made socat pty pairs once; every rig now holds its pty
 * itself: held-pty.ts.)
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

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
