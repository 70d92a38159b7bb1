/**
 * A member that fails or hangs does not hang the flock. Members here are real local runs on
 * microduck:sim2d; the misbehaving one flies the OpenAI provider against a real HTTP server on
 * 127.0.0.1 that fails every call, or never answers. A member that ignores its stop altogether
 * (a Pi that froze) is a Member of the test's own, since no real one does that on cue.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import type { Duck } from '../../src/ducks/duck.js';
import { findDuck } from '../../src/ducks/find.js';
import { parseDuck } from '../../src/ducks/parse.js';
import { LocalMember, type Member, type MemberListener } from '../../src/flock/member.js';
import { planFor } from '../../src/flock/plan.js';
import { runFlock, type FlockLine, type FlockReport } from '../../src/flock/run-flock.js';
import type { FlockSpec } from '../../src/flock/spec.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { createOpenAiProvider } from '../../src/pilot/providers/openai.js';
import type { Provider } from '../../src/pilot/providers/provider.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { noTtyGate } from '../../src/safety/gate.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { tempDir } from '../helpers/tmp.js';

const STARTER = readFileSync(new URL('../../src/ducks/starters/flock-find-ball.duck', import.meta.url), 'utf8');

function flockDuck(members: string, seconds?: number): Duck & { flock: FlockSpec } {
  const text = STARTER.replace(/ {2}members: \[.*\]/, `  members: ${members}${seconds !== undefined ? `\n  seconds: ${seconds}` : ''}`);
  const duck = parseDuck(text, 'test-flock.duck', 'test-flock');
  assert.ok(duck.flock !== undefined);
  return { ...duck, flock: duck.flock };
}

const openai = (server: LlmServer): Provider => createOpenAiProvider({ model: 'm', baseUrl: `${server.url}/v1`, apiKey: 'no-key', keyHint: 'none', policy: { retries: 0, timeoutMs: 60_000 } });

/** A flock of local sim2d members, each with the pilot `pilots[i]` makes; `extra` members join them. */
async function fly(duck: Duck & { flock: FlockSpec }, pilots: readonly (() => Provider)[], options: { extra?: readonly Member[]; graceMs?: number } = {}): Promise<{ report: FlockReport; said: FlockLine[]; dir: string }> {
  const dir = tempDir('quackd-flock-hang-');
  const runtime = createRuntime({ transcriptsDir: dir });
  after(() => runtime.stop());
  const local = duck.flock.members.slice(0, pilots.length).map((m, i) => {
    const robot = runtime.robot(m.ref.robot);
    return new LocalMember(m.name, { runtime, robot: { ...robot, name: m.name }, pilot: () => Promise.resolve(pilots[i]!()), dryRun: false });
  });
  const members = [...local, ...(options.extra ?? [])];
  const report = await runFlock({
    duck,
    members,
    plan: planFor(duck.flock.plan, members.map((m) => m.name)),
    quackDuck: findDuck('hello-world'),
    seed: 7,
    transcriptsDir: dir,
    gate: noTtyGate,
    dryRun: false,
    signal: new AbortController().signal,
    ...(options.graceMs !== undefined ? { stopGraceMs: options.graceMs } : {}),
  });
  const said = readTranscript(report.transcriptPath).lines.flatMap((l) => (l.type === 'flock' ? [l] : []));
  return { report, said, dir };
}

const about = (said: readonly FlockLine[], member: string) => said.filter((l) => l.member === member).map((l) => `${l.what}${l.outcome !== undefined ? ` ${l.outcome}` : ''}${l.reason !== undefined ? `: ${l.reason}` : ''}`);

describe('a member that fails or hangs does not hang the flock', () => {
  it('a member whose pilot fails every call ends in error; the flock goes on, and alone it ends in error', async () => {
    const server = await startLlmServer({ fallback: () => ({ kind: 'json', status: 500, body: { error: { message: 'model crashed' } } }) });
    after(() => server.close());
    const pair = await fly(flockDuck('[microduck:sim2d, microduck:sim2d]'), [createFakeProvider, () => openai(server)]);
    assert.equal(pair.report.outcome.status, 'success', pair.report.outcome.reason);
    assert.match(pair.report.outcome.reason, /^microduck:sim2d#1 found the ball and kicked it/);
    const failing = pair.report.members.find((m) => m.name === 'microduck:sim2d#2');
    assert.equal(failing?.outcome?.status, 'error', JSON.stringify(failing));
    assert.ok(server.requests.length > 0, 'the failing pilot was asked');

    const alone = await fly(flockDuck('[microduck:sim2d]'), [() => openai(server)]);
    assert.equal(alone.report.outcome.status, 'error');
    assert.match(alone.report.outcome.reason, /^no member could search: microduck:sim2d: /);
  });

  it("a member whose pilot never answers is stopped, and stopped again by the flock's clock while it quacks; the flock ends", async () => {
    const server = await startLlmServer({ fallback: () => ({ kind: 'hang' }) });
    after(() => server.close());
    const { report, said } = await fly(flockDuck('[microduck:sim2d, microduck:sim2d]', 3), [createFakeProvider, () => openai(server)]);
    assert.equal(report.outcome.status, 'success', report.outcome.reason);
    const hung = about(said, 'microduck:sim2d#2');
    assert.deepEqual(
      hung.filter((l) => !l.startsWith('run') && !l.startsWith('member')),
      ['stop: microduck:sim2d#1 found the ball first', 'quack', "stop: the flock's 3 s ran out"],
      hung.join('\n'),
    );
    const ends = hung.filter((l) => l.startsWith('member_end'));
    assert.equal(ends.length, 2, hung.join('\n'));
    assert.match(ends[1] ?? '', /^member_end interrupted: stopped by the flock \(the flock's 3 s ran out\)$/);
    // Its quack was asked of the model that never answers, and that call was cancelled.
    const quackRun = report.members.find((m) => m.name === 'microduck:sim2d#2')?.runs[1] ?? '';
    const quack = readTranscript(report.transcriptPath.replace(report.runId, quackRun)).lines;
    assert.ok(quack.some((l) => l.type === 'request'), 'the quack asked its pilot');
    assert.ok(!quack.some((l) => l.type === 'response'), 'and got no answer');
  });

  it('a member that ignores its stop is dropped once the grace has passed', async () => {
    let stops = 0;
    const frozen: Member = {
      name: 'frozen',
      where: () => 'a Pi that froze',
      seeded: () => false,
      open: (l: MemberListener) => {
        listener = l;
        return Promise.resolve(undefined);
      },
      start: () => listener?.started({ runId: 'frozen-run-1', duck: 'test-flock' }),
      stop: () => void (stops += 1),
      close: () => Promise.resolve(),
    };
    let listener: MemberListener | undefined;
    const { report, said } = await fly(flockDuck('[microduck:sim2d, remote:frozen]'), [createFakeProvider], { extra: [frozen], graceMs: 300 });
    assert.equal(report.outcome.status, 'success', report.outcome.reason);
    assert.deepEqual(about(said, 'frozen'), ['member', 'run', 'stop: microduck:sim2d found the ball first', 'drop: did not end within 0.3 s of its stop']);
    assert.equal(report.members.find((m) => m.name === 'frozen')?.dropped, 'did not end within 0.3 s of its stop');
    assert.ok(stops >= 1, 'it was told to stop');
  });
});
