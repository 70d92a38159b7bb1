/**
 * The composition root every front door shares (the CLI's `quackd run` today; `quackd serve` and
 * the MCP server next): the fleet, the body pool, the memory store, where transcripts go, the verb
 * registry and the event bus, with start() and stop(). A front door asks the runtime for a run;
 * it never opens a body, a store or a transcript of its own.
 *
 * Invariants: one run at a time per robot (RobotBusy), runs on different robots side by side;
 * bodies are opened once and leased (src/runtime/body-pool.ts); the memory store is opened once
 * per runtime and shared by its runs, each body's memory apart; a store that cannot be opened
 * turns memory off with a notice, never the runtime.
 */
import { logger } from '../log.js';
import { runMemoryFor } from '../run/open-run-memory.js';
import { openMemoryStore, type MemoryStore } from '../memory/store.js';
import type { EmbeddingSettings } from '../memory/embedder.js';
import type { RunMemory } from '../pilot/run-memory.js';
import { startRun, type RunReport, type RunRequest } from '../run/start-run.js';
import type { TranscriptEvent } from '../transcript/events.js';
import { pruneTranscripts, type RetentionPolicy } from '../transcript/retention.js';
import { keptLine, pruneRecordings, type RecordingPolicy } from '../recording/retention.js';
import { defaultVerbs, type VerbRegistry } from '../verbs/registry.js';
import { BodyPool } from './body-pool.js';
import { EventBus } from './events.js';
import { Fleet, type Robot, type RobotsSection } from './fleet.js';
import { byText, cliUser, type Holder, type RunBy } from './holder.js';
import { keepJournal, torqueLine } from './journal.js';
import { SLOTS, robotSlots } from '../policy/slots.js';

/** Each slot's folder for a robot: bundled, its config's `policies:`, or what `quackd policy load` recorded. */
function policyDirs(robot: Robot, dataDir: string): Record<string, string> {
  const slots = robotSlots(robot, dataDir);
  return Object.fromEntries(SLOTS.map((s) => [s, slots[s].dir]));
}

export interface RuntimeConfig {
  readonly robots?: RobotsSection;
  /** The memory directory, or undefined for no memory at all (`--no-memory`). */
  readonly memoryDir?: string;
  /** Where the store's writes run (src/memory/store.ts): the writer worker unless a one-shot front door says 'inline'. */
  readonly memoryWrites?: 'worker' | 'inline';
  /** Recall by meaning too (the config's `memory.embeddings`, src/memory/embedding-settings.ts). */
  readonly memoryEmbeddings?: EmbeddingSettings;
  readonly transcriptsDir: string;
  /** When set, the transcripts this policy lets go are deleted after each run (src/transcript/retention.ts). */
  readonly retention?: RetentionPolicy;
  /** Where each run's recording goes (src/recording); none without it. */
  readonly recordingsDir?: string;
  /** With recordingsDir: the recordings this policy lets go are deleted after each run. */
  readonly recordingRetention?: RecordingPolicy;
  /** The data directory: where `quackd policy load` records a robot's policy slots. */
  readonly dataDir?: string;
  readonly now?: () => Date;
}

/** A run as a front door asks for it: which robot, and everything about the run but the body. */
export interface RuntimeRunRequest extends Omit<RunRequest, 'robot' | 'lease' | 'memory' | 'transcriptsDir' | 'recordingsDir' | 'events' | 'bodySettings' | 'by'> {
  /** This run is not recorded (`--no-record`), whatever the runtime does for others. */
  readonly noRecord?: boolean;
  readonly robot: Robot;
  /** Who asked for it (the robot's holder while it runs); default: this process's user, as a local `quackd run` is. */
  readonly by?: RunBy;
  /** Called with the run's memory line (or why memory is off) before the run starts. */
  readonly onMemory?: (info: { memory?: RunMemory; notice?: string }) => void;
  /** A run that is no episode to recall (a torque switch): the body's memory is neither read nor written. */
  readonly noMemory?: boolean;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

export class Runtime {
  readonly fleet: Fleet;
  readonly events = new EventBus();
  readonly bodies: BodyPool;
  readonly verbs: VerbRegistry = defaultVerbs;
  private store: Promise<{ store?: MemoryStore; notice?: string }> | undefined;
  private stopping = false;
  private readonly unjournal: () => void;

