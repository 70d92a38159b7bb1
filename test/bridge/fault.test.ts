/**
 * A firmware fault during a verb, over the real host firmware on a pty: the wire is
 * frozen while a quack is on its way, so the firmware hears no heartbeat, its 200 ms watchdog
 * cuts torque and sends `fault`, and the quack's answer arrives after it. The verb fails, the
 * pilot reads why, and a success declared afterwards is not believed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Body, Intent, VerbResult } from '../../src/bodies/body.js';
import type { JsonRpcBody } from '../../src/bodies/microduck/jsonrpc/jsonrpc-body.js';
import { runPilot } from '../../src/pilot/loop.js';
import { BudgetTracker } from '../../src/safety/budgets.js';
import { Executor } from '../../src/safety/executor.js';
import { yesGate } from '../../src/safety/gate.js';
import type { TranscriptEvent } from '../../src/transcript/events.js';
import { defaultVerbs } from '../../src/verbs/registry.js';
import { duck } from '../helpers/ducks.js';
import { scripted } from '../helpers/scripted-provider.js';
import { Rig, missingTools, patientBody, sleep } from './rig.js';

describe('a firmware fault during a verb', { skip: missingTools() }, () => {
  it('fails that verb, the pilot reads it, and a later declared success ends as a failure', async () => {
    // A slow state stream: the frozen wire must not look like a lost link (that has its own tests).
    const rig = await Rig.start(['--state-hz', '10']);
    let body: JsonRpcBody | undefined;
    try {
      // Patient requests: the quack waits out the frozen wire instead of timing out.
      const real = await patientBody(rig);
      body = real;
      // The second verb (quack) goes out while the wire is frozen for 600 ms.
      const frozen: Body = {
        key: real.key,
        observe: () => real.observe(),
        perform: (intent: Intent, signal?: AbortSignal): Promise<VerbResult> => {
          if (intent.verb !== 'quack') return real.perform(intent, signal);
          rig.pauseLink();
          const done = real.perform(intent, signal);
          void sleep(600).then(() => rig.resumeLink());
          return done;
        },
        frame: () => real.frame(),
        metrics: () => real.metrics(),
        stop: () => real.stop(),
        close: () => real.close(),
        onTrouble: (listener) => real.onTrouble(listener),
      };
      const d = duck('robot: microduck:jsonrpc\nverbs: [torque, quack]\nsuccess_when: quacks >= 1');
      const events: TranscriptEvent[] = [];
      const emit = (e: TranscriptEvent): void => void events.push(e);
      const budgets = new BudgetTracker(d.budgets);
      const executor = new Executor({ duck: d, registry: defaultVerbs, body: frozen, gate: yesGate, budgets, dryRun: false, runId: 'fault-test', emit });
      const provider = scripted([[{ name: 'torque', args: { on: true } }], [{ name: 'quack', args: {} }], [{ name: 'declare_success', args: { reason: 'I quacked.' } }]]);
      const result = await runPilot({ duck: d, provider, executor, sensors: frozen, budgets, registry: defaultVerbs, memoryBlock: '', dryRun: false, emit, signal: new AbortController().signal });

      const quack = events.find((e) => e.type === 'verb_result' && e.verb === 'quack');
      assert.ok(quack?.type === 'verb_result');
      assert.equal(quack.ok, false, 'the quack during the fault was reported as done');
      assert.match(quack.summary, /^firmware fault \(watchdog\): no heartbeat within the watchdog period: torque off \(while quack ran: quacked\)$/);
      const told = provider.requests[2]?.messages.at(-1);
      assert.match(told?.role === 'user' ? told.content : '', /last verb quack: failed — firmware fault \(watchdog\)/);
      assert.equal(result.outcome.status, 'failure');
      assert.match(result.outcome.reason, /^success not accepted after firmware fault \(watchdog\)/);
      assert.equal(real.metrics()['torque'], 0, 'the watchdog cut torque');
    } finally {
      rig.resumeLink();
      await body?.close();
      await rig.cleanup();
    }
  });
});
