/**
 * The servo twin (servo-twin.ts) as tests and benches use it: in a process of its own at the rig's
 * priority (servo-twin-main.ts), so that the quackd under test, run in the test's process, runs
 * at normal priority as a user's does, and the rig's physics and servos are never starved by the
 * machine's load. Kept in the test process with every thread under SCHED_FIFO, the twin had
 * quackd's main thread at SCHED_FIFO too: beside busy processes a patrol's turn made good a third
 * less (142° and 153° of 180° in its time), a `quackd do` went silent for 60 s, and two test
 * files spun in MuJoCo's start for over half an hour.
 *
 * Its V8 collects garbage on the main thread alone (`--single-threaded-gc`): only that thread runs
 * at the rig's priority, and it must never wait for a helper thread that the load starves.
 *
 * The same questions as the in-process twin, answered over the child's stdin and stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { OPEN_DUCK_MINI_V2, type JointRow } from '../../src/bodies/microduck/servo-bus/joint-table.js';
import type { TrunkPose } from '../../src/control/plant.js';
import { exited, live, sleep } from './pty-pair.js';
import type { ReceivedInstruction } from './servo-sim.js';
import type { ServoTwinOptions } from './servo-twin.js';

const MAIN = new URL('./servo-twin-main.ts', import.meta.url).pathname;

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class ServoTwinProcess {
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private gone: Error | undefined;

  private constructor(
    private readonly child: ChildProcess,
    /** The near end of the pty: the body's --port. */
    readonly port: string,
    /** The simulated IMU file: the body's `sim_imu`. */
    readonly imuPath: string,
    readonly joints: readonly JointRow[],
    lines: Interface,
  ) {
    lines.on('line', (line) => this.answer(line));
    child.once('exit', (code, signal) => this.fail(new Error(`the servo twin exited (${signal ?? `code ${code ?? '?'}`})`)));
  }

  static async start(options: ServoTwinOptions): Promise<ServoTwinProcess> {
    const child = live(spawn(process.execPath, ['--single-threaded-gc', '--import', 'tsx', MAIN, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const lines = createInterface({ input: child.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code, signal) => reject(new Error(`the servo twin exited before it answered (${signal ?? `code ${code ?? '?'}`})`)));
    });
    const where = JSON.parse(first) as { port: string; imuPath: string };
    return new ServoTwinProcess(child, where.port, where.imuPath, options.joints ?? OPEN_DUCK_MINI_V2, lines);
  }

  /** Where the twin's trunk is now. */
  trunk(): Promise<TrunkPose> {
    return this.call('trunk');
  }

  /** Goal positions written so far: what reached the twin through real packets. */
  goalWrites(): Promise<number> {
    return this.call('goalWrites');
  }

  /** Every goal written to joint `index` (policy order), rad, oldest first. */
  goalsOf(index: number): Promise<number[]> {
    return this.call('goalsOf', index);
  }

  /** Servo `id`'s register table. */
  table(id: number): Promise<number[]> {
    return this.call('table', id);
  }

  /** Every instruction the servos received. */
  received(): Promise<ReceivedInstruction[]> {
    return this.call('received');
  }

  /** Those that would change a servo. */
  writes(): Promise<ReceivedInstruction[]> {
    return this.call('writes');
  }

  silence(id: number): Promise<void> {
    return this.call('silence', id);
  }

  /** Servo `id` answers again (after silence). */
  speak(id: number): Promise<void> {
    return this.call('speak', id);
  }

  raise(id: number, errorBits: number): Promise<void> {
    return this.call('raise', id, errorBits);
  }

  garble(id: number, count: number): Promise<void> {
    return this.call('garble', id, count);
  }

  /** The IMU's wire comes loose: every transfer of the simulated BNO055 fails. */
  unplugImu(): Promise<void> {
    return this.call('unplugImu');
  }

  /** The simulated BNO055 holds the bus's clock: its reads never come back, with no error. */
  hangImu(): Promise<void> {
    return this.call('hangImu');
  }

  /** The wire is slow for `windowMs`: what reaches the servos is taken `lagMs` late (ServoSim.lag). */
  lag(lagMs: number, windowMs: number): Promise<void> {
    return this.call('lag', lagMs, windowMs);
  }

  /** The answers to the next `count` sync reads reach the host `ms` after the first was asked (ServoSim.holdReplies). */
  holdReplies(ms: number, count: number): Promise<void> {
    return this.call('holdReplies', ms, count);
  }

  /** The bus adapter is pulled out: the pty's links go. */
  unplug(): Promise<void> {
    return this.call('unplug');
  }

  /** Until `count` goal positions have reached the twin. */
  async untilGoalWrites(count: number, timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while ((await this.goalWrites()) <= count) {
      if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${count} goal writes to reach the twin`);
      await sleep(20);
    }
  }

  async close(): Promise<void> {
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited(this.child);
    clearTimeout(timer);
  }

  private call<T>(method: string, ...args: number[]): Promise<T> {
    if (this.gone !== undefined) return Promise.reject(this.gone);
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.stdin?.write(`${JSON.stringify({ id, method, args })}\n`);
    });
  }

  private answer(line: string): void {
    let a: { id?: number; result?: unknown; error?: string };
    try {
      a = JSON.parse(line) as typeof a;
    } catch {
      return; // not an answer: something the twin printed
    }
    const p = a.id === undefined ? undefined : this.pending.get(a.id);
    if (p === undefined) return;
    this.pending.delete(a.id!);
    if (a.error !== undefined) p.reject(new Error(a.error));
    else p.resolve(a.result);
  }

  private fail(err: Error): void {
    this.gone = err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}