  constructor(readonly config: RuntimeConfig) {
    this.fleet = new Fleet(config.robots ?? {});
    this.unjournal = keepJournal(this.events);
    const dataDir = config.dataDir;
    this.bodies = new BodyPool(this.events, (robot) => (dataDir === undefined ? undefined : policyDirs(robot, dataDir)));
  }

  get transcriptsDir(): string {
    return this.config.transcriptsDir;
  }

  /** Nothing moves at start: bodies open with their first run, the store with the first that needs it. */
  start(): Promise<void> {
    return Promise.resolve();
  }

  /** The memory store, opened once (legacy files imported then), or why there is none. */
  memory(): Promise<{ store?: MemoryStore; notice?: string }> {
    const dir = this.config.memoryDir;
    if (dir === undefined) return Promise.resolve({});
    this.store ??= (async () => {
      let store: MemoryStore | undefined;
      try {
        store = await openMemoryStore(dir, { ...(this.config.now !== undefined ? { now: this.config.now } : {}), ...(this.config.memoryWrites !== undefined ? { writes: this.config.memoryWrites } : {}), ...(this.config.memoryEmbeddings !== undefined ? { embeddings: this.config.memoryEmbeddings } : {}) });
        const warnings = await store.importLegacy();
        return { store, ...(warnings.length > 0 ? { notice: `memory: imported legacy notes; ${warnings.join('; ')}` } : {}) };
      } catch (err) {
        await store?.close().catch(() => undefined);
        logger('memory').info({ dir, err: errorText(err) }, 'memory store unavailable');
        // Asked again by the next run: a busy or full store may have recovered.
        this.store = undefined;
        return { notice: `memory: off for this run — the store in ${dir} cannot be opened (${errorText(err)})` };
      }
    })();
    return this.store;
  }

  /** One run of a duck on `req.robot`; RobotBusy when that robot is already running one. */
  async run(req: RuntimeRunRequest): Promise<RunReport> {
    if (this.stopping) throw new Error('the runtime is stopping');
    const { robot, onMemory, noMemory, noRecord, by: asker, ...rest } = req;
    const holder: Holder = { by: asker ?? cliUser(), since: new Date(), duck: req.duck.name };
    const by = byText(holder.by);
    // Claimed before anything else, so a second run on the robot is refused before it opens
    // anything; the body opens inside the run, so a port that fails is in its transcript.
    const claim = this.bodies.reserve(robot, holder);
    try {
      const opened = await this.memory();
      const { store, notice } = noMemory === true ? {} : opened;
      const memory = store !== undefined ? runMemoryFor(store, robot.key, req.duck.name, { task: req.duck.text }) : undefined;
      onMemory?.({ ...(memory !== undefined ? { memory } : {}), ...(notice !== undefined ? { notice } : {}) });
      let runId = '';
      const report = await startRun({
        ...rest,
        robot: robot.key,
        robotName: robot.name,
        // What the run's duck is checked against: the robot as its settings make it (a camera gives search_scan).
        bodySettings: robot.settings,
        by,
        transcriptsDir: this.config.transcriptsDir,
        ...(this.config.recordingsDir !== undefined && noRecord !== true ? { recordingsDir: this.config.recordingsDir, recordingCameraFps: this.config.recordingRetention?.cameraFps ?? 0 } : {}),
        events: this.events,
        ...(memory !== undefined ? { memory } : {}),
        lease: () => claim.open(req.seed),
        onEvent: (event) => {
          this.announce(robot, runId, by, event);
          rest.onEvent?.(event);
        },
        onStart: (info) => {
          runId = info.runId;
          this.events.emit('run:start', { robot: robot.name, key: robot.key, runId, duck: req.duck.name, by });
          rest.onStart?.(info);
        },
      });
      this.events.emit('run:end', { robot: robot.name, key: robot.key, runId: report.runId, duck: req.duck.name, outcome: report.outcome });
      this.prune();
      return report;
    } finally {
      // The run ended its lease itself (src/run/start-run.ts settle); this frees a claim it never used.
      claim.cancel();
    }
  }

