/**
 * Commands that arrive over MQTT: a robot's `set` (`{"run": "find-and-kick"}`, `{"goal": "say hello to the cat"}`, `{"stop": true}`,
 * `{"confirm": "kick", "answer": true}`, `{"torque": false}`) and the bridge's requests
 * (`<base>/bridge/request/<cmd>`). Everything is checked before anything is called: a payload
 * that is not UTF-8 JSON, an unknown command, a wrong type or a duck given as a path is answered
 * with a one-line error and calls nothing. Answers take zigbee2mqtt's shape:
 * `{"data": {...}, "status": "ok"|"error", "error"?: "...", "transaction"?: ...}`.
 */
import { z } from 'zod';
import type { ServiceApi } from '../service/api.js';
import { printable } from '../text/printable.js';
import { jsonTooDeep, nestingMessage } from '../text/nesting.js';
import { InputError, QuackdError, RuntimeError } from '../errors.js';
import { RobotBusy } from '../runtime/body-pool.js';
import { UnknownRobot } from '../runtime/fleet.js';
import type { RunBy } from '../runtime/holder.js';
import { BRIDGE_COMMANDS, type BridgeCommand } from './topics.js';
import type { MqttRight } from './config.js';
import { switchTorque } from './torque.js';

/** Larger payloads are refused unread: no command needs more. */
export const MAX_PAYLOAD_BYTES = 4096;

/** A duck by name only (a starter or one in the ducks folder): MQTT never names a file to read. */
export const DUCK_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const duckName = z.string().regex(DUCK_NAME, 'a duck name (letters, digits, - and _), never a path');
/** An ad-hoc goal in words (`quackd run --goal`). */
const goal = z.string().trim().min(1, 'a goal in words').max(1000);
const verbName = z.string().regex(/^[a-z_][a-z0-9_]{0,31}$/, 'a verb name such as kick');
const robotName = z.string().min(1).max(64);
const seed = z.int().min(0).max(2 ** 31 - 1);
/** Echoed back as given, so a caller can match an answer to its request. */
const transaction = z.union([z.string().max(128), z.number().finite()]);

export type Command =
  | { readonly kind: 'run'; readonly duck: string; readonly seed?: number }
  | { readonly kind: 'goal'; readonly goal: string }
  | { readonly kind: 'stop' }
  | { readonly kind: 'confirm'; readonly verb?: string; readonly answer: boolean }
  | { readonly kind: 'torque'; readonly on: boolean }
  | { readonly kind: 'status' }
  | { readonly kind: 'health' }
  | { readonly kind: 'restart' };

export type Transaction = z.infer<typeof transaction>;

export interface Answer {
  readonly data: Readonly<Record<string, unknown>> | readonly unknown[];
  readonly status: 'ok' | 'error';
  readonly error?: string;
  readonly transaction?: Transaction;
}

export type Parsed<T> = { readonly ok: true; readonly value: T; readonly transaction?: Transaction } | { readonly ok: false; readonly error: string; readonly transaction?: Transaction };

const SET_SCHEMAS = {
  run: z.object({ run: duckName, seed: seed.optional() }).strict(),
  goal: z.object({ goal }).strict(),
  stop: z.object({ stop: z.literal(true, { error: 'expected true' }) }).strict(),
  confirm: z.object({ confirm: verbName, answer: z.boolean() }).strict(),
  torque: z.object({ torque: z.boolean() }).strict(),
};

const REQUEST_SCHEMAS = {
  run: z.object({ robot: robotName, duck: duckName, seed: seed.optional() }).strict(),
  stop: z.object({ robot: robotName.optional() }).strict(),
  confirm: z.object({ robot: robotName, verb: verbName.optional(), answer: z.boolean() }).strict(),
  torque: z.object({ robot: robotName, on: z.boolean() }).strict(),
  status: z.object({ robot: robotName.optional() }).strict(),
  health: z.object({}).strict(),
  restart: z.object({}).strict(),
};

/** A message's first line, printable. */
const one = (text: string) => quoted(text.split('\n')[0] ?? '');
/** A value the asker sent (a robot's topic level, a key), whole: a newline in it is shown, never a cut. */
const quoted = (text: string) => printable(text).slice(0, 200);

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  if (issue.code === 'unrecognized_keys') return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${quoted(k)}"`).join(', ')}`;
  const path = issue.path.map(String).join('.');
  return `${path !== '' ? `${quoted(path)}: ` : ''}${issue.message}`;
}

