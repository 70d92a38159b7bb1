/**
 * One control tick, whatever paces it (src/control/pacing.ts): read the plant, watch for a fall,
 * let the active skill ask for targets, pass them through the safety stage, advance the plant.
 * The clock is injected (virtual in lock-step) and nothing here does I/O: the hooks say what
 * happened and the worker posts it.
 *
 * Invariants kept here: nothing is sent before the first good reading, and that reading's pose
 * is what is held (starting moves no joint); a tick with no usable reading runs no skill and
 * holds; targets computed after the next slot was due are stale and not sent; a stop requested
 * through the shared stop counter ends the verb on the first tick that starts after it; after a
 * fall no skill runs until the duck is upright again. Between verbs the idle skill runs, when the
 * body gave one (its stand policy: a duck whose servos cannot hold a pose by themselves is never
 * left holding one), and holds otherwise; a verb takes over from it and it starts again after.
 */
import { FallDetector, tiltOf, type FallSettings } from './fall.js';
import type { Plant, SensorFrame } from './plant.js';
import { SafetyStage } from './safety.js';
import type { Skill, SkillOutput, VerbResult } from './skill.js';
import { StatsCounter, type LoopMode, type LoopState } from './stats.js';
import type { TickSample } from './tick-ring.js';

export interface CoreSettings {
  readonly mode: LoopMode;
  readonly periodMs: number;
  readonly fall: FallSettings;
  /** how long a skill's promised targets may take before the verb fails */
  readonly skillTimeoutMs: number;
}

export interface CoreHooks {
  verbEnded(id: number, result: VerbResult): void;
  /** `inVerb`: a verb was running, and its result says so; otherwise the duck fell between verbs. */
  fell(tiltRad: number, tick: number, inVerb: boolean): void;
  /** The idle skill failed (threw, timed out): the loop holds between verbs from then on. */
  idleFailed(message: string): void;
  plantError(call: 'read' | 'send' | 'advance', err: unknown): void;
  /** Every tick, at its end: what it read, what the skill asked and what was applied (a recording's samples; src/control/tick-ring.ts). */
  ticked?(sample: TickSample): void;
}

export interface TickTiming {
  /** this tick's index: how many ticks started before it */
  readonly index: number;
  /** its slot on the grid (slots skipped by a late loop have no tick): a skill's time */
  readonly slot: number;
  readonly lateMs: number;
  /** when the next slot is due, in real time; undefined in lock-step */
  readonly deadlineMs?: number;
}

interface Verb {
  readonly id: number;
  readonly skill: Skill;
  started: boolean;
  startSlot: number;
  ticks: number;
  waitedFallen: number;
  /** Slots skipped since it started, and the longest jump between two ticks, in slots. */
  missedSlots: number;
  longestGap: number;
}

/** The idle skill's runs are not verbs: nobody waits for how they end. */
const IDLE = -1;

const fresh = (id: number, skill: Skill): Verb => ({ id, skill, started: false, startSlot: 0, ticks: 0, waitedFallen: 0, missedSlots: 0, longestGap: 0 });

type Settled = { readonly value: SkillOutput } | { readonly error: unknown } | 'timeout' | 'interrupted';

const isPromise = <T>(x: T | Promise<T>): x is Promise<T> => x instanceof Promise;
const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

function usable(frame: SensorFrame | undefined, joints: number): frame is SensorFrame {
  if (frame === undefined || frame.jointPos.length !== joints) return false;
  for (const v of frame.jointPos) if (!Number.isFinite(v)) return false;
  const [x, y, z] = frame.gravity;
  return Math.hypot(x, y, z) > 0.5;
}

