/**
 * Bench: what one sd_notify message costs quackd: the time until systemd-notify has exited
 * (barrier included), and how long sending holds quackd's main thread. Two ways: `spawn`, a
 * systemd-notify forked from quackd for each message, and `shell`, src/service/notify-helper.ts
 * (a /bin/sh started once forks it). A fork costs more as the process grows, so each again with
 * 300 MB of heap, about a service with a policy and the twin loaded. A Python listener stands in
 * for systemd (it closes the barrier fd as systemd does).
 *
 *   node --import tsx bench/sd-notify.ts [--messages N]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { notifyHelper, type NotifySender } from '../src/service/notify-helper.js';
import { percentile } from './_stats.js';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '100' } } });
const messages = Number(values.messages);

const LISTENER = `
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print('listening', flush=True)
while True:
    _, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(64))
    for _, kind, fds in anc:
        if kind == socket.SCM_RIGHTS: os.close(int.from_bytes(fds[:4], sys.byteorder))
`;

if (spawnSync('sh', ['-c', 'command -v systemd-notify && command -v python3']).status !== 0) {
  console.log('skipped: needs systemd-notify and python3');
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'quackd-bench-notify-'));
const socket = join(dir, 'notify.sock');
const listener = spawn('python3', ['-u', '-c', LISTENER, socket], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  await new Promise((resolve) => listener.stdout.once('data', resolve));
  const env = { PATH: process.env['PATH'], NOTIFY_SOCKET: socket };
  const spawned = (message: string) =>
    new Promise<void>((resolve, reject) => spawn('systemd-notify', message.split('\n'), { env, stdio: 'ignore' }).on('error', reject).on('close', () => resolve()));
  // Started while this process is small, as notify.ts's start() does.
  const helper: NotifySender = notifyHelper(env);
  helper.open();
  const ballast: Buffer[] = [];
  for (const [way, heapMb, send] of [
    ['spawn', 0, spawned],
    ['shell', 0, (m: string) => helper.send(m)],
    ['spawn', 300, spawned],
    ['shell', 300, (m: string) => helper.send(m)],
  ] as const) {
    while (ballast.length < heapMb) ballast.push(Buffer.alloc(1 << 20, 1));
    const wall: number[] = [];
    const held: number[] = [];
    for (let i = 0; i < messages; i += 1) {
      const t0 = performance.now();
      const sent = send('WATCHDOG=1');
      held.push(performance.now() - t0);
      await sent;
      wall.push(performance.now() - t0);
    }
    const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
    const f = (xs: number[], q: number) => percentile(xs, q * 100).toFixed(2);
    console.log(`${way} · rss ${rss} MB · one message p50 ${f(wall, 0.5)} ms p99 ${f(wall, 0.99)} ms · sending holds the main thread p50 ${f(held, 0.5)} ms p99 ${f(held, 0.99)} ms`);
  }
  helper.close();
} finally {
  listener.kill();
  rmSync(dir, { recursive: true, force: true });
}
