/**
 * Baselines for bench/service.ts, measured in the same run on the same machine: what the chosen
 * parts cost before any quackd code runs, so the service's figures read as ratios to a floor.
 *   rss floor   node with one worker thread that has loaded onnxruntime-node and made a session
 *               of the bundled walk policy: the least a process can hold that runs ONNX policies
 *               in a control thread of its own (the real duck's shape).
 *   parts floor the rss floor with the libraries the held duck's service loads in its main thread
 *               (bench/_chosen-parts.ts) imported there, nothing of theirs run: what the chosen
 *               parts hold before quackd's own code, the least the service could settle at.
 *   bare loop   node with one worker that only paces a 50 Hz loop the way the control loop does
 *               (a timer for the coarse wait, Atomics.wait for the last 2 ms) and does no work:
 *               the CPU of the wake-ups alone.
 * Each is a process of its own, watched from outside like the service, under the environment
 * systemd/quackd.service gives the service (bench/_unit-env.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ONNX_TELEMETRY_OFF } from '../src/policy/telemetry.js';
import { unitEnvironment } from './_unit-env.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WALK = fileURLToPath(new URL('../src/policy/bundled/walk/policy.onnx', import.meta.url));

const ONNX_WORKER = `
const { readFileSync } = await import('node:fs');
const { parentPort } = await import('node:worker_threads');
const ort = await import('onnxruntime-node');
const session = await ort.InferenceSession.create(readFileSync(${JSON.stringify(WALK)}), { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
parentPort.postMessage('ready');
// Keep the session referenced, and the thread alive, as a loop holding it would.
setInterval(() => session.inputNames, 60000);
`;

const LOOP_WORKER = `
const { parentPort } = await import('node:worker_threads');
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const t0 = performance.now();
let slot = 0;
const arm = () => {
  const due = t0 + ++slot * 20;
  const coarse = due - performance.now() - 2;
  const fire = () => { for (let left = due - performance.now(); left > 0; left = due - performance.now()) Atomics.wait(sleeper, 0, 0, left); arm(); };
  if (coarse >= 1) setTimeout(fire, coarse); else setImmediate(fire);
};
arm();
parentPort.postMessage('ready');
`;

const parentOf = (worker: string, preload?: string) => `
import { Worker } from 'node:worker_threads';
${preload !== undefined ? `await import(${JSON.stringify(pathToFileURL(preload).href)});` : ''}
const w = new Worker(${JSON.stringify(worker)}, { eval: true });
w.once('message', () => process.stdout.write('ready\\n'));
w.once('error', (e) => { process.stderr.write(String(e) + '\\n'); process.exit(1); });
`;

export interface Floor {
  readonly pid: number;
  /** what it has written to stderr (node's own lines: the inspector's port) */
  stderr(): string;
  stop(): Promise<void>;
}

async function start(worker: string, preload?: string, nodeArgs: readonly string[] = []): Promise<Floor> {
  // Under the unit's environment, and with onnxruntime's telemetry off, as the service it is set against runs.
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--input-type=module', '-e', parentOf(worker, preload)], { cwd: ROOT, env: { ...process.env, ...unitEnvironment(), [ONNX_TELEMETRY_OFF.name]: ONNX_TELEMETRY_OFF.value }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (err += s));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (s: string) => s.includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`the baseline exited ${code}: ${err.trim()}`)));
  });
  if (child.pid === undefined) throw new Error('the baseline has no pid');
  return {
    pid: child.pid,
    stderr: () => err,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** node + a worker holding onnxruntime-node and a session of the walk policy. */
export const onnxFloor = (nodeArgs: readonly string[] = []): Promise<Floor> => start(ONNX_WORKER, undefined, nodeArgs);
/** The onnxruntime floor with `partsScript` (bench/_chosen-parts.ts as bundled) imported in its main thread first. */
export const partsFloor = (partsScript: string, nodeArgs: readonly string[] = []): Promise<Floor> => start(ONNX_WORKER, partsScript, nodeArgs);
/** node + a worker pacing a 50 Hz loop that does nothing. */
export const bareLoop = (): Promise<Floor> => start(LOOP_WORKER);

/** VmRSS of a process, MB (10^6 bytes). */
export function rssMb(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
  return (kb * 1024) / 1e6;
}
