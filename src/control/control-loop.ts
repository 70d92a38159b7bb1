/**
 * The control loop as the main thread holds it: a handle on the control worker, where the plant,
 * the skills and the 50 Hz loop live. A body starts one with its plant's spec, runs a verb as a
 * skill spec and awaits how it ended; stop() takes effect on the first tick that starts after it
 * (within one period) without waiting for anything; health arrives as `control:stats` events on
 * the runtime's bus, pushed by the worker.
 *
 *   const loop = await ControlLoop.start({ plant: { module, options }, robot: 'duck', events });
 *   const result = await loop.run({ module: walkSkillUrl, options: { vx: 0.3 } });   // done | stopped | failed — fell
 *   loop.stop();  await loop.close();
 */
import type { Worker } from 'node:worker_threads';
import { logger } from '../log.js';
import type { EventBus } from '../runtime/events.js';
import { siblingModule, spawnWorker } from '../worker-thread.js';
import { ControlError } from './errors.js';
import { DEFAULT_FALL, type FallSettings } from './fall.js';
import { specProblem, type Json, type ModuleSpec } from './module-spec.js';
import type { JointSpec } from './plant.js';
import { SHARED_SLOTS, STOP, TICKS, type FromWorker, type ToWorker, type WorkerInit } from './protocol.js';
import { LOOP_PRIORITY } from './realtime.js';
import type { VerbResult } from './skill.js';
import { TickRingReader } from './tick-ring.js';
import type { LoopMode } from './stats.js';

export interface ControlLoopOptions {
  readonly plant: ModuleSpec;
  /** default 20 (50 Hz) */
  readonly periodMs?: number;
  /** 'realtime' (default) paces on the wall clock; 'lockstep' runs a virtual clock as fast as the plant computes */
  readonly mode?: LoopMode;
  /** names this loop in its events (the robot's name) */
  readonly robot?: string;
  readonly events?: EventBus;
  readonly fall?: Partial<FallSettings>;
  /** how long a skill's promised targets may take before its verb fails; default 1000 ms */
  readonly skillTimeoutMs?: number;
  /** how often stats are published, on the loop's clock; default 1000 ms */
  readonly statsEveryMs?: number;
  /**
   * SCHED_FIFO priority (1–99) asked for the worker thread in real time, default 10 (below the
   * kernel's interrupt threads at 50); false stays at normal priority. Best effort: see stats.scheduling.
   */
  readonly realtimePriority?: number | false;
  /**
   * The skill modules this body's verbs use, imported and warmed (`warm(options)`) in the worker
   * before its first tick, so that no verb's first skill stalls the loop on a load.
   */
  readonly warm?: readonly ModuleSpec[];
  /**
   * The skill the loop runs between verbs, from its first tick (a body's stand policy); without
   * one it holds the last targets. ControlLoop.idle changes it.
   */
  readonly idle?: ModuleSpec;
}

const CLOSE_GRACE_MS = 3000;
/** How often the tick ring is read on the main thread: a tenth of its length at 50 Hz. */
const DRAIN_MS = 100;

interface Pending {
  resolve(result: VerbResult): void;
  reject(err: Error): void;
  /** stop(): ticks started when it was called */
  stopTick?: number;
}

export class ControlLoop {
  private readonly shared: BigInt64Array;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private nextSense = 1;
  private readonly senses = new Map<number, (world: Json) => void>();
  private nextWarm = 1;
  private readonly warming = new Map<number, () => void>();
  private readonly fallListeners = new Set<(fall: { readonly tiltRad: number; readonly tick: number }) => void>();
  private current: number | undefined;
  private dead: ControlError | undefined;
  private closing: Promise<void> | undefined;
  private readonly exited: Promise<void>;
  private readonly drainTimer: NodeJS.Timeout;
  /** The ring's drop count as last reported (or passed over): each batch says its own losses. */
  private droppedSeen = 0;

