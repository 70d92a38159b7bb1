/**
 * The running service's API (ServiceApi), composed on the runtime: runs on request, one at a
 * time per robot, with the pilot of the config file (the one `quackd run` would use) and the
 * service's gates; an emergency stop in or outside a run; the status board; health as the service
 * sees it. Front doors (the control socket, MQTT) are written against this and the bus; none of
 * them opens a body, a store or a transcript.
 */
import { join } from 'node:path';
import { robotCan, type RobotCan } from '../bodies/index.js';
import { BodyError, type BodyKey, type Observation } from '../bodies/body.js';
import { fifoRefused } from '../control/realtime.js';
import { InputError, RuntimeError } from '../errors.js';
import { logger } from '../log.js';
import { readScript } from '../ducks/script.js';
import { createProvider } from '../pilot/providers/index.js';
import { pilotLabel, type Provider } from '../pilot/providers/provider.js';
import type { RunReport } from '../run/start-run.js';
import { RobotBusy } from '../runtime/body-pool.js';
import { RobotSettingsError, type Robot } from '../runtime/fleet.js';
import { byText, cliUser, type Holder, type RunBy } from '../runtime/holder.js';
import { emergencyStopLine } from '../runtime/journal.js';
import type { EventBus } from '../runtime/events.js';
import type { Runtime } from '../runtime/runtime.js';
import { noTtyGate, yesGate, type Gate } from '../safety/gate.js';
import type { TranscriptEvent } from '../transcript/events.js';
import { excerptTranscript, type TranscriptExcerpt } from '../transcript/excerpt.js';
import { listTranscriptIds, resolveTranscriptId, summarize, type TranscriptSummary } from '../transcript/reader.js';
import type { HealthLine, MemoryAnswer, MemoryAsk, RobotStatus, RunOnRequest, ServiceApi, StartedRun, TorqueRun, UnconfirmedStop } from './api.js';
import { loopRateText, loopTargetHz, reachable } from '../runtime/robot-status.js';
import { createScriptProvider } from '../pilot/providers/script.js';
import { runnableDucks } from '../ducks/runnable.js';
import { torqueDuckName, torqueDuckText, torqueReadBack } from './torque.js';
import { runWarnings } from '../bodies/policy-warnings.js';
import { duckOf } from './duck-of.js';
import { askMemory } from './memory-ask.js';
import type { DoorLine, FrontDoor } from './front-door.js';
import { DEFAULT_GATE_TIMEOUT_MS, ServiceGate } from './gate.js';
import { KeepHeld } from './keep-held.js';
import { ReachWatch } from './reach-watch.js';
import { journalLinks } from './link-journal.js';
import { StatusBoard } from './status-board.js';
import { StopMarks } from './stop-marks.js';

export interface ServiceOptions {
  readonly runtime: Runtime;
  /** Where the pilot's settings (and API keys) are read, as `quackd run` reads them. */
  readonly env: NodeJS.ProcessEnv;
  /** The ducks folder names are looked up in (after the starters). */
  readonly ducksDir: string;
  readonly gateTimeoutMs?: number;
  /** The pilot of each run; default: the config file's, as `quackd run` without pilot flags gets it. */
  readonly pilot?: () => Promise<Provider>;
}

interface Follower {
  onEvent(event: TranscriptEvent): void;
  onEnd(report: RunReport): void;
}

/** A run under way: who holds the robot, how to stop it, its gate, and its transcript so far (for followers who come late). */
interface Current {
  readonly robot: Robot;
  readonly holder: Holder;
  readonly abort: AbortController;
  readonly gate: Gate;
  readonly events: TranscriptEvent[];
  readonly followers: Set<Follower>;
  started?: StartedRun;
}

/** A run's counts, as the memory store has them, per body key. */
export interface MemoryCounts {
  readonly notes: number;
  readonly episodes: number;
}

/** An emergency stop's words in the run's outcome: `interrupted — stopped by an emergency stop`. */
const EMERGENCY = 'an emergency stop';

