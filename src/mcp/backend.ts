/**
 * What the MCP tools ask of quackd, whichever process holds the robots: serve-mcp's own service
 * on this process's runtime (local-backend.ts), or a running `quackd serve` through its control
 * socket (service-backend.ts), so one process holds the hardware. Either way the same Service
 * answers (src/service/service.ts): the tools never open a body, a store or a transcript.
 */
import type { Observation } from '../bodies/body.js';
import type { RobotCan } from '../bodies/index.js';
import type { RelayStep } from '../pilot/providers/relay.js';
import type { RunReport } from '../run/start-run.js';
import type { RunBy } from '../runtime/holder.js';
import type { MemoryAnswer, MemoryAsk, RobotStatus, StartedRun } from '../service/api.js';
import type { TranscriptEvent } from '../transcript/events.js';
import type { GateAnswer } from './ask-person.js';
import type { TranscriptExcerpt } from '../transcript/excerpt.js';
import type { TranscriptSummary } from '../transcript/reader.js';

export interface RunAsk {
  readonly robot: string;
  /** A duck by name (a starter or one in the ducks folder), or, with `text`, the path it was read from. */
  readonly duck: string;
  readonly text?: string;
  /** The asker pilots the run (robot_verb): its calls go through RunHandle.submit; `client` names it in the transcript. */
  readonly drive?: { readonly client: string };
  /** `ask`: each confirmation gate goes to onGate; `deny`: every gate stays shut (nobody can be asked). */
  readonly gates: 'ask' | 'deny';
  /** Who asks: this MCP session (the robot's holder while the run goes on, and who answers its gates). */
  readonly by: RunBy;
  /** Every transcript event of the run, in order. */
  readonly onEvent?: (event: TranscriptEvent) => void;
  /** A gate waits for a person; `answer` settles it (after the service's gate timeout it is "not confirmed" anyway). */
  readonly onGate?: (question: string, verb: string, answer: GateAnswer) => void;
}

export interface RunHandle {
  readonly run: Omit<StartedRun, 'done'>;
  /** Settles with the run's report; never rejects. */
  readonly done: Promise<RunReport>;
  /** A driven run's next call: what became of it, or undefined when the run ended instead. */
  submit(name: string, args: unknown): Promise<RelayStep | undefined>;
  /** Stops the run as Ctrl-C would (`stopped by <why>`). */
  stop(why: string): void;
}

export interface Observed {
  readonly robot: string;
  readonly key: string;
  /** The body is opened per run (a simulator): this is the world the next run starts in. */
  readonly perRun: boolean;
  readonly observation: Observation;
}

export interface Backend {
  /** Where the robots are held, for the log: `this process`, or `quackd serve at <socket>`. */
  readonly where: string;
  /** The fleet (the config file's robots), or the default body when it names none. */
  robots(): Promise<readonly RobotStatus[]>;
  /** One robot by fleet name or body key; UnknownRobot when it is neither. */
  status(robot: string): Promise<RobotStatus>;
  observe(robot: string, by: RunBy): Promise<Observed>;
  memory(robot: string, ask: MemoryAsk): Promise<MemoryAnswer>;
  /** What a robot performs and measures as its settings make it (a camera adds search_scan): its session duck is checked against this. */
  can(robot: string): Promise<RobotCan>;
  start(ask: RunAsk): Promise<RunHandle>;
  transcripts(limit: number): Promise<readonly TranscriptSummary[]>;
  /** One run's transcript, its beginning and end when it is long. */
  transcript(id: string): Promise<{ readonly id: string } & TranscriptExcerpt>;
  /** Stops what this backend started (its runs end, their bodies stop) and lets go of the robots. */
  close(why: string): Promise<void>;
}