/** A JSON object from the wire, with its transaction taken off; or why not. */
function readObject(payload: Buffer, emptyIsObject: boolean): Parsed<Record<string, unknown>> {
  if (payload.length > MAX_PAYLOAD_BYTES) return { ok: false, error: `payload too large (${payload.length} bytes, at most ${MAX_PAYLOAD_BYTES})` };
  if (payload.length === 0 && emptyIsObject) return { ok: true, value: {} };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(payload);
  } catch {
    return { ok: false, error: 'payload is not UTF-8 text' };
  }
  if (jsonTooDeep(text) !== undefined) return { ok: false, error: `payload is ${nestingMessage()}` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'payload is not JSON (e.g. {"stop": true})' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'payload must be a JSON object (e.g. {"stop": true})' };
  const { transaction: given, ...rest } = value as Record<string, unknown>;
  if (given === undefined) return { ok: true, value: rest };
  const tx = transaction.safeParse(given);
  if (!tx.success) return { ok: false, error: 'transaction: a string (at most 128 characters) or a number' };
  return { ok: true, value: rest, transaction: tx.data };
}

/** A robot's `set` payload. */
export function parseSet(payload: Buffer): Parsed<Command> {
  const read = readObject(payload, false);
  if (!read.ok) return read;
  const tx = read.transaction !== undefined ? { transaction: read.transaction } : {};
  const names = Object.keys(SET_SCHEMAS).filter((k) => k in read.value) as (keyof typeof SET_SCHEMAS)[];
  const [name, ...others] = names;
  if (name === undefined) return { ok: false, error: `unknown command: expected one of ${Object.keys(SET_SCHEMAS).join(', ')}`, ...tx };
  if (others.length > 0) return { ok: false, error: `one command at a time (got ${names.join(', ')})`, ...tx };
  const parsed = SET_SCHEMAS[name].safeParse(read.value);
  if (!parsed.success) {
    // Named once: an issue with the command's own key already starts with it (`stop: expected true`).
    const own = parsed.error.issues[0]?.path[0] === name;
    return { ok: false, error: `${own ? '' : `${name}: `}${firstIssue(parsed.error)}`, ...tx };
  }
  const d = parsed.data as Record<string, unknown>;
  const command: Command =
    name === 'run'
      ? { kind: 'run', duck: d['run'] as string, ...(d['seed'] !== undefined ? { seed: d['seed'] as number } : {}) }
      : name === 'goal'
        ? { kind: 'goal', goal: d['goal'] as string }
        : name === 'stop'
          ? { kind: 'stop' }
          : name === 'confirm'
            ? { kind: 'confirm', verb: d['confirm'] as string, answer: d['answer'] as boolean }
            : { kind: 'torque', on: d['torque'] as boolean };
  return { ok: true, value: command, ...tx };
}

export interface BridgeRequest {
  readonly command: Command;
  /** The robot named, when the command takes one (stop and status without one mean all). */
  readonly robot?: string;
}

/** A bridge request: the command from the topic, its arguments from the payload (empty means none). */
export function parseRequest(command: string, payload: Buffer): Parsed<BridgeRequest> {
  const read = readObject(payload, true);
  if (!read.ok) return read;
  const tx = read.transaction !== undefined ? { transaction: read.transaction } : {};
  if (!(BRIDGE_COMMANDS as readonly string[]).includes(command)) return { ok: false, error: `unknown request "${quoted(command)}": expected one of ${BRIDGE_COMMANDS.join(', ')}`, ...tx };
  const name = command as BridgeCommand;
  const parsed = REQUEST_SCHEMAS[name].safeParse(read.value);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error), ...tx };
  const d = parsed.data as Record<string, unknown>;
  const robot = typeof d['robot'] === 'string' ? { robot: d['robot'] } : {};
  const value: Command =
    name === 'run'
      ? { kind: 'run', duck: d['duck'] as string, ...(d['seed'] !== undefined ? { seed: d['seed'] as number } : {}) }
      : name === 'confirm'
        ? { kind: 'confirm', answer: d['answer'] as boolean, ...(typeof d['verb'] === 'string' ? { verb: d['verb'] } : {}) }
        : name === 'torque'
          ? { kind: 'torque', on: d['on'] as boolean }
          : { kind: name };
  return { ok: true, value: { command: value, ...robot }, ...tx };
}

