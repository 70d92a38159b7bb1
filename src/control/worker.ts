/**
 * The control worker's entry: makes the plant from its spec, then runs the loop (core + driver)
 * and answers the handle (src/control/control-loop.ts). Nothing on the main thread can delay a
 * tick here, and nothing here ever waits for the main thread: stops come through shared memory,
 * and everything the worker says is a message it posts and forgets.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ControlCore, type CoreHooks } from './core.js';
import { loadPlant, loadSkill, settleSkills, warmSkill, type Json, type ModuleSpec } from './module-spec.js';
import { LockstepDriver, RealtimeDriver, VirtualClock, stopCounter, type Driver } from './pacing.js';
import type { Plant } from './plant.js';
import type { FromWorker, ToWorker, WorkerInit } from './protocol.js';
import { TickGaps } from './tick-gaps.js';
import { LOCKSTEP_RING_TICKS, RING_TICKS, TickRingWriter, tickRingBuffer, tickStamper } from './tick-ring.js';
import { LOCKSTEP_SCHEDULING, LOOP_THREAD_NAME, UNASKED_SCHEDULING, nameThread, raiseThreadPriority } from './realtime.js';

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

async function main(port: NonNullable<typeof parentPort>, init: WorkerInit): Promise<void> {
  const post = (message: FromWorker) => port.postMessage(message);
  nameThread(LOOP_THREAD_NAME);
  // Asked for now and answered while the plant loads: on a busy board chrt itself takes seconds to start.
  const asked =
    init.mode === 'lockstep' ? Promise.resolve(LOCKSTEP_SCHEDULING) : init.realtimePriority === false ? Promise.resolve(UNASKED_SCHEDULING) : raiseThreadPriority(init.realtimePriority);
  let plant: Plant;
  try {
    plant = await loadPlant(init.plant);
  } catch (err) {
    post({ type: 'failed', message: errorText(err) });
    return;
  }
  const shared = new BigInt64Array(init.shared);
  const virtual = init.mode === 'lockstep' ? new VirtualClock() : undefined;
  const clock = virtual?.now ?? (() => performance.now());
  const warned = new Set<string>();
  const gaps = new TickGaps(init.mode);
  const ticks = tickRingBuffer(plant.joints.length, virtual !== undefined ? LOCKSTEP_RING_TICKS : RING_TICKS);
  const ring = new TickRingWriter(ticks, plant.joints.length);
  const stamp = tickStamper(virtual !== undefined, init.periodMs);
  const hooks: CoreHooks = {
    verbEnded: (id, result) => post({ type: 'verb', id, result }),
    fell: (tiltRad, tick, inVerb) => {
      post({ type: 'fell', tiltRad, tick, inVerb });
      publish();
    },
    idleFailed: (why) => post({ type: 'warn', message: `the skill run between verbs failed (${why}); holding between verbs from now on` }),
    // Once per kind of call: a plant that fails every tick must not flood the main thread.
    plantError: (call, err) => {
      if (warned.has(call)) return;
      warned.add(call);
      post({ type: 'warn', message: `plant ${call} failed: ${errorText(err)} (further failures are only counted)` });
    },
    ticked: (sample) => {
      ring.push(stamp(), sample);
      gaps.ticked();
    },
  };
  const scheduling = await asked;
  const core = new ControlCore(plant, init, hooks, clock, stopCounter(shared));
  const publish = () => post({ type: 'stats', stats: { ...core.stats.snapshot(core.state, clock()), scheduling } });
  const deps = { core, periodMs: init.periodMs, shared, statsEveryMs: init.statsEveryMs, publish };
  const driver: Driver = virtual !== undefined ? new LockstepDriver(deps, virtual) : new RealtimeDriver(deps);
  const context = { joints: plant.joints, periodMs: init.periodMs };

  /** The idle skill asked for last: one that loads after a later ask is not used. */
  let idleAsk = 0;
  const setIdle = (spec: ModuleSpec | null): Promise<void> => {
    const ask = ++idleAsk;
    if (spec === null) return Promise.resolve(core.setIdle(undefined));
    return loadSkill(spec, context).then(
      (skill) => {
        if (ask !== idleAsk) return;
        core.setIdle(skill);
        // A resting loop starts the idle skill at the next slot, not at the end of its rest.
        driver.kick();
      },
      (err: unknown) => post({ type: 'warn', message: `the skill to run between verbs could not be made (${errorText(err)}); holding between verbs` }),
    );
  };

  let closing = false;
  /** Verbs whose skill is still being made: a close meanwhile ends them, or their callers would wait on a worker gone. */
  const loading = new Set<number>();
  port.on('message', (message: ToWorker) => {
    if (message.type === 'run') {
      loading.add(message.id);
      loadSkill(message.skill, context).then(
        (skill) => {
          if (!loading.delete(message.id)) return;
          core.begin(message.id, skill, message.stopSeq);
          driver.kick();
        },
        (err: unknown) => {
          if (loading.delete(message.id)) post({ type: 'verb', id: message.id, result: { outcome: 'failed', reason: 'skill', message: `skill: ${errorText(err)}`, ticks: 0, endTick: -1 } });
        },
      );
    } else if (message.type === 'idle') {
      void setIdle(message.skill);
    } else if (message.type === 'warm') {
      void warmBetweenTicks(message.skills).then(() => post({ type: 'warmed', id: message.id }));
    } else if (message.type === 'stop') {
      core.interrupt();
    } else if (message.type === 'sense') {
      let world: Json = null;
      try {
        world = plant.sense?.() ?? null;
      } catch (err) {
        post({ type: 'warn', message: `plant sense failed: ${errorText(err)}` });
      }
      post({ type: 'sensed', id: message.id, world });
    } else if (!closing) {
      closing = true;
      gaps.open();
      for (const id of loading) post({ type: 'verb', id, result: { outcome: 'stopped', ticks: 0, endTick: -1 } });
      loading.clear();
      core.close();
      void driver.stop().then(async () => {
        publish();
        try {
          await plant.close?.();
        } catch (err) {
          post({ type: 'warn', message: `plant close failed: ${errorText(err)}` });
        }
        // The plant is closed first (a stop lands at once); the thread then ends only once no
        // skill's work is out on the pool (an abandoned ONNX run would abort the process).
        await settleSkills().catch((err: unknown) => post({ type: 'warn', message: `a skill did not settle: ${errorText(err)}` }));
        post({ type: 'closed' });
        // Not close(): that may drop messages still queued (the last verb result, the final stats).
        port.unref();
      });
    }
  });
  /**
   * A held body's policies swapped between runs (`quackd policy load`): each module warmed right
   * after a tick, so that what blocks this thread (an ONNX session made, its first run) lands in
   * the slack before the next tick rather than in a verb's first ticks. Nothing new starts once
   * closing: the thread then ends once the work already out has settled.
   */
  const warmBetweenTicks = async (skills: readonly ModuleSpec[]): Promise<void> => {
    for (const spec of skills) {
      await gaps.next();
      if (closing) return;
      await warmSkill(spec).catch((err: unknown) => post({ type: 'warn', message: `skill ${spec.module} could not be warmed: ${errorText(err)}` }));
    }
  };

  // Before the first tick: nothing is moving yet. A module that cannot warm says so once; its
  // verb fails on it later with the skill's own error.
  for (const spec of init.warm) await warmSkill(spec).catch((err: unknown) => post({ type: 'warn', message: `skill ${spec.module} could not be warmed: ${errorText(err)}` }));
  if (init.idle !== undefined) await setIdle(init.idle);
  post({ type: 'ready', joints: plant.joints, scheduling, ticks });
  driver.start();
}

if (parentPort === null) throw new Error('src/control/worker.ts runs as a worker thread (ControlLoop.start)');
void main(parentPort, workerData as WorkerInit);
