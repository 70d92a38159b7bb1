/**
 * A flock member as the coordinator sees it: something that runs a duck when told, stops when
 * told, and reports what its run does. Two kinds behind one interface: a robot of this process's
 * runtime (here), and a robot of another Pi's `quackd serve` over MQTT (remote-member.ts). Either
 * way the run is an ordinary one, with its own pilot, budgets, gates, transcript and episode;
 * its gates are asked of the coordinator (`ask`).
 */
import type { Duck } from '../ducks/duck.js';
import type { Provider } from '../pilot/providers/provider.js';
import type { Gate, GateDecision } from '../safety/gate.js';
import { readStepLine } from '../safety/gate-question.js';
import { robotLabel, type Robot } from '../runtime/fleet.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Outcome } from '../transcript/events.js';

export interface MemberStep {
  readonly step?: number;
  readonly label: string;
  readonly ok: boolean;
  readonly summary: string;
  /** The body's measurements with the result; a remote member's events carry none. */
  readonly data?: Readonly<Record<string, unknown>>;
}

export interface MemberListener {
  started(run: { readonly runId: string; readonly duck: string }): void;
  step(step: MemberStep): void;
  /** A gate of the member's run: the coordinator (and, for the duck's own `confirm`, a person) answers. */
  ask(verb: string, question: string, signal?: AbortSignal): Promise<GateDecision>;
  /** The run ended, however: its outcome as the run says it (a run that never started is an `error`). */
  ended(outcome: Outcome, runId?: string): void;
  /** Out of reach (offline, no broker, no answer): its run, if any, is no longer the flock's to see. */
  lost(why: string): void;
}

/** What a member is told to run: its part of the flock (with its seed), or the quack after a stop. */
export interface MemberJob {
  readonly duck: Duck;
  readonly seed?: number;
}

export interface Member {
  /** As the flock names it (`kitchen-duck`, `microduck:sim2d#2`, `remote:quackd-hall/hall-duck`). */
  readonly name: string;
  /** Where it runs, for people: a body key, or `quackd-hall/hall-duck on mqtt://broker.lan:1883`. */
  where(): string;
  /** A simulator whose world a seed picks: the flock gives each member its own. */
  seeded(): boolean;
  /** Gets ready to run; resolves with why it cannot (undefined: ready). Never rejects. */
  open(listener: MemberListener): Promise<string | undefined>;
  start(job: MemberJob): void;
  stop(why: string): void;
  close(): Promise<void>;
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

export interface LocalMemberDeps {
  readonly runtime: Runtime;
  readonly robot: Robot;
  /** Each run its own pilot: a scripted one keeps state, and two members must not share it. */
  readonly pilot: () => Promise<Provider>;
  readonly dryRun: boolean;
}

/** A robot of this process's runtime: each job is `runtime.run`, stopped through its signal. */
export class LocalMember implements Member {
  private listener: MemberListener | undefined;
  private abort: AbortController | undefined;

  constructor(
    readonly name: string,
    private readonly deps: LocalMemberDeps,
  ) {}

  where(): string {
    // A member written as a key that means a robot of the fleet says which one (`on duck (microduck:mujoco)`).
    const { name, key } = this.deps.robot;
    return name === this.name ? key : robotLabel(name, key);
  }

  seeded(): boolean {
    return this.deps.robot.entry.seeded === true;
  }

  open(listener: MemberListener): Promise<string | undefined> {
    this.listener = listener;
    return Promise.resolve(undefined);
  }

  start(job: MemberJob): void {
    const listener = this.listener;
    if (listener === undefined) throw new Error(`${this.name}: start before open`);
    // Made before anything awaits: a stop that comes while the pilot is being made still lands.
    const abort = new AbortController();
    this.abort = abort;
    const gate: Gate = { confirm: (question, signal) => listener.ask(readStepLine(question).verb, question, signal) };
    void (async () => {
      try {
        const provider = await this.deps.pilot();
        const report = await this.deps.runtime.run({
          duck: job.duck,
          robot: this.deps.robot,
          seed: job.seed ?? 7,
          provider,
          gate,
          dryRun: this.deps.dryRun,
          signal: abort.signal,
          onStart: ({ runId }) => listener.started({ runId, duck: job.duck.name }),
          onEvent: (e) => {
            if (e.type === 'verb_result') listener.step({ ...(e.step !== undefined ? { step: e.step } : {}), label: e.label, ok: e.ok, summary: e.summary, ...(e.data !== undefined ? { data: e.data } : {}) });
          },
        });
        listener.ended(report.outcome, report.runId);
      } catch (err) {
        // Refused before it ran (the robot busy, a pilot that cannot be made): the run's outcome says why.
        listener.ended({ status: 'error', reason: errorText(err) });
      }
    })();
  }

  stop(why: string): void {
    this.abort?.abort(new Error(`stopped by the flock (${why})`));
  }

  close(): Promise<void> {
    this.stop('the end of the flock');
    return Promise.resolve();
  }
}
