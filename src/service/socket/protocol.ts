/**
 * The control socket's protocol: newline-delimited JSON, one request a connection. A request is
 * checked by its zod schema before the service hears of it; anything else is answered with an
 * error line. `run`, `torque` and `follow` stream (a follower may wait for the next run): a run's connection then carries the person's answers to
 * gates and Ctrl-C (`answer`, `abort`) the other way, and, for a run the asker pilots (`drive`:
 * serve-mcp's robot_verb), its calls (`call`), each answered by a `step`.
 */
import { z } from 'zod';
import type { Observation } from '../../bodies/body.js';
import { MAX_TAGS, TAG_MAX_CHARS, TOPIC_MAX_CHARS } from '../../memory/entry.js';
import type { RelayStep } from '../../pilot/providers/relay.js';
import type { TranscriptExcerpt } from '../../transcript/excerpt.js';
import type { TranscriptSummary } from '../../transcript/reader.js';
import type { RobotCan } from '../../bodies/index.js';
import type { HealthLine, MemoryAnswer, MemoryAsk, RobotStatus, StartedRun, UnconfirmedStop } from '../api.js';
import type { DoorLine } from '../front-door.js';
import type { RunReport } from '../../run/start-run.js';
import type { TranscriptEvent } from '../../transcript/events.js';
import type { ErrorKind } from '../../errors.js';

import { MAX_LINE } from './lines.js';

export { MAX_LINE, lineReader } from './lines.js';

const name = z.string().min(1).max(200);

/**
 * Who asks (src/runtime/holder.ts): the CLI says its user, serve-mcp its MCP session. The socket
 * is its owner's (or its group's), whose members are trusted to say who they are; the service
 * shows it as printable text only.
 */
export const RunBySchema = z.object({ door: z.enum(['cli', 'mqtt', 'mcp']), who: z.string().min(1).max(200) }).strict();

export const RunRequestSchema = z
  .object({
    op: z.literal('run'),
    robot: name,
    duck: z.string().min(1).max(4096),
    text: z.string().max(MAX_LINE).optional(),
    goal: z.string().trim().min(1).max(10_000).optional(),
    seed: z.int().min(0).max(2 ** 32 - 1).optional(),
    dryRun: z.boolean().optional(),
    // The ranges a .duck file may give.
    budgets: z.object({ steps: z.int().min(1).max(1000).optional(), llm_calls: z.int().min(1).max(5000).optional(), seconds: z.number().min(1).max(86_400).optional() }).strict().optional(),
    gates: z.enum(['ask', 'yes', 'deny']).optional(),
    // The asker is the pilot (an MCP client, named here for the transcript): its calls come as `call` lines.
    drive: z.object({ client: z.string().min(1).max(200) }).strict().optional(),
    // The duck's numbered lines are verb calls, played as written by the script pilot (`quackd do`).
    script: z.literal(true).optional(),
    by: RunBySchema.optional(),
  })
  .strict();

/** Torque on or off (ServiceApi.torque): a run of its own, streamed as `run`'s is, its gate asked of the terminal that sent it. */
export const TorqueRequestSchema = z.object({ op: z.literal('torque'), robot: name, on: z.boolean(), gates: z.enum(['ask', 'yes', 'deny']).optional() }).strict();

/** The memory a front door tends (MemoryAsk); a note's own limits are the store's to enforce, in one line. */
export const MemoryAskSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('prompt') }).strict(),
  z.object({ action: z.literal('search'), query: z.string().min(1).max(4096), limit: z.int().min(1).max(100).optional() }).strict(),
  z.object({ action: z.literal('remember'), text: z.string().max(10_000), tags: z.array(z.string().max(TAG_MAX_CHARS)).max(MAX_TAGS).readonly().optional(), topic: z.string().max(TOPIC_MAX_CHARS).optional() }).strict(),
  z.object({ action: z.literal('forget'), id: z.string().min(1).max(40) }).strict(),
  z.object({ action: z.literal('entries') }).strict(),
]) satisfies z.ZodType<MemoryAsk>;