  /** Retention after a run (transcripts, then recordings, which go with theirs): a file that cannot be deleted is a log line, never a failed run. */
  private prune(): void {
    if (this.config.retention !== undefined) this.pruneTranscripts(this.config.retention);
    const recordings = this.config.recordingsDir;
    if (recordings === undefined || this.config.recordingRetention === undefined) return;
    try {
      const { gone, kept } = pruneRecordings(recordings, this.config.transcriptsDir, this.config.recordingRetention, { apply: true });
      if (gone.length > 0) logger('runtime').info({ pruned: gone.length }, 'old recordings deleted');
      const first = kept[0];
      if (first !== undefined) logger('runtime').warn({ kept: kept.length, path: first.recording.path, err: first.reason }, `old recordings kept: ${keptLine(kept)}`);
    } catch (err) {
      logger('runtime').warn({ err: err instanceof Error ? err.message : String(err) }, 'recording retention failed');
    }
  }

  private pruneTranscripts(retention: RetentionPolicy): void {
    try {
      const gone = pruneTranscripts(this.config.transcriptsDir, retention, { apply: true, ...(this.config.now !== undefined ? { now: this.config.now() } : {}) });
      if (gone.length > 0) logger('runtime').info({ pruned: gone.length }, 'old transcripts deleted');
    } catch (err) {
      logger('runtime').warn({ err: err instanceof Error ? err.message : String(err) }, 'transcript retention failed');
    }
  }

  /**
   * What a run's transcript says, as the bus's events: steps, answered gates (a terminal's answer
   * is the run's holder's, `by`), memory saved; and a torque verb's switch, in the journal.
   */
  private announce(robot: Robot, runId: string, by: string, event: TranscriptEvent): void {
    if (event.type === 'verb_result') {
      this.events.emit('run:step', { robot: robot.name, runId, ...(event.step !== undefined ? { step: event.step } : {}), verb: event.verb, label: event.label, ok: event.ok, summary: event.summary, ...(event.data !== undefined ? { data: event.data } : {}) });
      const torque = event.data?.['torque'];
      if (event.verb === 'torque' && event.ok && !event.invented && typeof torque === 'boolean') torqueLine(robot.name, torque, by);
    } else if (event.type === 'gate') {
      const answeredBy = event.by ?? (event.how === 'tty' ? by : undefined);
      this.events.emit('run:gate', { robot: robot.name, runId, question: event.label, verb: event.verb, state: 'answered', allowed: event.allowed, how: event.how, ...(answeredBy !== undefined ? { by: answeredBy } : {}) });
    } else if (event.type === 'memory' && event.detail['saved'] === true && (event.action === 'remember' || event.action === 'episode')) {
      const id = event.detail['id'];
      this.events.emit('memory:saved', { robot: robot.name, key: robot.key, runId, kind: event.action === 'remember' ? 'note' : 'episode', ...(typeof id === 'string' ? { id } : {}) });
    }
  }

  /** Stops every held body and closes the store; the runtime takes no more runs. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unjournal();
    await this.bodies.closeAll();
    const opened = await this.store;
    await opened?.store?.close();
  }

  /** The robot a front door names (a fleet name or a body key), flags laid over its settings. */
  robot(nameOrKey: string, flags: Readonly<Record<string, unknown>> = {}): Robot {
    return this.fleet.resolve(nameOrKey, flags);
  }
}

export function createRuntime(config: RuntimeConfig): Runtime {
  return new Runtime(config);
}