/**
 * How long a run asked for waits for the robot's run that is already stopping (its client left,
 * someone pressed stop) before it is refused: a body stops and a transcript closes in
 * milliseconds, and a client that comes straight back should find the robot free, not busy.
 */
const STOPPING_WAIT_MS = 3000;

export class Service implements ServiceApi {
  readonly events: EventBus;
  readonly board: StatusBoard;
  private readonly current = new Map<string, Current>();
  /** Followers waiting for the next run on a robot (any robot: `robot` undefined). */
  private readonly awaiting = new Set<{ readonly robot: string | undefined; readonly onRun: (runId: string) => void }>();
  private readonly doors: FrontDoor[] = [];
  private readonly held: KeepHeld;
  private readonly reach: ReachWatch;
  private unjournal: (() => void) | undefined;
  private stopping = false;
  private readonly stops = new StopMarks();

  constructor(private readonly options: ServiceOptions) {
    this.events = options.runtime.events;
    this.board = new StatusBoard(this.events, options.runtime.fleet.list());
    this.held = new KeepHeld(options.runtime, logger('service'));
    this.reach = new ReachWatch(options.runtime, logger('service'));
  }

  get runtime(): Runtime {
    return this.options.runtime;
  }

  /**
   * Listens to the bus, opens the memory store, and opens each held body (a serial robot) so
   * status shows its link: opening says hello and never switches torque on. A robot that cannot
   * be opened is logged and stays offline, and is opened once its device is back (keep-held.ts).
   * A robot driven through a daemon is offline while its daemon does not answer (reach-watch.ts).
   */
  async start(): Promise<void> {
    this.board.start();
    this.unjournal = journalLinks(this.events, logger('service'), (robot) => this.runtime.fleet.get(robot)?.entry.linkBack);
    const { notice } = await this.runtime.memory();
    if (notice !== undefined) logger('service').warn({ notice }, 'memory store unavailable');
    await Promise.all([this.held.start(), this.reach.start()]);
  }

  /** A front door's status and health lines join the service's own. */
  attach(door: FrontDoor): void {
    this.doors.push(door);
  }

  doorLines(): DoorLine[] {
    return this.doors.flatMap((d) => d.status?.() ?? []);
  }

  robots(): readonly RobotStatus[] {
    return this.board.list();
  }

  status(name: string): RobotStatus {
    const robot = this.runtime.fleet.resolve(name);
    return this.board.get(robot.name, robot.key, robot.entry.perRun === true);
  }

  run(name: string, req: RunOnRequest): Promise<StartedRun> {
    return this.begin(name, { ...req, stopMark: req.stopMark ?? this.stops.mark });
  }

  stopMark(): number {
    return this.stops.mark;
  }

  /**
   * Torque on or off (src/service/torque.ts): off ends a run under way first, as a stop does, and
   * no gate holds it; on waits for `gates` on a real body. What the body read back settles `torque`.
   */
  async torque(name: string, on: boolean, gates: RunOnRequest['gates'] = 'ask', by?: RunBy): Promise<TorqueRun> {
    const robot = this.resolve(name);
    // Said of the robot, whoever asks (the CLI, a dashboard's switch), not as a line of the duck torque would run.
    if (!robot.entry.verbs.includes('torque')) throw new InputError(`${robot.name} has no torque to switch: ${robot.key} has no torque verb`, `its verbs: ${robot.entry.verbs.join(', ')}`);
    const running = this.current.get(robot.name);
    if (!on && running !== undefined) {
      await this.stop(robot.name, 'torque off', by);
      await running.started?.done;
    }
    const events: TranscriptEvent[] = [];
    const started = await this.begin(robot.name, { duck: torqueDuckName(on), text: torqueDuckText(on, robot.entry), gates, pilot: createScriptProvider(), ...(by !== undefined ? { by } : {}) }, { watch: (e) => events.push(e), keepTorque: on, noMemory: true });
    return { ...started, torque: started.done.then(() => torqueReadBack(events)) };
  }