export class ControlCore {
  readonly stats: StatsCounter;
  private readonly safety: SafetyStage;
  private readonly fall: FallDetector;
  private verb: Verb | undefined;
  /** What runs between verbs (Verb.id IDLE), started afresh after each verb and each fall. */
  private idle: Verb | undefined;
  private stopSeen: bigint;
  private lastIndex = -1;
  /** the last tick's slot on the loop's schedule: how long a verb ran, missed ticks included */
  private lastSlot = 0;
  private wake: (() => void) | undefined;
  private closed = false;
  /** This tick's reading and the skill's ask, for the ticked hook. */
  private tickFrame: SensorFrame | undefined;
  private tickDesired: ArrayLike<number> | undefined;

  constructor(
    private readonly plant: Plant,
    private readonly settings: CoreSettings,
    private readonly hooks: CoreHooks,
    private readonly clock: () => number,
    /** the handle's stop counter (shared memory): a stop is any increase */
    private readonly stopSeq: () => bigint,
  ) {
    this.safety = new SafetyStage(plant, settings.periodMs / 1000);
    this.fall = new FallDetector(settings.fall);
    this.stats = new StatsCounter(settings.mode, settings.periodMs, clock());
    this.stopSeen = stopSeq();
  }

  get state(): LoopState {
    if (this.closed) return 'closed';
    if (!this.safety.established) return 'starting';
    if (this.fall.fallen) return 'fallen';
    return this.verb !== undefined ? 'running' : 'holding';
  }

  get active(): boolean {
    return this.verb !== undefined;
  }

  /**
   * How often the next ticks may come, ms, when the loop rests: holding a good reading's pose
   * (standing, or down after a fall), nothing to run (no verb, no idle skill), no tilt or
   * righting being counted, on a plant whose servos hold by themselves (Plant.restingPeriodMs);
   * undefined keeps the full rate. The rest ends at the next tick, or at once when a verb begins
   * (the driver's kick).
   */
  get restingMs(): number | undefined {
    const rest = this.plant.restingPeriodMs;
    if (rest === undefined || this.closed || this.verb !== undefined || this.idle !== undefined) return undefined;
    if (!this.safety.established || this.tickFrame === undefined || this.fall.counting) return undefined;
    return rest;
  }

  /** The skill to run between verbs from the next tick on; undefined holds. */
  setIdle(skill: Skill | undefined): void {
    this.idle = skill !== undefined ? fresh(IDLE, skill) : undefined;
  }

  /**
   * A verb's skill, made; `seqAtRun` is the stop counter when run() was called: a stop before it
   * ends the verb before (it was for that one), a stop after it ends this one.
   */
  begin(id: number, skill: Skill, seqAtRun: bigint): void {
    if (seqAtRun > this.stopSeen) this.consumeStop(this.lastIndex);
    if (this.verb !== undefined) this.endVerb(this.verb, { outcome: 'stopped', ticks: this.verb.ticks, endTick: this.lastIndex });
    const verb = fresh(id, skill);
    this.verb = verb;
    this.restartIdle();
    const now = this.stopSeq();
    if (this.closed || now > seqAtRun) {
      if (now > this.stopSeen) this.stopSeen = now;
      this.endVerb(verb, { outcome: 'stopped', ticks: 0, endTick: this.lastIndex });
    }
  }

  /** A stop message came: wakes a tick waiting on a skill's promise (the counter says the rest). */
  interrupt(): void {
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    if (this.verb !== undefined) this.endVerb(this.verb, { outcome: 'stopped', ticks: this.verb.ticks, endTick: this.lastIndex });
    this.wake?.();
  }