  private constructor(
    private readonly worker: Worker,
    buffer: SharedArrayBuffer,
    readonly joints: readonly JointSpec[],
    /** what the worker thread runs under: `SCHED_FIFO 10`, or `normal (why)` */
    readonly scheduling: string,
    private readonly robot: string,
    private readonly events: EventBus | undefined,
    private readonly ticks: TickRingReader,
  ) {
    this.shared = new BigInt64Array(buffer);
    this.drainTimer = setInterval(() => this.drainTicks(), DRAIN_MS).unref();
    worker.on('message', (message: FromWorker) => this.onMessage(message));
    worker.on('error', (err) => this.fail(new ControlError(`the control loop failed: ${err.message.split('\n')[0] ?? ''}`, 'crashed')));
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    void this.exited.then(() => {
      clearInterval(this.drainTimer);
      this.drainTicks();
      this.fail(new ControlError('the control loop stopped', this.closing !== undefined ? 'closed' : 'crashed'));
    });
  }

  /** The ticks the worker wrote since the last drain, as one `control:ticks` event. */
  private drainTicks(): void {
    // Nobody listening (no run recording, no Foxglove door): a held duck's main thread decodes nothing.
    const dropped = this.ticks.dropped;
    const lost = dropped - this.droppedSeen;
    this.droppedSeen = dropped;
    if (this.events?.listened('control:ticks') !== true) return this.ticks.skip();
    const ticks = this.ticks.drain();
    if (ticks.length > 0 || lost > 0) this.events?.emit('control:ticks', { robot: this.robot, joints: this.joints.map((j) => j.name), ticks, dropped, lost });
  }

  /** Starts the worker and makes the plant in it; resolves once the loop is about to tick (holding, never moving). */
  static async start(options: ControlLoopOptions): Promise<ControlLoop> {
    const init = settings(options);
    const worker = spawnWorker(siblingModule(import.meta.url, 'worker'), { workerData: init });
    const ready = await new Promise<{ joints: readonly JointSpec[]; scheduling: string; ticks: SharedArrayBuffer }>((resolve, reject) => {
      const early = (err: Error) => reject(new ControlError(`the control worker failed to start: ${err.message.split('\n')[0] ?? ''}`, 'plant'));
      const exit = () => reject(new ControlError('the control worker exited before its plant was ready', 'plant'));
      worker.once('error', early);
      worker.once('exit', exit);
      const first = (message: FromWorker) => {
        // A skill module that could not be warmed is said, and the loop starts all the same.
        if (message.type === 'warn') return void logger('control').warn({ robot: options.robot ?? 'control' }, message.message);
        worker.off('message', first).off('error', early).off('exit', exit);
        if (message.type === 'ready') resolve(message);
        else reject(new ControlError(`the plant could not be made: ${message.type === 'failed' ? message.message : message.type}`, 'plant'));
      };
      worker.on('message', first);
    }).catch(async (err: unknown) => {
      await worker.terminate();
      throw err;
    });
    const robot = options.robot ?? 'control';
    logger('control').info({ robot, scheduling: ready.scheduling }, 'control loop started');
    return new ControlLoop(worker, init.shared, ready.joints, ready.scheduling, robot, options.events, new TickRingReader(ready.ticks, ready.joints.length));
  }

