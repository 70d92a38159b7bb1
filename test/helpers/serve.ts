/**
 * A `quackd serve` in a child process (the built bin, as systemd runs it) with its own home and
 * config.yaml: resolves once it says it is ready; killed when the test ends if it is still up.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { runCli, type CliResult } from './cli.js';
import { stopBeforeRemoving } from './tmp.js';

export interface Serving {
  readonly child: ChildProcess;
  readonly exited: Promise<CliResult>;
  stderr(): string;
}

/** `env`: more of the service's environment (INVOCATION_ID, as systemd sets it). */
export async function serve(home: string, config: string, env: NodeJS.ProcessEnv = {}): Promise<Serving> {
  let killed: (() => Promise<void>) | undefined;
  // Registered before the wait, so a service that never says ready is killed too; and before its
  // home is removed, since the home's own clean-up was registered first.
  after(() => killed?.());
  stopBeforeRemoving(home, async () => killed?.());
  return startServe(home, config, { env, timeoutMs: 120_000, onStart: (kill) => (killed = kill) });
}

/** A service the test stops itself: from a `before` hook, where `after()` would stop it as the hook ends. */
export interface StoppableServing extends Serving {
  /** SIGTERM, as systemd stops it; resolves with how it exited, for the test to assert a clean stop. */
  stop(): Promise<CliResult>;
}

/**
 * `serve` without a clean-up of its own: the caller's after hook calls `stop()`. It is the one
 * for a suite that serves from `before`, since an `after()` registered in a hook runs when the hook ends.
 */
export async function startServe(home: string, config: string, options: { readonly env?: NodeJS.ProcessEnv; readonly timeoutMs?: number; readonly onStart?: (kill: () => Promise<void>) => void } = {}): Promise<StoppableServing> {
  writeFileSync(join(home, 'config.yaml'), config);
  let stderr = '';
  let child: ChildProcess | undefined;
  const exited = runCli(['serve'], {
    env: { ...options.env, QUACKD_HOME: home },
    timeoutMs: options.timeoutMs ?? 300_000,
    onSpawn: (c) => {
      child = c;
      c.stderr?.on('data', (d: string) => (stderr += d));
    },
  });
  let done = false;
  void exited.finally(() => (done = true)).catch(() => undefined);
  options.onStart?.(async () => {
    if (!done) child?.kill('SIGKILL');
    await exited.catch(() => undefined);
  });
  while (!stderr.includes('quackd serve ready')) {
    if (done) throw new Error(`quackd serve exited before it was ready:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  if (child === undefined) throw new Error('quackd serve did not start');
  const started = child;
  return {
    child: started,
    exited,
    stderr: () => stderr,
    stop: () => {
      started.kill('SIGTERM');
      return exited;
    },
  };
}