  tick(t: TickTiming): void | Promise<void> {
    const began = performance.now();
    this.lastIndex = t.index;
    const gap = t.slot - this.lastSlot;
    if (gap > 1 && this.verb?.started === true) {
      this.verb.missedSlots += gap - 1;
      this.verb.longestGap = Math.max(this.verb.longestGap, gap);
    }
    this.lastSlot = t.slot;
    this.consumeStop(t.index);
    const frame = this.read();
    this.tickFrame = frame;
    this.tickDesired = undefined;
    if (frame === undefined) {
      this.stats.count('readFailures');
      return this.finish(t, began, () => this.safety.hold());
    }
    const first = !this.safety.established;
    // Torque came on where the joints stand: that pose is held (and a verb moves from it), not the targets held before.
    if ((first || frame.torqueOnHere === true) && !this.establish(frame)) return this.finish(t, began, () => undefined);
    const change = this.fall.update(frame.gravity);
    if (change === 'fell') this.onFell(frame, t.index);
    if (this.fall.fallen) {
      this.waitWhileFallen(t.index);
      return this.finish(t, began, () => (first ? undefined : this.safety.hold()));
    }
    if (change === 'recovered') return this.finish(t, began, () => this.safety.establish(frame.jointPos));
    if (first) return this.finish(t, began, () => undefined);
    const verb = this.verb ?? this.idle;
    if (verb === undefined) return this.finish(t, began, () => this.safety.hold());
    return this.runSkill(verb, frame, t, began);
  }

  private runSkill(verb: Verb, frame: SensorFrame, t: TickTiming, began: number): void | Promise<void> {
    let out: SkillOutput | Promise<SkillOutput>;
    try {
      verb.ticks += 1;
      if (!verb.started) {
        verb.started = true;
        verb.startSlot = t.slot;
        const started = verb.skill.start?.(frame, this.safety.held() ?? frame.jointPos.slice());
        out = isPromise(started) ? started.then(() => verb.skill.tick(frame, 0)) : verb.skill.tick(frame, 0);
      } else {
        out = verb.skill.tick(frame, (t.slot - verb.startSlot) * this.settings.periodMs);
      }
    } catch (error) {
      return this.settle(verb, { error }, t, began);
    }
    if (!isPromise(out)) return this.settle(verb, { value: out }, t, began);
    return this.race(out).then((settled) => this.settle(verb, settled, t, began));
  }

