/**
 * A `quackd serve` in a child process (the built bin, as systemd runs it) with its own home and
 * config.yaml: resolves once it says it is ready; killed when the test ends if it is still up.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { runCli, type CliResult } from './cli.js';

export interface Serving {
  readonly child: ChildProcess;
  readonly exited: Promise<CliResult>;
  stderr(): string;
}

/** `env`: more of the service's environment (INVOCATION_ID, as systemd sets it). */
export async function serve(home: string, config: string, env: NodeJS.ProcessEnv = {}): Promise<Serving> {
  writeFileSync(join(home, 'config.yaml'), config);
  let stderr = '';
  let child: ChildProcess | undefined;
  const exited = runCli(['serve'], {
    env: { ...env, QUACKD_HOME: home },
    timeoutMs: 120_000,
    onSpawn: (c) => {
      child = c;
      c.stderr?.on('data', (d: string) => (stderr += d));
    },
  });
  let done = false;
  void exited.finally(() => (done = true)).catch(() => undefined);
  after(async () => {
    if (!done) child?.kill('SIGKILL');
    await exited.catch(() => undefined);
  });
  while (!stderr.includes('quackd serve ready')) {
    if (done) throw new Error(`quackd serve exited before it was ready:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  if (child === undefined) throw new Error('quackd serve did not start');
  return { child, exited, stderr: () => stderr };
}
