/**
 * The service holds a real Microduck (the host firmware over a pty, microduck:jsonrpc in the
 * fleet): start opens its link so status shows it, and never moves a joint (the firmware's own
 * `targets` counter stays 0, torque stays off); the battery, torque and link reach the status board
 * from the body's reports; health names the loop, the link and the battery; an emergency stop
 * outside any run is sent and confirmed, and one mid-walk ends the walk and the run with torque off,
 * however early in the walk it comes (the walk's result says `stopped` and the time it really ran).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loopSchedulingHere } from '../../src/control/realtime.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import type { RobotStatus, StartedRun } from '../../src/service/api.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { Rig, missingTools, patientBody, waitFor } from '../bridge/rig.js';
import { scripted } from '../helpers/scripted-provider.js';

describe('the service holding a serial robot', { skip: missingTools() }, () => {
  let rig: Rig;
  let home: string;
  let serving: Serving | undefined;
  let bench: () => RobotStatus;

  before(async () => {
    rig = await Rig.start(['--watchdog-ms', '5000']);
    home = mkdtempSync(join(tmpdir(), 'quackd-hold-'));
    writeFileSync(join(home, 'config.yaml'), `robots:\n  bench: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\n  den: { body: microduck:sim2d }\n`);
    serving = await startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(createFakeProvider()) });
    const service = serving.service;
    bench = () => service.status('bench');
  });
  after(async () => {
    await serving?.stop('the test');
    await rig?.cleanup();
    rmSync(home, { recursive: true, force: true });
  });

  it('opens the link at start: status shows it, with the battery and torque the body reported', async () => {
    await waitFor('the body to report', () => bench().link === 'ok' && bench().battery_v !== undefined);
    const s = bench();
    assert.equal(s.activity, 'idle');
    assert.equal(s.torque, false, 'start switched torque on');
    assert.equal(typeof s.battery_v, 'number');
    await waitFor('the loop to publish its health', () => bench().loop !== undefined, 5000);
    const lines = await serving!.service.health();
    const check = (name: string) => lines.find((l) => l.check === name);
    assert.equal(check('link bench')?.status, 'ok');
    // It says what its thread runs under: SCHED_FIFO 10 where this process may ask for it (CI runs as root).
    const scheduling = await loopSchedulingHere();
    assert.ok((check('loop bench')?.detail ?? '').endsWith(` · ${scheduling.replace(/^normal/, 'normal priority')}`), check('loop bench')?.detail);
    assert.match(check('loop bench')?.detail ?? '', /^\d+\.\d of 50 Hz · \d+ missed/);
    assert.match(check('battery bench')?.detail ?? '', /^\d+\.\d\d V$/);
    assert.equal(check('link den'), undefined, 'a simulator has no link');
  });

  it('an emergency stop outside any run is sent to the firmware and confirmed', async () => {
    await serving!.service.stop('bench');
    assert.equal(bench().activity, 'idle');
  });

  it('never moved a joint: the firmware applied no targets and torque is off', async () => {
    // The port is the service's while it runs; the firmware's counters run from its boot.
    await serving!.stop('the test');
    serving = undefined;
    const body = await patientBody(rig);
    try {
      const state = (await body.observe()).data;
      assert.equal(state['targets'], 0, 'the firmware received targets');
      assert.equal(state['torque'], false);
    } finally {
      await body.close();
    }
  });
});

describe('an emergency stop mid-walk on a serial robot', { skip: missingTools() }, () => {
  let rig: Rig;
  let home: string;
  let serving: Serving | undefined;

  before(async () => {
    rig = await Rig.start(['--watchdog-ms', '5000']);
    home = mkdtempSync(join(tmpdir(), 'quackd-hold-'));
    writeFileSync(join(home, 'config.yaml'), `robots:\n  bench: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\n`);
    // A pilot that walks far (10 s planned), each run: the walk is under way when the stop comes.
    serving = await startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(scripted([[{ name: 'walk', args: { metres: 3 } }], [{ name: 'declare_failure', args: { reason: 'stopped' } }]])) });
  });
  after(async () => {
    await serving?.stop('the test');
    await rig?.cleanup();
    rmSync(home, { recursive: true, force: true });
  });

  /** The run's walk result, which must say it was stopped and what it did by then. */
  async function stoppedRun(run: StartedRun): Promise<void> {
    const report = await run.done;
    assert.equal(report.outcome.status, 'interrupted');
    assert.equal(report.outcome.reason, 'stopped by an emergency stop');
    const walk = readTranscript(report.transcriptPath).lines.find((l) => l.type === 'verb_result' && l.verb === 'walk');
    assert.ok(walk?.type === 'verb_result' && !walk.ok, `the walk went on: ${JSON.stringify(walk)}`);
    assert.match(walk.summary, /^walked \d+\.\d s at [\d.]+ m\/s: stopped$/);
    assert.ok(Number(walk.data?.['ran_s']) < 5, `a stopped walk says it ran ${String(walk.data?.['ran_s'])} s`);
    assert.equal(typeof walk.data?.['targets_sent'], 'number');
  }

  it('ends the walk and the run (interrupted), and leaves torque off', async () => {
    const service = serving!.service;
    const run = await service.run('bench', { duck: 'walker', goal: 'walk three metres', gates: 'yes' });
    // The walk switches torque on first: then it is streaming targets, or about to. (Patient: a
    // loaded machine may take seconds to open the link for the run; the stop's timing is the point.)
    let early: string | undefined;
    void run.done.then((r) => (early = `${r.outcome.status} — ${r.outcome.reason}`));
    await waitFor('the walk to start', () => service.status('bench').torque === true || early !== undefined, 30_000);
    assert.equal(early, undefined, 'the run ended before its walk started');
    await service.stop('bench');
    await stoppedRun(run);
    await waitFor('torque off reported', () => service.status('bench').torque === false, 5000);
  });

  it('a stop the moment torque comes on, before the first tick of the walk, ends it just the same', async () => {
    const service = serving!.service;
    let stopped = false;
    // Synchronously, as the state that says torque is on arrives: the verb has not ticked yet.
    const off = service.events.on('body:report', (e) => {
      if (e.robot !== 'bench' || e.torque !== true || stopped) return;
      stopped = true;
      void service.stop('bench');
    });
    try {
      const run = await service.run('bench', { duck: 'walker', goal: 'walk three metres', gates: 'yes' });
      await stoppedRun(run);
      assert.ok(stopped, 'torque never came on');
    } finally {
      off();
    }
    await waitFor('torque off reported', () => service.status('bench').torque === false, 5000);
  });
});