export const RequestSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('status') }).strict(),
  z.object({ op: z.literal('health') }).strict(),
  z.object({ op: z.literal('stop'), robot: name.optional(), by: RunBySchema.optional() }).strict(),
  // A gate waiting on a robot's run, answered by a person from another terminal (a run MQTT started).
  z.object({ op: z.literal('confirm'), robot: name, answer: z.boolean(), verb: z.string().min(1).max(64).optional(), by: RunBySchema.optional() }).strict(),
  RunRequestSchema,
  TorqueRequestSchema,
  // `wait`: with nothing under way on the robot (on any, without a target), follow its next run.
  z.object({ op: z.literal('follow'), target: name.optional(), wait: z.boolean().optional() }).strict(),
  // Between runs: what the robot's sensors say (nothing moves).
  z.object({ op: z.literal('observe'), robot: name, by: RunBySchema.optional() }).strict(),
  z.object({ op: z.literal('memory'), robot: name, ask: MemoryAskSchema }).strict(),
  // What a robot performs and measures as its settings make it (serve-mcp checks its session duck against it).
  z.object({ op: z.literal('can'), robot: name }).strict(),
  z.object({ op: z.literal('transcripts'), limit: z.int().min(1).max(100) }).strict(),
  z.object({ op: z.literal('transcript'), id: name }).strict(),
]);

/** What the terminal that started a run sends on its connection while the run goes on. */
export const RunInputSchema = z.discriminatedUnion('op', [
  // `how` the asker put the question: at its terminal (the CLI, the default), to a person through an
  // MCP client's dialog, or not at all (`unasked`: the dialog failed; so is `unasked: true`, as sent before).
  z.object({ op: z.literal('answer'), answer: z.boolean(), how: z.enum(['tty', 'person', 'unasked']).optional(), unasked: z.literal(true).optional() }).strict(),
  // `why`: `Ctrl-C`, `SIGTERM`, `SIGHUP`: the outcome reads `stopped by Ctrl-C` as a local run's does.
  z.object({ op: z.literal('abort'), why: z.string().min(1).max(40) }).strict(),
  // A `drive` run's next call; its arguments are the verb's schema's to check, in the executor.
  z.object({ op: z.literal('call'), name: z.string().min(1).max(64), args: z.unknown() }).strict(),
]);

export type Request = z.infer<typeof RequestSchema>;
export type RunRequest = z.infer<typeof RunRequestSchema>;
export type TorqueRequest = z.infer<typeof TorqueRequestSchema>;
export type RunInput = z.infer<typeof RunInputSchema>;

export interface ServiceInfo {
  readonly pid: number;
  readonly version: string;
  readonly build: string;
  readonly config: string;
  readonly startedAt: string;
  readonly uptimeS: number;
  readonly socket: string;
}

export interface StatusReply {
  readonly service: ServiceInfo;
  readonly robots: readonly (RobotStatus & { readonly memory?: { readonly notes: number; readonly episodes: number } })[];
  readonly doors: readonly DoorLine[];
}

export type Reply =
  | { readonly type: 'error'; readonly kind: ErrorKind; readonly message: string; readonly hint?: string }
  | { readonly type: 'status'; readonly status: StatusReply }
  | { readonly type: 'health'; readonly lines: readonly HealthLine[] }
  | { readonly type: 'stopped'; readonly robots: readonly string[]; /** bodies that did not confirm the stop, and why */ readonly unconfirmed?: readonly UnconfirmedStop[] }
  /** `answered`: false when no gate was waiting on the robot (or it asks about another verb). */
  | { readonly type: 'confirmed'; readonly robot: string; readonly answered: boolean }
  | { readonly type: 'started'; readonly run: Omit<StartedRun, 'done'> }
  /** A follower waits for the next run on `robot` (on any robot when absent). */
  | { readonly type: 'waiting'; readonly robot?: string }
  | { readonly type: 'event'; readonly event: TranscriptEvent }
  /** A gate of this run waits for a person: the terminal asks, and answers with `answer`. */
  | { readonly type: 'gate'; readonly question: string; readonly verb: string }
  /** What became of a `drive` run's call (its run's `end` comes instead when the call ended it). */
  | { readonly type: 'step'; readonly step: RelayStep }
  /** The run ended: to the terminal that started it, and to those following it. */
  | { readonly type: 'end'; readonly report: RunReport }
  | { readonly type: 'observation'; readonly robot: string; readonly key: string; readonly perRun: boolean; readonly observation: Observation }
  | { readonly type: 'memory'; readonly answer: MemoryAnswer }
  | { readonly type: 'can'; readonly robot: string; readonly can: RobotCan }
  | { readonly type: 'transcripts'; readonly runs: readonly TranscriptSummary[] }
  | ({ readonly type: 'transcript'; readonly id: string } & TranscriptExcerpt);

