/**
 * The platform's own floor for a 50 Hz loop, measured beside quackd's in the same run: a process
 * whose worker thread asks for the same scheduling as the control loop (`chrt --fifo` 10 on its
 * own thread, as src/control/realtime.ts does; refused where quackd's is), paces the same grid
 * (a timer for the coarse wait, Atomics.wait for the last 2 ms, late ticks skipped and counted as
 * src/control/schedule.ts does) and does no work. What it misses, the machine took: a vCPU the
 * host did not run, an interrupt storm. What quackd's loop misses beyond it is quackd's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const WORKER = `
const { parentPort } = await import('node:worker_threads');
const { readFileSync, readlinkSync, writeFileSync } = await import('node:fs');
const { execFile } = await import('node:child_process');
const PERIOD = 20, FINE = 2;
try { writeFileSync('/proc/thread-self/comm', 'bare-loop'); } catch {}
const tid = readlinkSync('/proc/thread-self').split('/').pop();
const scheduling = await new Promise((resolve) => execFile('chrt', ['--fifo', '--reset-on-fork', '--pid', '10', tid], { timeout: 10000 }, (err, _o, stderr) => resolve(err ? 'normal (' + (String(stderr).trim() || err.message).split('\\n')[0] + ')' : 'SCHED_FIFO 10')));
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const late = [];
let missed = 0;
const t0 = performance.now();
const arm = (slot) => {
  const due = t0 + slot * PERIOD;
  const coarse = due - performance.now() - FINE;
  const fire = () => {
    for (let left = due - performance.now(); left > 0; left = due - performance.now()) Atomics.wait(sleeper, 0, 0, left);
    const now = performance.now();
    late.push(now - due);
    const latestDue = Math.floor((now - t0) / PERIOD);
    const next = latestDue <= slot + 1 ? slot + 1 : latestDue;
    missed += next - slot - 1;
    arm(next);
  };
  if (coarse >= 1) setTimeout(fire, coarse); else setImmediate(fire);
};
arm(1);
// Linux's schedstat: ns on a CPU, ns waiting runnable for one, time slices.
const runqMs = () => { try { return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]) / 1e6; } catch { return NaN; } };
const runq0 = runqMs();
parentPort.on('message', () => parentPort.postMessage({ scheduling, late, missed, runqMs: runqMs() - runq0 }));
parentPort.postMessage('ready');
`;

const PARENT = `
import { Worker } from 'node:worker_threads';
const w = new Worker(${JSON.stringify(WORKER)}, { eval: true });
w.once('message', () => {
  process.stdout.write('ready\\n');
  process.once('SIGUSR2', () => w.postMessage('report'));
  w.once('message', (r) => { process.stdout.write(JSON.stringify(r) + '\\n'); process.exit(0); });
});
w.once('error', (e) => { process.stderr.write(String(e) + '\\n'); process.exit(1); });
`;

export interface PlatformFigures {
  readonly scheduling: string;
  /** Each tick's lateness against its slot, ms. */
  readonly late: readonly number[];
  readonly missed: number;
  /** How long its thread waited runnable for a CPU, ms. */
  readonly runqMs: number;
}

export interface PlatformLoop {
  /** Stop it and take its figures. */
  finish(): Promise<PlatformFigures>;
}

/** Starts the bare loop in a process of its own (this process's rights: a case without CAP_SYS_NICE gives it none). */
export async function platformLoop(): Promise<PlatformLoop> {
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', PARENT], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (err += s));
  child.stdout?.setEncoding('utf8').on('data', (s: string) => (out += s));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => out.includes('ready\n') && (clearInterval(poll), resolve()), 10);
    void exited.then((code) => (clearInterval(poll), reject(new Error(`the bare loop exited ${code ?? '?'}: ${err.trim()}`))));
  });
  return {
    async finish() {
      child.kill('SIGUSR2');
      const code = await exited;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) throw new Error(`the bare loop exited ${code ?? '?'} without its figures: ${err.trim()}`);
      return JSON.parse(line) as PlatformFigures;
    },
  };
}