  /**
   * Runs a verb's skill; resolves with how it ended. One verb at a time: stop() the running one
   * first. `halt` is the verb's own stop, which a body opens before anything of the verb happens
   * (torque on, a reading): aborted before this call, the verb ends `stopped` without a tick;
   * aborted later, as stop(). A bare stop() before this call was for the verb before.
   */
  run(skill: ModuleSpec, halt?: AbortSignal): Promise<VerbResult> {
    if (this.closing !== undefined) return Promise.reject(new ControlError('the control loop is closed', 'closed'));
    if (this.dead !== undefined) return Promise.reject(this.dead);
    const problem = specProblem(skill);
    if (problem !== undefined) return Promise.reject(new ControlError(`skill: ${problem}`, 'settings'));
    const running = this.current !== undefined ? this.pending.get(this.current) : undefined;
    if (running !== undefined && running.stopTick === undefined) return Promise.reject(new ControlError('a verb is already running (stop it first)', 'busy'));
    if (halt?.aborted === true) {
      const ticks = Number(Atomics.load(this.shared, TICKS));
      return Promise.resolve({ outcome: 'stopped', ticks: 0, endTick: ticks - 1, requestedTick: ticks });
    }
    const id = this.nextId++;
    // The stop counter now: a stop before this call was for the verb before, one after is for this one.
    const stopSeq = Atomics.load(this.shared, STOP);
    const result = new Promise<VerbResult>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.current = id;
    this.post({ type: 'run', id, skill, stopSeq });
    if (halt === undefined) return result;
    const stop = (): void => this.stop();
    halt.addEventListener('abort', stop, { once: true });
    return result.finally(() => halt.removeEventListener('abort', stop));
  }

  /** The skill to run between verbs from the next tick on (a stand policy); undefined holds the last targets. */
  idle(skill: ModuleSpec | undefined): void {
    if (this.dead !== undefined || this.closing !== undefined) return;
    const problem = skill !== undefined ? specProblem(skill) : undefined;
    if (problem !== undefined) throw new ControlError(`idle skill: ${problem}`, 'settings');
    this.post({ type: 'idle', skill: skill ?? null });
  }

  /**
   * Listens for falls between verbs (a verb's own fall is in its result): the duck went down
   * while the loop held it or ran its idle skill. Returns the function that removes the listener.
   */
  onFall(listener: (fall: { readonly tiltRad: number; readonly tick: number }) => void): () => void {
    this.fallListeners.add(listener);
    return () => this.fallListeners.delete(listener);
  }

  /**
   * Imports and warms skill modules (`warm(options)`, as ControlLoopOptions.warm does before the
   * first tick) while the loop runs: a held body's policy swapped between runs. The worker takes
   * each right after a tick, so what blocks its thread falls between ticks, and the loop never
   * waits for it. Resolves once they are warm (one that cannot warm is said, and its verb says
   * why later), or at once when the loop is closed or dead.
   */
  warm(skills: readonly ModuleSpec[]): Promise<void> {
    if (skills.length === 0 || this.dead !== undefined || this.closing !== undefined) return Promise.resolve();
    const problem = skills.map(specProblem).find((p) => p !== undefined);
    if (problem !== undefined) return Promise.reject(new ControlError(`warm: ${problem}`, 'settings'));
    const id = this.nextWarm++;
    return new Promise<void>((resolve) => {
      this.warming.set(id, resolve);
      this.post({ type: 'warm', id, skills });
    });
  }

  /** What the plant reports beyond the loop's sensors (Plant.sense), asked between two ticks; null when it reports nothing. */
  sense(): Promise<Json> {
    if (this.dead !== undefined) return Promise.reject(this.dead);
    const id = this.nextSense++;
    return new Promise<Json>((resolve) => {
      this.senses.set(id, resolve);
      this.post({ type: 'sense', id });
    });
  }

  /**
   * Stops the running verb: the first tick that starts after this call holds the targets, so it
   * takes effect within one period. Waits for nothing; idempotent; harmless with no verb.
   */
  stop(): void {
    if (this.dead !== undefined) return;
    Atomics.add(this.shared, STOP, 1n);
    // Read after the increment: every tick counted later sees the stop (endTick ≤ this).
    const ticks = Number(Atomics.load(this.shared, TICKS));
    const running = this.current !== undefined ? this.pending.get(this.current) : undefined;
    if (running !== undefined) running.stopTick ??= ticks;
    this.post({ type: 'stop' });
  }

