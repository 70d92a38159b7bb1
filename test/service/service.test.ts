/**
 * The Service in-process on sim2d robots with the fake pilot and a temp home: status follows a
 * run from the bus's events alone, a gate waits for answerGate() and is "not confirmed" when
 * nobody answers, one run at a time per robot, and an emergency stop ends a run as interrupted.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import type { Provider } from '../../src/pilot/providers/provider.js';
import { RobotBusy } from '../../src/runtime/body-pool.js';
import { UnknownRobot } from '../../src/runtime/fleet.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import type { RobotStatus } from '../../src/service/api.js';
import { Service } from '../../src/service/service.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { writeDuck } from '../helpers/ducks.js';
import { scripted } from '../helpers/scripted-provider.js';

let service: Service;
let home: string;

async function serviceWith(options: { gateTimeoutMs?: number; pilot?: () => Promise<Provider> } = {}): Promise<Service> {
  home = mkdtempSync(join(tmpdir(), 'quackd-service-'));
  const ducks = join(home, 'ducks');
  mkdirSync(ducks, { recursive: true });
  // quack only with a person's yes: the run waits at the gate for as long as the test needs.
  writeDuck(ducks, 'careful-hello', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 30 }');
  const runtime = createRuntime({ robots: { den: { body: 'microduck:sim2d' }, hall: { body: 'microduck:sim2d' } }, memoryDir: join(home, 'memory'), transcriptsDir: join(home, 'transcripts'), dataDir: home });
  const s = new Service({ runtime, env: { QUACKD_HOME: home }, ducksDir: ducks, pilot: options.pilot ?? (() => Promise.resolve(createFakeProvider())), ...(options.gateTimeoutMs !== undefined ? { gateTimeoutMs: options.gateTimeoutMs } : {}) });
  await runtime.start();
  await s.start();
  return s;
}

async function stopService(s: Service): Promise<void> {
  await s.stopRuns('the test');
  await s.runtime.stop();
  rmSync(home, { recursive: true, force: true });
}

/** The next event of `name` on the bus that `check` accepts. */
function next<T>(subscribe: (listener: (e: T) => void) => () => void, check: (e: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const off = subscribe((e) => {
      if (!check(e)) return;
      off();
      resolve(e);
    });
  });
}

describe('the service', () => {
  beforeEach(async () => {
    service = await serviceWith();
  });
  afterEach(async () => {
    await stopService(service);
  });

  it('lists the fleet idle at start, in the config order', () => {
    assert.deepEqual(service.robots().map((r) => [r.robot, r.activity]), [['den', 'idle'], ['hall', 'idle']]);
    assert.throws(() => service.status('attic'), UnknownRobot);
  });

  it("status follows a run's steps and outcome, from the bus's events", async () => {
    const seen: RobotStatus[] = [];
    service.events.on('robot:status', (e) => {
      if (e.robot === 'den') seen.push(e.status);
    });
    const run = await service.run('den', { duck: 'hello-world' });
    const report = await run.done;
    assert.equal(report.outcome.status, 'success');
    assert.ok(seen.some((s) => s.activity === 'running' && s.run?.runId === run.runId && s.run.duck === 'hello-world'), 'running was published');
    assert.ok(seen.some((s) => s.run?.step === 1), 'the step was published');
    const now = service.status('den');
    assert.equal(now.activity, 'idle');
    assert.equal(now.run, undefined);
    assert.equal(now.lastOutcome?.status, 'success');
    assert.equal(now.lastOutcome?.runId, run.runId);
    assert.equal(now.lastOutcome?.duck, 'hello-world');
    assert.equal(service.status('hall').lastOutcome, undefined, "another robot's status is its own");
    assert.match(run.memory.summary ?? '', /^memory: /, 'the memory line is handed back');
  });

  it('a gate waits for answerGate(), and the answer reaches the run', async () => {
    const waiting = next<{ runId: string; verb: string; state: string }>((l) => service.events.on('run:gate', l), (e) => e.state === 'waiting');
    const run = await service.run('den', { duck: 'careful-hello' });
    const gate = await waiting;
    assert.equal(gate.runId, run.runId);
    assert.equal(gate.verb, 'quack');
    assert.equal(service.status('den').gate?.verb, 'quack');
    assert.equal(service.answerGate('den', true, 'kick'), false, 'an answer about another verb opens nothing');
    assert.equal(service.answerGate('hall', true), false, 'no gate waits on hall');
    assert.equal(service.answerGate('den', true, 'quack'), true);
    const report = await run.done;
    assert.equal(report.outcome.status, 'success');
    const gateLine = readTranscript(run.transcriptPath).lines.find((l) => l.type === 'gate');
    assert.ok(gateLine?.type === 'gate' && gateLine.allowed && gateLine.how === 'person');
    assert.equal(service.status('den').gate, undefined);
  });

  it('two runs on one robot: the second is refused; another robot runs beside it', async () => {
    const first = await service.run('den', { duck: 'careful-hello' });
    await assert.rejects(service.run('den', { duck: 'hello-world' }), RobotBusy);
    const beside = await service.run('hall', { duck: 'hello-world' });
    assert.equal((await beside.done).outcome.status, 'success');
    assert.equal(service.answerGate('den', false), true);
    const report = await first.done;
    assert.equal(report.outcome.status, 'failure', 'a person said no, and the fake pilot gives up');
  });

  it('an emergency stop during a run ends it interrupted', async () => {
    const waiting = next<{ state: string }>((l) => service.events.on('run:gate', l), (e) => e.state === 'waiting');
    const run = await service.run('den', { duck: 'careful-hello' });
    await waiting;
    await service.stop('den');
    const report = await run.done;
    assert.equal(report.outcome.status, 'interrupted');
    assert.match(report.outcome.reason, /emergency stop/);
    assert.equal(service.status('den').lastOutcome?.status, 'interrupted');
  });

  it('a bad duck or robot is refused before anything starts', async () => {
    await assert.rejects(service.run('den', { duck: 'no-such-duck' }), /no duck named "no-such-duck"/);
    await assert.rejects(service.run('attic', { duck: 'hello-world' }), UnknownRobot);
    assert.equal(service.status('den').activity, 'idle');
    const ok = await service.run('den', { duck: 'hello-world' });
    assert.equal((await ok.done).outcome.status, 'success', 'a refused request claims nothing');
  });
});

describe('the service with nobody to answer', () => {
  afterEach(async () => {
    await stopService(service);
  });

  it('a gate nobody answers times out as not confirmed', async () => {
    service = await serviceWith({ gateTimeoutMs: 50 });
    const run = await service.run('den', { duck: 'careful-hello' });
    const report = await run.done;
    const gateLine = readTranscript(run.transcriptPath).lines.find((l) => l.type === 'gate');
    assert.ok(gateLine?.type === 'gate' && !gateLine.allowed && gateLine.how === 'timeout', JSON.stringify(gateLine));
    assert.equal(report.outcome.status, 'failure');
  });

  it('stop reaches a run waiting on its pilot', async () => {
    service = await serviceWith({ pilot: () => Promise.resolve(scripted(['hang'])) });
    const run = await service.run('den', { duck: 'hello-world' });
    await service.stop();
    const report = await run.done;
    assert.equal(report.outcome.status, 'interrupted');
  });
});