  ducks(name: string): string[] {
    const robot = this.resolve(name);
    return runnableDucks(robot.entry, robotCan(robot.entry, robot.settings), this.options.ducksDir);
  }

  /** What a robot performs and measures as its settings make it: what a duck it runs is checked against. */
  can(name: string): RobotCan {
    const robot = this.resolve(name);
    return robotCan(robot.entry, robot.settings);
  }

  /** A run on request; `watch` hears each of its events as the transcript gets it; `keepTorque` and `noMemory`: see RuntimeRunRequest. */
  private async begin(name: string, req: RunOnRequest, own: { watch?: (event: TranscriptEvent) => void; keepTorque?: boolean; noMemory?: boolean } = {}): Promise<StartedRun> {
    if (this.stopping) throw new RuntimeError('quackd serve is stopping; no new runs');
    const robot = this.resolve(name);
    await this.waitForStopping(robot.name);
    if (this.stopping) throw new RuntimeError('quackd serve is stopping; no new runs');
    const held = this.current.get(robot.name);
    if (held !== undefined) throw new RobotBusy(robot.name, held.holder);
    const duck = duckOf(req, robot.entry, robotCan(robot.entry, robot.settings), this.options.ducksDir);
    if (req.seed !== undefined && robot.entry.seeded !== true) throw new InputError(`--seed picks a simulator's layout; ${robot.name} has none`);
    let runId = '';
    const gate = req.gates === 'yes' ? yesGate : req.gates === 'deny' ? noTtyGate : new ServiceGate(this.events, robot.name, () => runId, req.gateTimeoutMs ?? this.options.gateTimeoutMs ?? DEFAULT_GATE_TIMEOUT_MS);
    const holder: Holder = { by: req.by ?? cliUser(), since: new Date(), duck: duck.name };
    const current: Current = { robot, holder, abort: new AbortController(), gate, events: [], followers: new Set() };
    // Claimed before the first await: a second request for the robot is refused, never queued.
    this.current.set(robot.name, current);
    // A stop heard since the request came, while nothing was here for it to stop, lands now: the run ends before its first step.
    if (req.stopMark !== undefined && this.stops.since(robot.name, req.stopMark)) current.abort.abort(new Error(`stopped by ${EMERGENCY}`));
    const memory: { summary?: string; notice?: string } = {};
    try {
      const provider = req.pilot ?? (await (this.options.pilot ?? (() => createProvider({}, this.options.env)))());
      // The script pilot plays the strategy as written: a line it cannot play is refused before anything moves.
      if (provider.name === 'script') readScript(duck);
      const pilot = pilotLabel(provider);
      const dryRun = req.dryRun === true;
      let resolveStart: (run: StartedRun) => void = () => undefined;
      let rejectStart: (err: unknown) => void = () => undefined;
      const start = new Promise<StartedRun>((resolve, reject) => {
        resolveStart = resolve;
        rejectStart = reject;
      });
      const done = this.runtime.run({
        duck,
        robot,
        by: holder.by,
        seed: req.seed ?? 7,
        provider,
        gate,
        dryRun,
        signal: current.abort.signal,
        ...(own.keepTorque === true ? { keepTorque: true } : {}),
        ...(own.noMemory === true || req.noMemory === true ? { noMemory: true } : {}),
        onMemory: ({ memory: m, notice }) => Object.assign(memory, { ...(notice !== undefined ? { notice } : {}), ...(m !== undefined ? { summary: m.summaryLine } : {}) }),
        onStart: (info) => {
          runId = info.runId;
          current.started = { ...info, robot: robot.name, key: robot.key, duck: { name: duck.name, budgets: duck.budgets }, pilot, dryRun, memory, warnings: runWarnings(robot, this.runtime.config.dataDir), done: settled };
          for (const waiter of this.awaiting) {
            if (waiter.robot !== undefined && waiter.robot !== robot.name) continue;
            this.awaiting.delete(waiter);
            waiter.onRun(info.runId);
          }
          resolveStart(current.started);
        },
        onEvent: (event) => {
          current.events.push(event);
          own.watch?.(event);
          this.events.emit('run:event', { robot: robot.name, runId, event });
          for (const f of current.followers) f.onEvent(event);
        },
      });
      // Settles with the report; a run that failed after its start is an `error` outcome, never a rejection.
      const settled: Promise<RunReport> = done.then(
        (report) => report,
        (err: unknown): RunReport => {
          if (current.started === undefined) rejectStart(err);
          const reason = err instanceof Error ? err.message : String(err);
          return { runId, transcriptPath: current.started?.transcriptPath ?? '', duck: duck.name, robot: robot.key, robotName: robot.name, outcome: { status: 'error', reason }, steps: 0, llmCalls: 0, seconds: 0, usage: { inputTokens: 0, outputTokens: 0 }, dryRun };
        },
      );
      void settled.then((report) => {
        if (this.current.get(robot.name) === current) this.current.delete(robot.name);
        for (const f of current.followers) f.onEnd(report);
        current.followers.clear();
      });
      return await start;
    } catch (err) {
      if (this.current.get(robot.name) === current) this.current.delete(robot.name);
      throw err;
    }
  }

