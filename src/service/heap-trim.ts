/**
 * The service gives back the memory a burst of work freed, once it is quiet again. Starting up
 * (parsing and compiling the bundle) and a run (its pilot's requests, its recording, a walk's
 * policies) free far more than a held robot keeps; glibc holds on to it. A held Open Duck Mini's
 * service kept 24-34 MB in its main arena against the onnxruntime floor's 11 MB, and one
 * malloc_trim(0) took it to 5 MB in 2 ms (bench/service.ts, README's figures). So: TRIM_QUIET_MS after
 * the service is ready and after every robot has stopped running, one trim, then one every
 * TRIM_EVERY_MS while nothing runs. Never while a robot runs: a trim holds each arena's lock for a
 * millisecond or two, and a control loop's thread allocates from one of them.
 */
import type { ModuleLogger } from '../log.js';
import type { RobotActivity } from '../runtime/robot-status.js';
import type { ServiceApi } from './api.js';
import type { FrontDoor } from './front-door.js';
import { loadMallocTrim, type MallocTrim } from './malloc-trim.js';

export const TRIM_QUIET_MS = 5_000;
export const TRIM_EVERY_MS = 10 * 60_000;

export interface HeapTrimOptions {
  readonly load?: () => Promise<MallocTrim | Error>;
  readonly quietMs?: number;
  readonly everyMs?: number;
}

const running = (a: RobotActivity): boolean => a === 'running' || a === 'stopping';

/** What the trims watch: the robots' activity, at start and as it changes. */
export type ActivitySource = Pick<ServiceApi, 'events' | 'robots'>;

export class HeapTrimDoor implements FrontDoor {
  readonly name = 'heap trim';
  private stopTrims: (() => void) | undefined;

  constructor(
    private readonly log: ModuleLogger,
    private readonly options: HeapTrimOptions = {},
  ) {}

  async start(api: ActivitySource): Promise<void> {
    const trim = await (this.options.load ?? loadMallocTrim)();
    if (trim instanceof Error) return this.log.debug({ why: trim.message }, 'freed memory stays with the process: no malloc_trim here');
    this.stopTrims = trimWhenQuiet(api, trim, this.log, this.options.quietMs ?? TRIM_QUIET_MS, this.options.everyMs ?? TRIM_EVERY_MS);
  }

  stop(): Promise<void> {
    this.stopTrims?.();
    this.stopTrims = undefined;
    return Promise.resolve();
  }
}

function trimWhenQuiet(api: ActivitySource, trim: MallocTrim, log: ModuleLogger, quietMs: number, everyMs: number): () => void {
  const activity = new Map(api.robots().map((r) => [r.robot, r.activity]));
  const busy = (): boolean => [...activity.values()].some(running);
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number): void => {
    clearTimeout(timer);
    timer = setTimeout(give, ms);
    // A trim to come is no reason to keep a stopping process alive.
    timer.unref();
  };
  const give = (): void => {
    timer = undefined;
    if (busy()) return;
    const before = process.memoryUsage.rss();
    const started = performance.now();
    trim();
    log.debug({ freed_mb: Math.round((before - process.memoryUsage.rss()) / 1e5) / 10, ms: Math.round((performance.now() - started) * 10) / 10 }, 'freed memory given back to the system');
    arm(everyMs);
  };
  const off = api.events.on('robot:status', ({ robot, status }) => {
    const was = busy();
    activity.set(robot, status.activity);
    if (busy()) {
      clearTimeout(timer);
      timer = undefined;
    } else if (was) arm(quietMs);
  });
  arm(quietMs);
  return () => {
    off();
    clearTimeout(timer);
  };
}