  /** A skill's promise, or a stop, or the timeout: whichever comes first. */
  private race(p: Promise<SkillOutput>): Promise<Settled> {
    let timer: NodeJS.Timeout | undefined;
    return new Promise<Settled>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.settings.skillTimeoutMs);
      this.wake = () => resolve('interrupted');
      p.then(
        (value) => resolve({ value }),
        (error: unknown) => resolve({ error }),
      );
    }).finally(() => {
      clearTimeout(timer);
      this.wake = undefined;
    });
  }

  private settle(verb: Verb, settled: Settled, t: TickTiming, began: number): void {
    // A stop may have come while the skill computed; its targets are then not sent.
    this.consumeStop(t.index);
    if (verb.id === IDLE) return this.settleIdle(verb, settled, t, began);
    if (this.verb !== verb) return this.finish(t, began, () => this.safety.hold());
    const fail = (reason: 'skill' | 'timeout', text: string) => this.endVerb(verb, { outcome: 'failed', reason, message: text, ticks: verb.ticks, endTick: t.index });
    if (settled === 'interrupted') return this.finish(t, began, () => this.safety.hold());
    if (settled === 'timeout') fail('timeout', `skill gave no targets within ${this.settings.skillTimeoutMs} ms`);
    else if ('error' in settled) fail('skill', `skill: ${message(settled.error)}`);
    else if (settled.value === 'done') this.endVerb(verb, { outcome: 'done', ticks: verb.ticks, endTick: t.index });
    else {
      const desired = settled.value;
      return this.finish(t, began, () => this.submit(desired));
    }
    return this.finish(t, began, () => this.safety.hold());
  }

  /** The idle skill's tick: its targets while no verb runs; done starts it again, a failure drops it. */
  private settleIdle(idle: Verb, settled: Settled, t: TickTiming, began: number): void {
    if (this.idle !== idle || this.verb !== undefined || settled === 'interrupted') return this.finish(t, began, () => this.safety.hold());
    if (settled === 'timeout' || 'error' in settled) {
      this.idle = undefined;
      this.hooks.idleFailed(settled === 'timeout' ? `gave no targets within ${this.settings.skillTimeoutMs} ms` : message(settled.error));
    } else if (settled.value === 'done') this.restartIdle();
    else {
      const desired = settled.value;
      return this.finish(t, began, () => this.submit(desired));
    }
    return this.finish(t, began, () => this.safety.hold());
  }

  private restartIdle(): void {
    if (this.idle !== undefined && this.idle.started) this.idle = fresh(IDLE, this.idle.skill);
  }

  private submit(desired: ArrayLike<number>): void {
    this.tickDesired = desired;
    const verdict = this.safety.submit(desired);
    if (!verdict.sent) return this.stats.count('refusals');
    if (verdict.clamped > 0) this.stats.count('clamped');
    if (verdict.stepLimited > 0) this.stats.count('stepLimited');
  }

  /** Sends (unless the targets are stale), advances the plant, counts the tick. */
  private finish(t: TickTiming, began: number, send: () => void): void {
    const stale = t.deadlineMs !== undefined && this.clock() > t.deadlineMs;
    if (!stale) this.guard('send', send);
    this.guard('advance', () => this.plant.advance?.(this.settings.periodMs / 1000));
    if (t.deadlineMs !== undefined && this.clock() > t.deadlineMs) this.stats.count('overruns');
    // Work is wall time in both modes: in lock-step it is what a simulated period costs.
    const workMs = performance.now() - began;
    this.stats.tick(t.lateMs, workMs);
    this.hooks.ticked?.({ index: t.index, lateMs: t.lateMs, workMs, frame: this.tickFrame, desired: this.tickDesired, applied: this.safety.applied() });
  }

  private guard(call: 'read' | 'send' | 'advance', f: () => void): boolean {
    try {
      f();
      return true;
    } catch (err) {
      this.stats.count('plantErrors');
      this.hooks.plantError(call, err);
      return false;
    }
  }

  private read(): SensorFrame | undefined {
    let frame: SensorFrame | undefined;
    if (!this.guard('read', () => void (frame = this.plant.read()))) return undefined;
    return usable(frame, this.plant.joints.length) ? frame : undefined;
  }

  /** The first good reading: its pose is held. A send that throws leaves it for the next tick. */
  private establish(frame: SensorFrame): boolean {
    return this.guard('send', () => this.safety.establish(frame.jointPos));
  }

  private onFell(frame: SensorFrame, index: number): void {
    const verb = this.verb;
    if (verb !== undefined) this.endVerb(verb, { outcome: 'failed', reason: 'fell', message: 'fell', ticks: verb.ticks, endTick: index });
    this.restartIdle();
    if (this.settings.fall.then === 'limp') this.guard('send', () => void this.safety.limp());
    this.hooks.fell(tiltOf(frame.gravity), index, verb !== undefined);
  }

  /** A verb asked for while the duck is down waits a fall's worth of ticks for it to be righted. */
  private waitWhileFallen(index: number): void {
    const verb = this.verb;
    if (verb === undefined || (verb.waitedFallen += 1) < this.settings.fall.ticks) return;
    this.endVerb(verb, { outcome: 'failed', reason: 'fallen', message: 'fallen: the duck is down', ticks: 0, endTick: index });
  }

  private consumeStop(index: number): void {
    const seq = this.stopSeq();
    if (seq <= this.stopSeen) return;
    this.stopSeen = seq;
    const verb = this.verb;
    if (verb !== undefined) this.endVerb(verb, { outcome: 'stopped', ticks: verb.ticks, endTick: index });
  }

  private endVerb(verb: Verb, result: VerbResult): void {
    if (this.verb === verb) this.verb = undefined;
    try {
      verb.skill.end?.();
    } catch {
      // The verb is over either way; a skill that cannot tidy up must not take the loop with it.
    }
    if (!verb.started) return this.hooks.verbEnded(verb.id, result);
    const period = this.settings.periodMs;
    const missed = verb.missedSlots > 0 ? { missed: { slots: verb.missedSlots, longestGapMs: verb.longestGap * period } } : {};
    this.hooks.verbEnded(verb.id, { ...result, ranMs: (this.lastSlot - verb.startSlot) * period, ...missed });
  }
}