  /** A run of `robot` already stopping ends before the wait is over (or the wait ends first). */
  private async waitForStopping(robot: string): Promise<void> {
    const stopping = this.current.get(robot);
    const done = stopping?.started?.done;
    if (stopping === undefined || done === undefined || !stopping.abort.signal.aborted) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, STOPPING_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /**
   * Emergency stop: the run (if one is under way) is stopped and the body halted at once, not at
   * the run's next step; every robot when none is named. `why` is the run's outcome reason; `by`
   * who pressed it, for the journal.
   */
  async stop(name?: string, why = EMERGENCY, by: RunBy = cliUser()): Promise<readonly UnconfirmedStop[]> {
    const robots = name !== undefined ? [this.resolve(name).name] : [...new Set([...this.runtime.fleet.list().map((r) => r.name), ...this.current.keys()])];
    this.stops.heard(name !== undefined ? robots : undefined);
    emergencyStopLine(name !== undefined ? robots : undefined, byText(by));
    const unconfirmed = await Promise.all(
      robots.map(async (robot): Promise<UnconfirmedStop | undefined> => {
        const current = this.current.get(robot);
        if (current !== undefined) {
          this.board.stopping(robot);
          current.abort.abort(new Error(`stopped by ${why}`));
        }
        let said: string;
        try {
          if (await this.runtime.bodies.stopBody(robot)) return undefined;
          // A robot the service holds whose body is not open (it faulted, its port is gone): nothing was told to stop.
          if (!this.runtime.bodies.unopened(this.runtime.fleet.resolve(robot))) return undefined;
          said = 'its body is not open (it faulted, or its port is gone): the stop reached no motor';
        } catch (err) {
          said = err instanceof Error ? err.message : String(err);
        }
        // The run's own stop reports it in the transcript; between runs the log is the record, and whoever asked is told.
        logger('service').warn({ robot, err: said }, 'body did not confirm the stop');
        return { robot, why: said };
      }),
    );
    return unconfirmed.filter((u) => u !== undefined);
  }

  /** Stops the run with the given id, as Ctrl-C stops a local one (the terminal that started it asked). */
  abortRun(runId: string, why: string): boolean {
    for (const [robot, current] of this.current) {
      if (current.started?.runId !== runId) continue;
      this.board.stopping(robot);
      current.abort.abort(new Error(`stopped by ${why}`));
      return true;
    }
    return false;
  }

  /** Answers the gate waiting on a robot's run; `by` answered it (default: the run's holder, at its own terminal). */
  answerGate(name: string, answer: boolean, verb?: string, how: 'tty' | 'person' | 'channel' | 'unasked' = 'person', by?: RunBy): boolean {
    const current = this.current.get(this.resolve(name).name);
    const gate = current?.gate;
    return gate instanceof ServiceGate ? gate.answer(answer, verb, how, byText(by ?? current?.holder.by ?? cliUser())) : false;
  }

  follow(robotOrRun: string | undefined, listener: Follower): { readonly run: StartedRun; readonly unfollow: () => void } | undefined {
    const runs = [...this.current.values()].filter((c) => c.started !== undefined);
    const current = robotOrRun === undefined ? runs[0] : runs.find((c) => c.started?.runId === robotOrRun || c.robot.name === robotOrRun || c.robot.key === robotOrRun);
    const run = current?.started;
    if (current === undefined || run === undefined) return undefined;
    // Those so far, then each as it comes: both in this tick, so none is missed or said twice.
    for (const event of current.events) listener.onEvent(event);
    current.followers.add(listener);
    return { run, unfollow: () => current.followers.delete(listener) };
  }

  /**
   * Calls `onRun` with the id of the next run to start on `robot` (a name or a key; any robot when
   * undefined) as soon as follow() can follow it. Throws UnknownRobot for a name of no robot.
   * Returns the function that stops waiting.
   */
  nextRun(robot: string | undefined, onRun: (runId: string) => void): () => void {
    const waiter = { robot: robot !== undefined ? this.resolve(robot).name : undefined, onRun };
    this.awaiting.add(waiter);
    return () => void this.awaiting.delete(waiter);
  }

  /**
   * What a robot's sensors say now, between runs: its body leased for one observe (held bodies
   * stay open; a simulator opens the world its next run starts in). Nothing moves. RobotBusy
   * while the robot runs a duck: that run's transcript has its observations.
   */
  async observe(name: string, by: RunBy = cliUser()): Promise<{ readonly robot: string; readonly key: BodyKey; readonly perRun: boolean; readonly observation: Observation }> {
    const robot = this.resolve(name);
    const held = this.current.get(robot.name);
    if (held !== undefined) throw new RobotBusy(robot.name, held.holder);
    let lease;
    try {
      lease = await this.runtime.bodies.lease(robot, 7, { by, since: new Date() });
    } catch (err) {
      // A port that is missing or taken is the person's to fix, in one line.
      if (err instanceof BodyError) throw new RuntimeError(`${robot.name}: ${err.message}`);
      throw err;
    }
    try {
      return { robot: robot.name, key: robot.key, perRun: robot.entry.perRun === true, observation: await lease.body.observe() };
    } finally {
      await lease.release();
    }
  }

  /**
   * A robot's memory as a front door tends it (MCP's recall, remember, forget): its body's, the
   * one every run of that body reads, under the same rules as every other path. A refused note is
   * an InputError and a store that fails a RuntimeError, each one line that never quotes the text.
   */
  async memory(name: string, ask: MemoryAsk): Promise<MemoryAnswer> {
    const { key } = this.resolve(name);
    const { store, notice } = await this.runtime.memory();
    if (store === undefined) throw new RuntimeError(notice ?? 'memory is off (--no-memory)');
    return askMemory(store, key, ask);
  }

  /** The newest `limit` transcripts of this runtime's runs, whoever started them. */
  transcripts(limit: number): TranscriptSummary[] {
    const dir = this.runtime.transcriptsDir;
    return listTranscriptIds(dir)
      .slice(0, limit)
      .map((id) => summarize(dir, id));
  }

  /** One transcript, its beginning and end when it is long (excerpt.ts): `last`, an id, or a unique prefix of one (InputError otherwise). */
  async transcript(ref: string): Promise<{ readonly id: string } & TranscriptExcerpt> {
    const dir = this.runtime.transcriptsDir;
    const id = resolveTranscriptId(dir, ref);
    return { id, ...(await excerptTranscript(join(dir, `${id}.jsonl`))) };
  }

  /** Each body's notes and earlier runs in the store (for `quackd status`); empty without a store. */
  async memoryCounts(): Promise<Record<string, MemoryCounts>> {
    const { store } = await this.runtime.memory();
    if (store === undefined) return {};
    return Object.fromEntries(
      store.bodies().map((key) => {
        const entries = store.body(key).entries();
        return [key, { notes: entries.filter((e) => e.kind === 'note').length, episodes: entries.filter((e) => e.kind === 'episode').length }];
      }),
    );
  }

  async health(): Promise<readonly HealthLine[]> {
    const lines: HealthLine[] = [];
    for (const s of this.board.list()) {
      const perRun = this.runtime.fleet.get(s.robot)?.entry.perRun === true;
      const robot = s.robot;
      if (s.loop !== undefined) {
        const steady = s.loop.state !== 'fallen' && s.loop.hz >= loopTargetHz(s.loop) * 0.9;
        // Refused SCHED_FIFO, a busy board makes the loop late (README: the loop on a busy board): worth a look.
        const refused = fifoRefused(s.loop.scheduling);
        const scheduling = s.loop.scheduling.replace(/^normal/, 'normal priority');
        lines.push({ check: `loop ${robot}`, status: steady && !refused ? 'ok' : 'warn', detail: `${loopRateText(s.loop)} · ${s.loop.missed} missed${s.loop.state === 'fallen' ? ' · fallen' : ''} · ${scheduling}`, robot });
      }
      // A per-run robot has a link to say only when it is driven through a daemon the service asks after.
      if (!perRun || s.link !== undefined) lines.push({ ...this.linkHealth(s), check: `link ${robot}`, robot });
      if (s.battery_v !== undefined) lines.push({ check: `battery ${robot}`, status: 'ok', detail: `${s.battery_v.toFixed(2)} V`, robot });
    }
    if (this.runtime.config.memoryDir !== undefined) {
      const { store, notice } = await this.runtime.memory();
      if (store === undefined) lines.push({ check: 'store', status: 'fail', detail: notice ?? 'not open' });
      else if (store.writeFailure !== undefined) lines.push({ check: 'store', status: 'fail', detail: `cannot write: ${store.writeFailure}` });
      else {
        const counts = Object.values(await this.memoryCounts());
        const sum = (k: keyof MemoryCounts): number => counts.reduce((n, c) => n + c[k], 0);
        lines.push({ check: 'store', status: 'ok', detail: `ok (${sum('notes')} notes, ${sum('episodes')} episodes)` });
      }
    }
    for (const door of this.doors) lines.push(...(door.health?.() ?? []));
    return lines;
  }

  /**
   * A held robot's link as health says it: a robot's trouble is a `warn` of that robot's, never
   * a `fail` of the service (sd_notify's watchdog counts only the service's own lines).
   */
  private linkHealth(s: RobotStatus): Pick<HealthLine, 'status' | 'detail'> {
    if (reachable(s)) return { status: 'ok', detail: 'ok' };
    if (s.away !== undefined) return { status: 'warn', detail: `lost: ${s.away}` };
    const why = this.held.reason(s.robot);
    if (why !== undefined) return { status: 'warn', detail: `not open: ${why}` };
    if (s.link !== 'lost') return { status: 'warn', detail: 'not open' };
    // A body still open brings its link back its own way; a closed one is KeepHeld's to open once its port is back.
    const robot = this.runtime.fleet.get(s.robot);
    const open = robot !== undefined && !this.runtime.bodies.unopened(robot);
    return { status: 'warn', detail: `lost: ${(open ? robot.entry.linkBack : undefined) ?? 'quackd opens it again once its port is back'}` };
  }

  /** Stops every run (their bodies stop, their transcripts close) and takes no more; the runtime closes after. */
  async stopRuns(why: string): Promise<void> {
    this.stopping = true;
    this.held.stop();
    this.reach.stop();
    this.unjournal?.();
    const runs = [...this.current.values()];
    for (const c of runs) c.abort.abort(new Error(`stopped by ${why}`));
    await Promise.all(runs.map((c) => c.started?.done));
    this.board.stop();
  }

  /** The robot a request names; a setting the config file lacks is the file's to fix, not a flag's. */
  private resolve(name: string): Robot {
    try {
      return this.runtime.robot(name);
    } catch (err) {
      if (err instanceof RobotSettingsError) throw new InputError(`${err.robot}: ${err.message}`, "set it under robots: in the service's config file");
      throw err;
    }
  }
}
