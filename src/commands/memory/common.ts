/**
 * What every `quackd memory` sub-command shares: the `--memory-dir` and `--robot` flags, opening
 * the store (read-only for commands that only look, so looking never changes the files) and
 * mapping store failures to exit 3 and refused input to exit 2, each in one line.
 */
import { existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { DEFAULT_BODY, listBodies } from '../../bodies/index.js';
import { loadConfigFile } from '../../config/file.js';
import { Fleet } from '../../runtime/fleet.js';
import { didYouMean } from '../../text/suggest.js';
import type { BodyKey } from '../../bodies/body.js';
import { InputError, RuntimeError } from '../../cli/errors.js';
import type { Invocation } from '../../cli/invocation.js';
import { printable, type Output } from '../../cli/output.js';
import { memoryDir } from '../../config/paths.js';
import { MemoryRefusal, isBodyKey, type Entry } from '../../memory/entry.js';
import type { EmbeddingSettings } from '../../memory/embedder.js';
import { pendingLegacyFiles } from '../../memory/legacy.js';
import { MemoryBusy, StoreError, openMemoryStore, storeExists, type MemoryStore } from '../../memory/store.js';

export const COMMON_FLAGS = {
  'memory-dir': { type: 'string' },
  robot: { type: 'string' },
} as const;

export const COMMON_HELP = [
  '  --robot NAME       the robot (a fleet name) or body (adapter:backend) whose memory to use',
  "                     (default: the fleet's robot when it has one alone, else microduck:sim2d)",
  '  --memory-dir DIR   the memory directory (default $QUACKD_MEMORY_DIR or ~/.quackd/memory)',
].join('\n');

export interface Target {
  readonly dir: string;
  readonly body: BodyKey;
  /** Every body key a memory may belong to here. */
  readonly known: readonly BodyKey[];
  /** The fleet robot chosen because --robot was left out and it is the fleet's one. */
  readonly unnamed?: string;
  /** What of this body's memory `quackd serve` shares with the fleet's other robots (memory.share), if any. */
  readonly shared?: 'notes' | 'notes and episodes';
}

/**
 * The body whose memory a command uses: --robot names a fleet robot (its body) or a body key;
 * unnamed, the fleet's one robot, else the simulator.
 * A key that is neither a body of this quackd nor a fleet robot's is refused with the closest one:
 * a typo must not quietly start a memory no run reads.
 */
export async function target(flags: { 'memory-dir'?: string | undefined; robot?: string | undefined }, env: NodeJS.ProcessEnv): Promise<Target> {
  const { config } = await loadConfigFile(env);
  const fleet = new Fleet(config.robots ?? {});
  const shared = sharing(fleet, config.memory?.share);
  // Unnamed: the fleet's one robot (a Pi with its duck configured), else the simulator.
  const robot = flags.robot ?? fleet.sole()?.name ?? DEFAULT_BODY;
  const member = fleet.get(robot);
  if (member !== undefined) return { dir: memoryDir(flags['memory-dir'], env), body: member.key, known: knownBodies(fleet), ...(flags.robot === undefined ? { unnamed: member.name } : {}), ...shared(member.key) };
  if (!isBodyKey(robot)) throw new InputError(`--robot: "${robot}" is neither a robot of the fleet nor an adapter:backend key`, 'e.g. --robot microduck:sim2d; see quackd bodies');
  const known = knownBodies(fleet);
  if (!known.includes(robot)) throw new InputError(`--robot: unknown body "${robot}"${didYouMean(robot, [...known, ...fleet.list().map((r) => r.name)])}`, "'quackd bodies' lists them");
  return { dir: memoryDir(flags['memory-dir'], env), body: robot, known, ...shared(robot) };
}

/** What the service shares of a body's memory: only its robots' bodies (serve.ts), only with memory.share on. */
function sharing(fleet: Fleet, share: boolean | 'episodes' | undefined): (key: BodyKey) => Pick<Target, 'shared'> {
  if (share === undefined || share === false) return () => ({});
  return (key) => (fleet.list().some((r) => r.key === key) ? { shared: share === true ? 'notes' : 'notes and episodes' } : {});
}

/** Body keys a memory may belong to: this quackd's bodies and the fleet's. */
function knownBodies(fleet: Fleet): BodyKey[] {
  return [...new Set([...listBodies().map((b) => b.key), ...fleet.list().map((r) => r.key)])];
}

function storeFailure(dir: string, err: unknown): RuntimeError {
  const msg = err instanceof Error ? err.message : String(err);
  // Busy is not damage: the store is fine and another process (a run, an import) is using it.
  if (err instanceof MemoryBusy) return new RuntimeError(`memory store in ${dir}: ${msg}; nothing was written`, 'try again when it is done');
  if (/read-only file system|not writable by this user/.test(msg)) return new RuntimeError(`memory store in ${dir}: ${msg}`, 'point --memory-dir or QUACKD_MEMORY_DIR at a writable directory');
  return new RuntimeError(`memory store in ${dir}: ${msg}`, 'quackd memory doctor checks it');
}

/** Opens the store for writing (creating it), importing any legacy files first; one command's writes run on this thread. */
export async function openForWrite(dir: string, io: Output, embeddings?: EmbeddingSettings): Promise<MemoryStore> {
  let store: MemoryStore | undefined;
  try {
    store = await openMemoryStore(dir, { writes: 'inline', ...(embeddings !== undefined ? { embeddings } : {}) });
    for (const w of await store.importLegacy()) io.err.write(`quackd: warning: ${w}\n`);
    return store;
  } catch (err) {
    await store?.close().catch(() => undefined);
    throw storeFailure(dir, err);
  }
}

/**
 * Opens the store without writing; undefined when there is none yet. A pending legacy file is the
 * one exception: the first open of any kind imports it, so it is shown where it will live.
 */
export async function openForRead(dir: string, io: Output, embeddings?: EmbeddingSettings): Promise<MemoryStore | undefined> {
  // "No memory yet" must mean that, not "the memory directory is something else".
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new RuntimeError(`memory store in ${dir}: not a directory`, 'check --memory-dir or QUACKD_MEMORY_DIR');
  if (pendingLegacyFiles(dir).length > 0) return openForWrite(dir, io, embeddings);
  if (!storeExists(dir)) return undefined;
  try {
    // With embeddings the vectors it makes are kept (written on this thread), so the next search sends only its question.
    return await openMemoryStore(dir, embeddings !== undefined ? { writes: 'inline', embeddings } : { readOnly: true });
  } catch (err) {
    throw storeFailure(dir, err);
  }
}

/** Runs a store call, turning refusals into exit 2 and store failures into exit 3. */
export async function guarded<T>(dir: string, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof MemoryRefusal) throw new InputError(err.message);
    if (err instanceof StoreError) throw storeFailure(dir, err);
    throw err;
  }
}