/** The right a command needs of an embedded broker's login (config.ts's mqtt.users); undefined: reading only. */
export function rightNeeded(command: Command): MqttRight | undefined {
  if (command.kind === 'confirm') return 'confirm';
  return command.kind === 'status' || command.kind === 'health' ? undefined : 'command';
}

/** Who sent a command over MQTT, what they may do, and whether their gate answer is a person's. */
export interface MqttAsker {
  readonly by: RunBy;
  /** The login's rights; `all` where the broker is not ours to know (an external one: its own ACL decides). */
  readonly may: readonly MqttRight[] | 'all';
  readonly confirmHow: 'person' | 'channel';
}

/** Undefined when `asker` may do `command`, else the refusal's words. */
export function rightRefusal(command: Command, asker: MqttAsker, user: string): string | undefined {
  const need = rightNeeded(command);
  if (need === undefined || asker.may === 'all' || asker.may.includes(need)) return undefined;
  return `mqtt user ${user} may not ${need === 'confirm' ? 'answer gates' : 'command robots'} (the config's mqtt.users.${user}.may has no ${need})`;
}

/** An error the caller can act on, as one line; anything else is a bug, said as such. */
export function errorLine(err: unknown): string {
  // A busy robot's answer says who holds it and how to free it.
  if (err instanceof RobotBusy) return one(`${err.message}; ${err.hint ?? ''}`);
  if (err instanceof QuackdError || err instanceof UnknownRobot) return one(err.message);
  return `internal error: ${one(err instanceof Error ? err.message : String(err))}`;
}

export function answer(data: Answer['data'], transaction?: Transaction): Answer {
  return { data, status: 'ok', ...(transaction !== undefined ? { transaction } : {}) };
}

export function refusal(error: string, transaction?: Transaction): Answer {
  return { data: {}, status: 'error', error, ...(transaction !== undefined ? { transaction } : {}) };
}

/**
/**
 * Carries out a checked command on `robot` (undefined: every robot, for stop and status), asked by
 * `asker` (the MQTT login and client, as far as the broker tells). The robot must be one `known` lists: MQTT
 * acts only on the fleet it publishes. `restart` is the service's own (src/service/restart.ts):
 * absent where the service cannot restart itself.
 */
export async function execute(api: ServiceApi, command: Command, robot: string | undefined, known: ReadonlySet<string>, asker: MqttAsker, restart?: () => Answer['data']): Promise<Answer['data']> {
  const by = asker.by;
  if (robot !== undefined && !known.has(robot)) throw new UnknownRobot(`unknown robot "${quoted(robot)}"; known: ${[...known].join(', ') || 'none'}`);
  const needRobot = (): string => {
    if (robot === undefined) throw new InputError('this command needs a robot');
    return robot;
  };
  switch (command.kind) {
    case 'run':
    case 'goal': {
      const request = command.kind === 'goal' ? { duck: 'goal', goal: command.goal } : { duck: command.duck, ...(command.seed !== undefined ? { seed: command.seed } : {}) };
      const started = await api.run(needRobot(), { ...request, by });
      // The run goes on; its progress is on <robot>/event and its end in <robot>/state.
      void started.done;
      return { runId: started.runId, transcript: started.transcriptPath };
    }
    case 'stop': {
      // A stop a body did not confirm is not answered ok: a dashboard shows the error, as the CLI exits 3.
      const unconfirmed = await api.stop(robot, undefined, by);
      if (unconfirmed.length > 0) throw new RuntimeError(unconfirmed.map((u) => `${u.robot}: its body did not confirm the stop: ${u.why}`).join('; '));
      return { stopped: robot ?? 'all' };
    }
    case 'confirm': {
      const r = needRobot();
      if (!api.answerGate(r, command.answer, command.verb, asker.confirmHow, by)) throw new InputError(`no confirmation is waiting on ${r}${command.verb !== undefined ? ` about ${command.verb}` : ''}`);
      return { answered: command.answer };
    }
    case 'torque':
      return switchTorque(api, needRobot(), command.on, by);
    case 'status':
      return robot !== undefined ? { ...api.status(robot) } : { robots: api.robots().filter((s) => known.has(s.robot)) };
    case 'health':
      return { checks: await api.health() };
    case 'restart':
      if (restart === undefined) throw new InputError('this service cannot restart itself');
      return restart();
  }
}
