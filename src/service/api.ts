/**
 * What the running service offers its front doors (the control socket the CLI talks to over SSH,
 * MQTT, later MCP): the fleet's status, runs on request, an emergency stop, gates a person answers,
 * health. A front door holds a ServiceApi and the event bus; it never opens a body, a store or a
 * transcript itself (the runtime does), and nothing it does may make the control loop or a run
 * wait on it.
 */
import type { BodyKey } from '../bodies/body.js';
import type { Entry } from '../memory/entry.js';
import type { WriteAction } from '../memory/rules.js';
import type { Provider } from '../pilot/providers/provider.js';
import type { RunReport } from '../run/start-run.js';
import type { EventBus } from '../runtime/events.js';
import type { Budgets } from '../ducks/duck.js';
import type { RunBy } from '../runtime/holder.js';
import type { RobotStatus } from '../runtime/robot-status.js';
import type { TranscriptEvent } from '../transcript/events.js';

// The status a dashboard shows lives below the event bus that carries it, so the bus (which bodies
// import) needs nothing from the service; the service's API speaks in it all the same.
export type { RobotActivity, RobotStatus } from '../runtime/robot-status.js';

/**
 * One line of `quackd health` (src/health): `loop  ok  50.0 of 50 Hz · 0 missed`. A line about one
 * robot (its loop, link, battery) names it: a robot's trouble is that robot's, at most a `warn`,
 * and never what decides whether the service itself is alive (sd_notify's watchdog).
 */
export interface HealthLine {
  readonly check: string;
  readonly status: 'ok' | 'warn' | 'fail';
  readonly detail: string;
  readonly robot?: string;
}

export interface RunOnRequest {
  /** A starter's name, a duck in the user's ducks folder, or a path the service can read. */
  readonly duck: string;
  readonly seed?: number;
  /** Gates: asked of whoever answers (`answerGate`, from MQTT or the CLI) until the timeout, then "not confirmed". */
  readonly gateTimeoutMs?: number;
  readonly dryRun?: boolean;
  /** The duck file's own text, read by the asker (the CLI over the socket): `duck` is then its path, for error lines. */
  readonly text?: string;
  /** An ad-hoc goal instead of a duck (`quackd run --goal`): `duck` is ignored. */
  readonly goal?: string;
  /** Overrides of the duck's budgets (`--steps`, `--llm-calls`, `--seconds`). */
  readonly budgets?: Partial<Budgets>;
  /**
   * Who opens a confirmation gate: `ask` (default) waits for answerGate() until the timeout;
   * `yes` opens every gate (`--yes`); `deny` shuts them (a CLI without a terminal to ask on).
   */
  readonly gates?: 'ask' | 'yes' | 'deny';
  /**
   * The pilot of this run when the asker flies it (an MCP client's robot_verb through the relay
   * pilot, src/pilot/providers/relay.ts); else the service's own.
   */
  readonly pilot?: Provider;
  /** Who asks (the robot's holder while the run goes on): the CLI's user, an MQTT client, an MCP session. */
  readonly by?: RunBy;
  /**
   * The service's stopMark() when the request arrived (the control socket takes it as it reads the
   * line, before asking the kernel who sent it): an emergency stop after that, before the run could
   * begin, stops it all the same. Default: when run() is called.
   */
  readonly stopMark?: number;
  /** One verb (`quackd do`): no episode in the robot's memory, as a local `do` writes none. */
  readonly noMemory?: boolean;
}

/** A robot whose body did not confirm an emergency stop (its link lost, its firmware silent), and why. */
export interface UnconfirmedStop {
  readonly robot: string;
  readonly why: string;
}

/** What a front door asks of a robot's memory (its body's: every run of that body reads it). */
export type MemoryAsk =
  /** The notes and episodes as a run's system prompt renders them. */
  | { readonly action: 'prompt' }
  /** `quackd memory search`: the entries that answer a question, best first. */
  | { readonly action: 'search'; readonly query: string; readonly limit?: number }
  /** One note, written as an assistant over MCP (source `mcp`), under every rule a note obeys. */
  | { readonly action: 'remember'; readonly text: string; readonly tags?: readonly string[]; readonly topic?: string }
  | { readonly action: 'forget'; readonly id: string }
  /** Every entry, newest first. */
  | { readonly action: 'entries' };

