/**
 * A stand-in for systemd's notify socket: a unix datagram socket bound by a Python listener (Node
 * has no AF_UNIX datagrams) that closes systemd-notify's barrier fd as systemd does, and hands
 * each datagram to the test. Killed when the test ends.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after } from 'node:test';
import { skipOutsideCi } from './skip.js';

// Binds the socket (`@name` is the abstract namespace), then prints one JSON line a datagram.
const LISTENER = `
import json, os, socket, sys, time
path = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind('\\0' + path[1:] if path.startswith('@') else path)
print('listening', flush=True)
while True:
    data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16 * 4))
    for level, kind, fds in anc:
        if kind == socket.SCM_RIGHTS:
            for i in range(0, len(fds) - len(fds) % 4, 4): os.close(int.from_bytes(fds[i:i + 4], sys.byteorder))
    print(json.dumps({'ms': time.monotonic() * 1000, 'message': data.decode()}), flush=True)
`;

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
export const noNotifyTools = skipOutsideCi(!has('systemd-notify') ? 'systemd-notify is not installed' : !has('python3') ? 'python3 (the test listener) is not installed' : undefined);

export interface Heard {
  readonly ms: number;
  readonly message: string;
  /** performance.now() in the test process when it arrived. */
  readonly at: number;
}

/** A listener on `socket`; resolves once it is bound. `heard` grows as datagrams arrive. */
export async function listen(socket: string): Promise<{ heard: Heard[]; next: (pred: (h: Heard) => boolean) => Promise<Heard> }> {
  const py = spawn('python3', ['-u', '-c', LISTENER, socket], { stdio: ['ignore', 'pipe', 'inherit'] });
  after(() => void (py.exitCode === null && py.signalCode === null && py.kill('SIGKILL')));
  const heard: Heard[] = [];
  const waiting = new Set<() => void>();
  const lines = createInterface({ input: py.stdout });
  let bound: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (bound = resolve));
  lines.on('line', (line) => {
    if (line === 'listening') return bound();
    // Stamped on arrival too: comparable with what the test saw of the service, on one clock.
    heard.push({ ...(JSON.parse(line) as Omit<Heard, 'at'>), at: performance.now() });
    waiting.forEach((w) => w());
  });
  await ready;
  const next = (pred: (h: Heard) => boolean) =>
    new Promise<Heard>((resolve) => {
      const from = heard.length;
      const look = () => {
        const found = heard.slice(from).find(pred);
        if (found === undefined) return;
        waiting.delete(look);
        resolve(found);
      };
      waiting.add(look);
    });
  return { heard, next };
}

/** A datagram that has `text` as one of its lines (`READY=1`). */
export const is = (text: string) => (h: Heard) => h.message.split('\n').includes(text);