/** Local time for people: `2026-11-30 01:22`. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function writerForPeople(e: Entry): string {
  return { model: 'pilot', human: 'person', mcp: 'mcp', quackd: 'quackd' }[e.source];
}

/** One entry as a row of `memory show` and `memory search`. */
/** Where entryRow()'s text starts (after id, time and writer): a wrapped text continues there. */
export const ENTRY_TEXT_COLUMN = 2 + 8 + 2 + 16 + 2 + 6 + 2;

export function entryRow(e: Entry, io: Output): string {
  // Notes hold text a model wrote: printed only as printable(), so no note can drive the terminal.
  const extra = [
    // Written by another robot of the fleet (src/memory/share).
    ...(e.from !== undefined ? [`from ${printable(e.from)}`] : []),
    ...(e.topic !== undefined ? [`topic: ${printable(e.topic)}`] : []),
    ...e.tags.map((t) => `#${printable(t)}`),
    ...(e.history.length > 0 ? [`${e.history.length} older text${e.history.length === 1 ? '' : 's'}`] : []),
  ];
  return `  ${printable(e.id).padEnd(8)}  ${io.dim(localTime(e.time))}  ${writerForPeople(e).padEnd(6)}  ${printable(e.text)}${extra.length > 0 ? io.dim(`  (${extra.join(', ')})`) : ''}`;
}

/** Asks on the terminal; Ctrl-C at the question is a no (and says so), never a stack trace. */
export async function askYesNo(question: string, stdin: Invocation['stdin'], io: Output): Promise<boolean> {
  const rl = createInterface({ input: stdin, output: io.out });
  const interrupted = new Promise<string>((resolve) =>
    rl.once('SIGINT', () => {
      io.out.write('\n');
      resolve('');
    }),
  );
  try {
    return /^y(es)?$/i.test((await Promise.race([rl.question(question), interrupted])).trim());
  } catch {
    return false;
  } finally {
    rl.close();
  }
}

export function isInteractive(stdin: Invocation['stdin'], io: Output): boolean {
  return stdin.isTTY === true && io.interactive;
}