export type MemoryAnswer =
  | { readonly action: 'prompt'; readonly key: BodyKey; readonly prompt: string; readonly summary: string }
  | { readonly action: 'search'; readonly key: BodyKey; readonly hits: readonly { readonly entry: Entry; readonly score: number }[] }
  | { readonly action: 'remember'; readonly key: BodyKey; readonly outcome: WriteAction; readonly entry?: Entry; readonly replaced?: string; readonly evicted: readonly string[] }
  | { readonly action: 'forget'; readonly key: BodyKey; readonly forgotten?: Entry }
  | { readonly action: 'entries'; readonly key: BodyKey; readonly entries: readonly Entry[] };

export interface StartedRun {
  readonly runId: string;
  readonly transcriptPath: string;
  /** The robot's fleet name and body key, the duck's name and budgets, the pilot: a run's header line. */
  readonly robot: string;
  readonly key: BodyKey;
  readonly duck: { readonly name: string; readonly budgets: Budgets };
  readonly pilot: string;
  readonly dryRun: boolean;
  /** What the pilot was told from memory (`memory: 3 notes, …`), and why memory is off or changed, if it is. */
  readonly memory: { readonly summary?: string; readonly notice?: string };
  /** What the robot's policies warn of, under the header (bodies/policy-warnings.ts). */
  readonly warnings?: readonly string[];
  /** Settles with the run's report; never rejects (an error is an `error` outcome). */
  readonly done: Promise<RunReport>;
}

/** A torque switch's run (ServiceApi.torque): `torque` settles with what the body read back, undefined when the verb did not run. */
export interface TorqueRun extends StartedRun {
  readonly torque: Promise<boolean | undefined>;
}

export interface ServiceApi {
  readonly events: EventBus;
  /** Every member of the fleet, in the config's order. */
  robots(): readonly RobotStatus[];
  /** Throws UnknownRobot (src/runtime/fleet.ts) for a name that is neither a member nor a key. */
  status(robot: string): RobotStatus;
  /** Starts a run; resolves once its transcript exists. Throws RobotBusy, UnknownRobot, or an InputError for a bad duck. */
  run(robot: string, request: RunOnRequest): Promise<StartedRun>;
  /** How many emergency stops the service has heard: a run asked for at one mark is stopped by any stop after it (RunOnRequest.stopMark). */
  stopMark(): number;
  /** Emergency stop, in or outside a run: motion stops within one control period. All robots when none is named; `by` asked for it. */
  stop(robot?: string, why?: string, by?: RunBy): Promise<readonly UnconfirmedStop[]>;
  /** Answers the gate waiting on `robot` (`by` answered it); false when none is waiting (or it is about another verb). */
  answerGate(robot: string, answer: boolean, verb?: string, how?: 'tty' | 'person' | 'channel' | 'unasked', by?: RunBy): boolean;
  health(): Promise<readonly HealthLine[]>;
  /**
   * Torque on or off, as a one-step run of the `torque` verb through the executor: on waits for a
   * person's yes on a real body (`gates`, as a run's), off is never gated and ends a run under way
   * first, as a stop does. Resolves once its transcript exists. Absent where the service cannot switch it.
   */
  torque?(robot: string, on: boolean, gates?: RunOnRequest['gates'], by?: RunBy): Promise<TorqueRun>;
  /** The ducks a robot can run by name (starters that fit its body, and the user's own), for a dashboard's list. */
  ducks?(robot: string): readonly string[];
  /**
   * Every transcript event of the run under way on a robot (or with that run id), those so far
   * first, then each as it happens, until the run ends (`onEnd`). Undefined when no such run is
   * under way. Returns the function that stops following.
   */
  follow(robotOrRun: string | undefined, listener: { onEvent(event: TranscriptEvent): void; onEnd(report: RunReport): void }): { readonly run: StartedRun; readonly unfollow: () => void } | undefined;
}
