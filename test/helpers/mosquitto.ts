/**
 * A real mosquitto (Debian's) for MQTT tests: started from a temp conf on a free loopback port,
 * killable and restartable on the same port (a broker outage), stopped when the test ends. No
 * persistence, as a default install has none: a restart forgets every retained message. The caller
 * stops it (an `after` hook in the suite that started it), which also removes its folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { skipOutsideCi } from './skip.js';

const BINARY = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((p) => spawnSync(p, ['-h']).error === undefined);

/** Why the mosquitto tests skip on this machine (CI installs it, so never there). */
export const noMosquitto: string | undefined = skipOutsideCi(BINARY === undefined ? 'mosquitto is not installed (apt-get install mosquitto)' : undefined);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface Mosquitto {
  readonly url: string;
  readonly port: number;
  /** kill -9 (an outage): clients see the link drop; retained messages are gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  stop(): Promise<void>;
}

export async function startMosquitto(): Promise<Mosquitto> {
  if (BINARY === undefined) throw new Error('mosquitto is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'quackd-mosquitto-'));
  const port = await freePort();
  const conf = join(dir, 'mosquitto.conf');
  // mosquitto 2 listens on nothing without a listener line, and refuses anonymous clients without allow_anonymous.
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\npersistence false\nlog_dest none\n`);
  let child: ChildProcess | undefined;
  const start = async () => {
    const proc = spawn(BINARY, ['-c', conf], { stdio: 'ignore' });
    child = proc;
    for (let i = 0; i < 200; i++) {
      if (proc.exitCode !== null) throw new Error(`mosquitto exited with ${proc.exitCode}`);
      if (await accepting(port)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('mosquitto did not start listening');
  };
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill(signal);
    await exited;
  };
  await start();
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    kill: () => kill('SIGKILL'),
    start,
    async stop() {
      await kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
