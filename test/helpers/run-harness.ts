/**
 * Builds an executor and a pilot loop around a real sim2d body, for tests of the safety contract
 * at library level. Every event is collected.
 */
import { createSim2dBody } from '../../src/bodies/microduck/sim2d/sim2d-body.js';
import type { Duck } from '../../src/ducks/duck.js';
import { runPilot, type LoopResult } from '../../src/pilot/loop.js';
import type { Provider } from '../../src/pilot/providers/provider.js';
import type { RunMemory } from '../../src/pilot/run-memory.js';
import { BudgetTracker } from '../../src/safety/budgets.js';
import { Executor } from '../../src/safety/executor.js';
import { noTtyGate, type Gate } from '../../src/safety/gate.js';
import type { TranscriptEvent } from '../../src/transcript/events.js';
import { defaultVerbs } from '../../src/verbs/registry.js';
import { recording, type RecordingBody } from './recording-body.js';

export interface Harness {
  readonly body: RecordingBody;
  readonly executor: Executor;
  readonly budgets: BudgetTracker;
  readonly events: TranscriptEvent[];
  fly(provider: Provider, signal?: AbortSignal): Promise<LoopResult>;
}

export function harness(duck: Duck, opts: { seed?: number; gate?: Gate; dryRun?: boolean; memory?: RunMemory } = {}): Harness {
  const body = recording(createSim2dBody({ seed: opts.seed ?? 7 }));
  const events: TranscriptEvent[] = [];
  const emit = (e: TranscriptEvent): void => void events.push(e);
  const budgets = new BudgetTracker(duck.budgets);
  const registry = defaultVerbs.with(opts.memory?.verbs ?? []);
  const executor = new Executor({ duck, registry, body, gate: opts.gate ?? noTtyGate, budgets, dryRun: opts.dryRun ?? false, runId: 'test-run', emit, ...(opts.memory ? { memory: opts.memory } : {}) });
  return {
    body,
    executor,
    budgets,
    events,
    fly: (provider, signal) =>
      runPilot({ duck, provider, executor, sensors: body, budgets, registry, memoryBlock: opts.memory?.promptBlock ?? '', dryRun: opts.dryRun ?? false, emit, signal: signal ?? new AbortController().signal }),
  };
}
