/**
 * serve-mcp holding the robots itself (no `quackd serve` runs): the runtime of this process (the
 * config file's fleet, the memory store, the transcripts) under the same Service `quackd serve`
 * runs, without its control socket. Runs, observations and memory go through that Service, so a
 * run started here is the run `quackd serve` would start.
 */
import { DEFAULT_BODY, type RobotCan } from '../bodies/index.js';
import { dataDir, transcriptsDir, userDucksDir } from '../config/paths.js';
import { RelayPilot } from '../pilot/providers/relay.js';
import type { RecordingPolicy } from '../recording/retention.js';
import type { RobotsSection } from '../runtime/fleet.js';
import type { RunBy } from '../runtime/holder.js';
import { createRuntime } from '../runtime/runtime.js';
import type { EmbeddingSettings } from '../memory/embedder.js';
import type { MemoryAnswer, MemoryAsk, RobotStatus } from '../service/api.js';
import { Service } from '../service/service.js';
import type { TranscriptExcerpt } from '../transcript/excerpt.js';
import type { TranscriptSummary } from '../transcript/reader.js';
import type { Backend, Observed, RunAsk, RunHandle } from './backend.js';

export interface LocalOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly robots?: RobotsSection;
  /** The memory directory; undefined for none at all (`--no-memory`). */
  readonly memoryDir?: string;
  /** Recall by meaning too (the config's `memory.embeddings`). */
  readonly memoryEmbeddings?: EmbeddingSettings;
  /** How long a confirmation gate waits for a person before it is "not confirmed". */
  readonly gateTimeoutMs?: number;
  /** Where each run's recording goes (the config's `recordings:`, as `quackd run` and `quackd serve` record); none when undefined. */
  readonly recordingsDir?: string;
  readonly recordingRetention?: RecordingPolicy;
}

/** The runtime and its service, started: held bodies open (nothing moves), the store opened. */
export async function openLocalBackend(options: LocalOptions): Promise<Backend> {
  const { env } = options;
  const runtime = createRuntime({
    ...(options.robots !== undefined ? { robots: options.robots } : {}),
    ...(options.memoryDir !== undefined ? { memoryDir: options.memoryDir } : {}),
    ...(options.memoryEmbeddings !== undefined ? { memoryEmbeddings: options.memoryEmbeddings } : {}),
    transcriptsDir: transcriptsDir(env),
    ...(options.recordingsDir !== undefined ? { recordingsDir: options.recordingsDir } : {}),
    ...(options.recordingRetention !== undefined ? { recordingRetention: options.recordingRetention } : {}),
    dataDir: dataDir(env),
  });
  const service = new Service({ runtime, env, ducksDir: userDucksDir(env), ...(options.gateTimeoutMs !== undefined ? { gateTimeoutMs: options.gateTimeoutMs } : {}) });
  await runtime.start();
  try {
    await service.start();
  } catch (err) {
    await runtime.stop();
    throw err;
  }
  return new LocalBackend(service);
}

class LocalBackend implements Backend {
  readonly where = 'this process';

  constructor(private readonly service: Service) {}

  robots(): Promise<readonly RobotStatus[]> {
    const fleet = this.service.robots();
    return Promise.resolve(fleet.length > 0 ? fleet : [this.service.status(DEFAULT_BODY)]);
  }

  async status(robot: string): Promise<RobotStatus> {
    return this.service.status(robot);
  }

  observe(robot: string, by: RunBy): Promise<Observed> {
    return this.service.observe(robot, by);
  }

  async can(robot: string): Promise<RobotCan> {
    return this.service.can(robot);
  }

  memory(robot: string, ask: MemoryAsk): Promise<MemoryAnswer> {
    return this.service.memory(robot, ask);
  }

  async start(ask: RunAsk): Promise<RunHandle> {
    const service = this.service;
    const relay = ask.drive !== undefined ? new RelayPilot(ask.drive.client) : undefined;
    const { done, ...run } = await service.run(ask.robot, {
      duck: ask.duck,
      ...(ask.text !== undefined ? { text: ask.text } : {}),
      gates: ask.gates,
      by: ask.by,
      ...(relay !== undefined ? { pilot: relay } : {}),
    });
    const onGate = ask.onGate;
    const put = (question: string, verb: string): void => onGate?.(question, verb, (allowed, how) => void service.answerGate(run.robot, allowed, verb, how ?? 'person', ask.by));
    const offGate = service.events.on('run:gate', (e) => (e.runId === run.runId && e.state === 'waiting' ? put(e.question, e.verb) : undefined));
    // A gate that opened before we listened is put now.
    const waiting = service.status(run.robot);
    if (waiting.gate !== undefined && waiting.run?.runId === run.runId) put(waiting.gate.question, waiting.gate.verb);
    const followed = service.follow(run.runId, { onEvent: (event) => ask.onEvent?.(event), onEnd: () => undefined });
    void done.then(() => {
      offGate();
      followed?.unfollow();
      relay?.end();
    });
    return {
      run,
      done,
      submit: (name, args) => (relay !== undefined ? relay.submit(name, args) : Promise.reject(new Error('this run has its own pilot'))),
      stop: (why) => void service.abortRun(run.runId, why),
    };
  }

  async transcripts(limit: number): Promise<readonly TranscriptSummary[]> {
    return this.service.transcripts(limit);
  }

  async transcript(id: string): Promise<{ readonly id: string } & TranscriptExcerpt> {
    return this.service.transcript(id);
  }

  async close(why: string): Promise<void> {
    await this.service.stopRuns(why);
    await this.service.runtime.stop();
  }
}
