/**
 * A real mosquitto (Debian's) for MQTT tests: started from a temp conf on a free loopback port,
 * killable and restartable on the same port (a broker outage), stopped when the test ends. No
 * persistence, as a default install has none: a restart forgets every retained message. With
 * options, a TLS listener (mqtts://, optionally requiring a client certificate) and a password file
 * made with mosquitto_passwd (no anonymous clients then). The caller stops it (an `after` hook in
 * the suite that started it), which also removes its folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
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

export interface MosquittoOptions {
  /** A TLS listener with these PEM files instead of plain MQTT; the url is then mqtts://. */
  readonly tls?: {
    readonly ca: string;
    readonly cert: string;
    readonly key: string;
    /** Turns away clients without a certificate signed by `ca`. */
    readonly requireCertificate?: boolean;
  };
  /** Only these users get in, by password; anonymous clients are refused. */
  readonly users?: Readonly<Record<string, string>>;
}

export interface Mosquitto {
  readonly url: string;
  readonly port: number;
  /** What the broker logged so far (connections, with their protocol: `(p5, c1, k30)`). */
  log(): string;
  /** kill -9 (an outage): clients see the link drop; retained messages are gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  stop(): Promise<void>;
}

/** mosquitto's password file for `users`, made as an admin makes it. */
function writePasswords(file: string, users: Readonly<Record<string, string>>): void {
  writeFileSync(file, '', { mode: 0o600 });
  for (const [user, password] of Object.entries(users)) {
    const r = spawnSync('mosquitto_passwd', ['-b', file, user, password], { encoding: 'utf8' });
    if (r.error !== undefined || r.status !== 0) throw new Error(`mosquitto_passwd failed: ${r.error?.message ?? r.stderr.trim()}`);
  }
}

export async function startMosquitto(options: MosquittoOptions = {}): Promise<Mosquitto> {
  if (BINARY === undefined) throw new Error('mosquitto is not installed');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'quackd-mosquitto-'));
  const conf = join(dir, 'mosquitto.conf');
  const logFile = join(dir, 'mosquitto.log');
  const { tls, users } = options;
  // mosquitto 2 listens on nothing without a listener line, and refuses anonymous clients without allow_anonymous.
  // Run as root (a container), mosquitto would become `mosquitto` before reading the files here,
  // which its 0700 folder keeps from it: it stays whoever started it.
  const lines = [`listener ${port} 127.0.0.1`, `user ${userInfo().username}`, 'set_tcp_nodelay true', 'persistence false', `log_dest file ${logFile}`];
  if (tls !== undefined) lines.push(`cafile ${tls.ca}`, `certfile ${tls.cert}`, `keyfile ${tls.key}`, `require_certificate ${tls.requireCertificate === true}`);
  lines.push(...(users !== undefined ? ['allow_anonymous false', `password_file ${join(dir, 'passwd')}`] : ['allow_anonymous true']));
  writeFileSync(conf, `${lines.join('\n')}\n`);
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  let child: ChildProcess | undefined;
  const start = async () => {
    const proc = spawn(BINARY, ['-c', conf], { stdio: 'ignore' });
    child = proc;
    for (let i = 0; i < 200; i++) {
      if (proc.exitCode !== null) throw new Error(`mosquitto exited with ${proc.exitCode}: ${log().trim().split('\n').slice(-3).join(' | ')}`);
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
  try {
    if (users !== undefined) writePasswords(join(dir, 'passwd'), users);
    await start();
  } catch (err) {
    await kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `${tls !== undefined ? 'mqtts' : 'mqtt'}://127.0.0.1:${port}`,
    port,
    log,
    kill: () => kill('SIGKILL'),
    start,
    async stop() {
      await kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
