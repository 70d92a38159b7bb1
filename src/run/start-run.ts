/**
 * One deliberation run, composed: open the body, the transcript and the executor, fly the pilot
 * loop, then stop and close the body, write the episode (never under dry run) and end the
 * transcript with the outcome. Whatever happens, the body is stopped and the transcript closed.
 */
import { BodyError, type Body, type BodyKey } from '../bodies/body.js';
import { BodyPool, type Lease } from '../runtime/body-pool.js';
import { EventBus } from '../runtime/events.js';
import { Fleet } from '../runtime/fleet.js';
import { findBody, robotCan } from '../bodies/index.js';
import { InputError, QuackdError } from '../errors.js';
import { checkDuckForBody } from '../ducks/check.js';
import type { Duck } from '../ducks/duck.js';
import { logger } from '../log.js';
import { runPilot, type PicturesSent } from '../pilot/loop.js';
import { ProviderError, type Provider, type TokenUsage } from '../pilot/providers/provider.js';
import type { RunMemory } from '../pilot/run-memory.js';
import { BudgetTracker } from '../safety/budgets.js';
import { Executor } from '../safety/executor.js';
import type { Gate } from '../safety/gate.js';
import type { Outcome, TranscriptEvent } from '../transcript/events.js';
import { TranscriptWriter, runIdFor } from '../transcript/writer.js';
import { withholdSecretNotes } from './withhold-secrets.js';
import { CameraFilm } from '../recording/camera-film.js';
import { RunRecorder } from '../recording/run-recorder.js';
import { RunSnapshots } from './run-snapshots.js';
import { defaultVerbs } from '../verbs/registry.js';
import { VERSION } from '../version.js';

export interface RunRequest {
  readonly duck: Duck;
  readonly robot: BodyKey;
  /** The robot's fleet name, when the body is a robot of the fleet: the transcript's start says it. */
  readonly robotName?: string;
  /** Who asked for the run (`cli user ana (uid 1000)`): the transcript's start says it. */
  readonly by?: string;
  readonly seed: number;
  readonly provider: Provider;
  readonly gate: Gate;
  readonly dryRun: boolean;
  readonly memory?: RunMemory;
  readonly transcriptsDir: string;
  /** Where the run's recording goes (`<dir>/<run id>.mcap`, src/recording); none without it. */
  readonly recordingsDir?: string;
  /** Camera frames a second the recording keeps beside the snapshots, while the body has a camera (0 or none: snapshots only). */
  readonly recordingCameraFps?: number;
  /** The bus the body's control loop publishes its ticks on (a recording listens); a run without a runtime makes its own. */
  readonly events?: EventBus;
  readonly signal: AbortSignal;
  readonly bodySettings?: Readonly<Record<string, unknown>>;
  /**
   * The body, leased from the runtime's pool (src/runtime): the run stops its motion at the end
   * but does not close a held body. Without one, the run leases from a pool of its own.
   */
  readonly lease?: () => Promise<Lease>;
  /** Every event, as it happens (the terminal printer listens here). */
  readonly onEvent?: (event: TranscriptEvent) => void;
  /** Called once the transcript exists, before the body opens. */
  readonly onStart?: (info: { runId: string; transcriptPath: string; recordingPath?: string }) => void;
  /**
   * The run was asked for to leave the motors holding (`quackd torque on`): when it succeeds it
   * ends without the stop every other run ends with, which would cut torque again. Its one verb
   * moved nothing; any other ending stops the body as usual.
   */
  readonly keepTorque?: boolean;
}

export interface RunReport {
  readonly runId: string;
  readonly transcriptPath: string;
  /** The run's recording, when it has one. */
  readonly recordingPath?: string;
  readonly duck: string;
  readonly robot: BodyKey;
  /** The robot's fleet name (`den`), when the body is a robot of the fleet. */
  readonly robotName?: string;
  readonly outcome: Outcome;
  readonly steps: number;
  readonly llmCalls: number;
  readonly seconds: number;
  readonly usage: TokenUsage;
  /** Pictures the model was shown and the bytes sent of them (`snapshot`); none without a picture. */
  readonly pictures?: PicturesSent;
  readonly dryRun: boolean;
}