  /** Ends a running verb (stopped), closes the plant in the worker and ends the worker. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.post({ type: 'close' });
      const grace = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), CLOSE_GRACE_MS).unref());
      if ((await Promise.race([this.exited, grace])) === 'late') {
        logger('control').warn({ robot: this.robot }, `the control worker did not close within ${CLOSE_GRACE_MS} ms; terminated`);
        await this.worker.terminate();
      }
      await this.exited;
    })();
    return this.closing;
  }

  private post(message: ToWorker): void {
    this.worker.postMessage(message);
  }

  private onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'verb': {
        const p = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (this.current === message.id) this.current = undefined;
        const r = message.result;
        p?.resolve(r.outcome === 'stopped' && p.stopTick !== undefined ? { ...r, requestedTick: p.stopTick } : r);
        return;
      }
      case 'stats':
        return this.events?.emit('control:stats', { robot: this.robot, stats: message.stats });
      case 'fell':
        if (!message.inVerb) for (const listener of [...this.fallListeners]) listener({ tiltRad: message.tiltRad, tick: message.tick });
        return this.events?.emit('control:fell', { robot: this.robot, tiltRad: message.tiltRad, tick: message.tick });
      case 'warn':
        return logger('control').warn({ robot: this.robot }, message.message);
      case 'sensed': {
        const resolve = this.senses.get(message.id);
        this.senses.delete(message.id);
        return resolve?.(message.world);
      }
      case 'warmed': {
        const resolve = this.warming.get(message.id);
        this.warming.delete(message.id);
        return resolve?.();
      }
      case 'closed':
        // Everything the worker had to say came before this; a timer a skill or plant left
        // behind must not keep the thread alive.
        void this.worker.terminate();
        return;
      default:
        return;
    }
  }

  private fail(err: ControlError): void {
    this.dead ??= err;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(err);
    }
    this.current = undefined;
    // A dead loop senses nothing: no caller waits for an answer that cannot come.
    for (const resolve of this.senses.values()) resolve(null);
    this.senses.clear();
    for (const resolve of this.warming.values()) resolve();
    this.warming.clear();
  }
}

function settings(options: ControlLoopOptions): WorkerInit {
  const periodMs = options.periodMs ?? 20;
  const fall = { ...DEFAULT_FALL, ...options.fall };
  const skillTimeoutMs = options.skillTimeoutMs ?? 1000;
  const statsEveryMs = options.statsEveryMs ?? 1000;
  const realtimePriority = options.realtimePriority ?? LOOP_PRIORITY;
  const bad = [
    !(periodMs >= 1 && periodMs <= 1000) && `periodMs ${periodMs} is not within 1–1000`,
    !(fall.tiltRad > 0 && fall.tiltRad <= Math.PI) && `fall.tiltRad ${fall.tiltRad} is not within (0, π]`,
    !(Number.isInteger(fall.ticks) && fall.ticks >= 1) && `fall.ticks ${fall.ticks} is not a whole number ≥ 1`,
    !(skillTimeoutMs > 0) && `skillTimeoutMs ${skillTimeoutMs} is not positive`,
    !(statsEveryMs > 0) && `statsEveryMs ${statsEveryMs} is not positive`,
    realtimePriority !== false && !(Number.isInteger(realtimePriority) && realtimePriority >= 1 && realtimePriority <= 99) && `realtimePriority ${realtimePriority} is not a whole number within 1–99`,
    specProblem(options.plant) !== undefined && `plant: ${specProblem(options.plant) ?? ''}`,
    options.idle !== undefined && specProblem(options.idle) !== undefined && `idle: ${specProblem(options.idle) ?? ''}`,
    ...(options.warm ?? []).map((spec) => specProblem(spec) !== undefined && `warm: ${specProblem(spec) ?? ''}`),
  ].filter((x): x is string => typeof x === 'string');
  if (bad.length > 0) throw new ControlError(`control loop settings: ${bad.join('; ')}`, 'settings');
  const shared = new SharedArrayBuffer(SHARED_SLOTS * BigInt64Array.BYTES_PER_ELEMENT);
  return { plant: options.plant, mode: options.mode ?? 'realtime', periodMs, fall, skillTimeoutMs, statsEveryMs, realtimePriority, warm: options.warm ?? [], ...(options.idle !== undefined ? { idle: options.idle } : {}), shared };
}