export async function startRun(req: RunRequest): Promise<RunReport> {
  const entry = findBody(req.robot);
  if (entry === undefined) throw new InputError(`unknown body "${req.robot}"`, "'quackd bodies' lists them");
  checkDuckForBody(req.duck, entry, robotCan(entry, req.bodySettings ?? {}));

  const transcript = TranscriptWriter.create(req.transcriptsDir, runIdFor(req.duck.name));
  // A run nobody can account for afterwards must not go on: a transcript that cannot be written
  // (disk full) stops the run as cleanly as Ctrl-C would, and the outcome says why.
  const unrecorded = new AbortController();
  transcript.onFailure(() => unrecorded.abort(new Error('stopped by a transcript that cannot be written')));
  const events = req.events ?? new EventBus();
  const recorder = req.recordingsDir !== undefined ? await RunRecorder.open(req.recordingsDir, transcript.runId, req.robotName ?? req.robot, events) : undefined;
  const emit = (event: TranscriptEvent): void => {
    const safe = withholdSecretNotes(event);
    transcript.write(safe);
    recorder?.event(safe);
    req.onEvent?.(safe);
  };
  req.onStart?.({ runId: transcript.runId, transcriptPath: transcript.path, ...(recorder !== undefined ? { recordingPath: recorder.path } : {}) });
  const budgets = new BudgetTracker(req.duck.budgets);
  let outcome: Outcome = { status: 'error', reason: 'the run did not start' };
  let results: readonly string[] = [];
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let pictures: PicturesSent = { shown: 0, bytes: 0 };
  let lease: Lease | undefined;
  let film: CameraFilm | undefined;
  try {
    emit({
      type: 'start',
      duck: req.duck.name,
      body: req.robot,
      ...(req.robotName !== undefined && req.robotName !== req.robot ? { robot: req.robotName } : {}),
      ...(req.by !== undefined ? { by: req.by } : {}),
      provider: req.provider.name,
      model: req.provider.model,
      dryRun: req.dryRun,
      seed: req.seed,
      budgets: { ...req.duck.budgets },
      verbs: [...req.duck.verbs],
      confirm: [...req.duck.confirm],
      quackd: VERSION,
      node: process.version,
      pid: process.pid,
    });
    lease = await (req.lease ?? (() => ownLease(req, events)))();
    const body = lease.body;
    const link = body.link;
    if (link !== undefined) emit({ type: 'body_link', device: link.device, firmware: link.firmware, board: link.board, boot: link.boot });
    const registry = defaultVerbs.with(req.memory?.verbs ?? []);
    const eyes = body.eyes;
    if (recorder !== undefined && eyes !== undefined && (req.recordingCameraFps ?? 0) > 0) film = new CameraFilm(eyes.camera, req.recordingCameraFps ?? 0, (jpeg, at) => recorder.filmFrame(jpeg, at));
    const snapshots = eyes === undefined ? undefined : new RunSnapshots({ eyes, transcriptsDir: req.transcriptsDir, runId: transcript.runId, ...(req.provider.pictureWidth !== undefined ? { width: req.provider.pictureWidth } : {}), ...(recorder !== undefined ? { onPicture: (jpeg: Uint8Array, at: number) => recorder.picture(jpeg, at) } : {}) });
    const executor = new Executor({ duck: req.duck, registry, body, gate: req.gate, budgets, dryRun: req.dryRun, runId: transcript.runId, emit, ...(req.memory ? { memory: req.memory } : {}), ...(snapshots ? { snapshots } : {}) });
    const loop = await runPilot({ duck: req.duck, provider: req.provider, executor, sensors: body, budgets, registry, memoryBlock: req.memory?.promptBlock ?? '', dryRun: req.dryRun, emit, signal: AbortSignal.any([req.signal, unrecorded.signal]) });
    outcome = loop.outcome;
    results = loop.results;
    usage = loop.usage;
    pictures = loop.pictures;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Failures a person can act on are the outcome's reason; anything else is a bug worth a log line.
    if (!(err instanceof ProviderError || err instanceof BodyError || err instanceof QuackdError)) logger('run').error({ err }, 'run failed');
    emit({ type: 'error', message });
    outcome = { status: 'error', reason: message };
  } finally {
    if (film !== undefined) recorder?.filmed(await film.stop());
    await settle(lease, emit, req.keepTorque !== true || outcome.status !== 'success');
  }
  // A run that never reached the body (provider unreachable, port missing, stopped before its
  // first step) taught nothing: an episode of it would read as an earlier run to the next pilot.
  // A pilot that declared a verdict on an open body did fly, even without a step.
  const flew = lease !== undefined && (budgets.stepsUsed > 0 || outcome.status === 'success' || outcome.status === 'failure');
  if (!req.dryRun && req.memory !== undefined && flew) {
    const event = await req.memory.writeEpisode({ runId: transcript.runId, duck: req.duck.name, outcome: outcome.status, reason: outcome.reason, steps: budgets.stepsUsed, results });
    if (event !== undefined) emit({ type: 'memory', action: event.action, detail: event.detail });
  }
  await transcript.flush(); // a write still in flight may yet fail: the outcome must say so
  if (transcript.failure !== undefined) {
    outcome = { status: 'error', reason: `transcript ${transcript.path} cannot be written (${transcript.failure.code ?? transcript.failure.message}); the run was stopped` };
  }
  const seconds = Math.round(budgets.elapsedSeconds() * 100) / 100;
  emit({ type: 'end', outcome: outcome.status, reason: outcome.reason, steps: budgets.stepsUsed, llmCalls: budgets.llmCallsUsed, seconds, usage, ...(pictures.shown > 0 ? { pictures } : {}) });
  await transcript.close();
  await recorder?.close();
  return { runId: transcript.runId, transcriptPath: transcript.path, ...(recorder !== undefined ? { recordingPath: recorder.path } : {}), duck: req.duck.name, robot: req.robot, ...(req.robotName !== undefined ? { robotName: req.robotName } : {}), outcome, steps: budgets.stepsUsed, llmCalls: budgets.llmCallsUsed, seconds, usage, ...(pictures.shown > 0 ? { pictures } : {}), dryRun: req.dryRun };
}

/** A run started without a runtime leases from a pool of its own, for this run alone. */
async function ownLease(req: RunRequest, events: EventBus): Promise<Lease> {
  const pool = new BodyPool(events);
  const robot = new Fleet().resolve(req.robot, req.bodySettings ?? {});
  const lease = await pool.lease(robot, req.seed);
  return { ...lease, release: async () => (await lease.release(), await pool.closeAll()) };
}

/** Stop (unless `stop` is false), then end the lease; a body that fails to stop is logged, never left half-open. */
async function settle(lease: Lease | undefined, emit: (event: TranscriptEvent) => void, stop: boolean): Promise<void> {
  if (lease === undefined) return;
  const body: Body = lease.body;
  try {
    if (stop) {
      await body.stop();
      emit({ type: 'body_stop', ok: true });
    }
  } catch (err) {
    logger('run').error({ err }, 'body did not stop cleanly');
    emit({ type: 'body_stop', ok: false, error: err instanceof Error ? err.message : String(err) });
  }
  try {
    await lease.release();
  } catch (err) {
    logger('run').error({ err }, 'body did not close cleanly');
  }
}
