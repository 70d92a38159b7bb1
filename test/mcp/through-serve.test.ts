/**
 * serve-mcp while a `quackd serve` runs: everything goes through the service's control socket
 * (the service holds the robots and its store), never a second opening of either. The fleet is
 * the service's, a robot_verb session is a run of the service (it shows in its status, and its
 * gate is asked through elicitation over the socket), notes land in the service's store, and an
 * MCP client that goes stops its session's run there.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { writeDuck } from '../helpers/ducks.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { isError, resourceText, runIdIn, serveMcpStdio, text, transcript, type Served } from './client.js';

describe('serve-mcp through a running quackd serve', () => {
  const home = tempDir('quackd-mcp-serve-');
  let ducks: string;
  let serving: Serving;
  let served: Served;

  before(async () => {
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\n');
    ducks = join(home, 'ducks');
    mkdirSync(ducks);
    writeDuck(ducks, 'careful', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 6, seconds: 60 }');
    serving = await startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(createFakeProvider()) });
    served = await serveMcpStdio([], { QUACKD_HOME: home });
  });
  after(async () => {
    await served?.close();
    await serving?.stop('the test');
  });

  it('lists the service\'s fleet and keeps notes in the service\'s store', async () => {
    const list = await served.client.callTool({ name: 'robot_list', arguments: {} });
    assert.equal(text(list), 'den · microduck:sim2d · idle');
    const saved = await served.client.callTool({ name: 'robot_remember', arguments: { text: 'the den has a deep rug' } });
    assert.equal(isError(saved), false, text(saved));
    const answer = await serving.service.memory('den', { action: 'entries' });
    assert.deepEqual(answer.action === 'entries' ? answer.entries.map((e) => [e.text, e.source]) : [], [['the den has a deep rug', 'mcp']]);
    const found = await served.client.callTool({ name: 'robot_recall', arguments: { query: 'rug' } });
    assert.match(text(found), /"the den has a deep rug"/);
  });

  it('runs a robot_verb session as a run of the service, observed through it', async () => {
    const quack = await served.client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
    assert.equal(isError(quack), false, text(quack));
    assert.match(text(quack), /^session started on den \(microduck:sim2d\): duck mcp/m);
    const runId = runIdIn(text(quack));
    const status = serving.service.status('den');
    assert.equal(status.activity, 'running');
    assert.equal(status.run?.runId, runId, 'the service runs the session');
    const seen = await served.client.callTool({ name: 'robot_observe', arguments: {} });
    assert.match(text(seen), new RegExp(`after the last verb of this session \\(transcript ${runId}\\)`));
    const kick = await served.client.callTool({ name: 'robot_verb', arguments: { verb: 'look_around' } });
    assert.equal(isError(kick), true);
    assert.match(text(kick), /^refused — look_around: not in this duck's verbs/m);
    const done = await served.client.callTool({ name: 'robot_verb', arguments: { verb: 'declare_success', args: { reason: 'quacked' } } });
    assert.match(text(done), /^the session ended: success/m);
    assert.equal(serving.service.status('den').lastOutcome?.runId, runId);
    const lines = transcript(home, runId);
    assert.deepEqual(lines.filter((l) => l.type === 'verb_result').map((l) => (l.type === 'verb_result' ? l.verb : '')), ['quack']);
    const start = lines.find((l) => l.type === 'start');
    assert.deepEqual(start?.type === 'start' ? [start.provider, start.model] : [], ['mcp', 'quackd-test 0.0.1']);
    // Between runs, the service observes the robot.
    const between = await served.client.callTool({ name: 'robot_observe', arguments: { robot: 'den' } });
    assert.match(text(between), /^den \(microduck:sim2d\) now:\ncamera: /);
  });

  it('runs a duck in the service with progress per step', async () => {
    const progress: number[] = [];
    const run = await served.client.callTool({ name: 'robot_run', arguments: { duck: 'hello-world' } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    assert.equal(isError(run), false, text(run));
    assert.match(text(run), /^success — I quacked hello\./m);
    assert.deepEqual(progress, [1]);
    assert.equal(serving.service.status('den').lastOutcome?.runId, runIdIn(text(run)));
    const runs = await served.client.readResource({ uri: 'quackd://transcripts' });
    assert.ok(JSON.stringify(runs.contents).includes(runIdIn(text(run))));
  });

  it('names a duck it does not know, its hint offering no path (the service reads none for a client)', async () => {
    const run = await served.client.callTool({ name: 'robot_run', arguments: { duck: 'helo-world' } });
    assert.equal(isError(run), true);
    assert.equal(text(run), `no duck named "helo-world" (did you mean "hello-world"?) ('quackd ducks' lists them; a run on request takes a name, never a path)`);
  });

  it('a robot_run gate answered through elicitation is the person\'s, in the service\'s transcript', async () => {
    const asked: string[] = [];
    const person = await serveMcpStdio([], { QUACKD_HOME: home }, { elicit: (m) => (asked.push(m), { action: 'accept', content: { confirm: true } }) });
    try {
      const run = await person.client.callTool({ name: 'robot_run', arguments: { duck: 'careful' } });
      assert.equal(isError(run), false, text(run));
      assert.equal(asked.length, 1, 'the person was asked');
      const gates = transcript(home, runIdIn(text(run))).filter((l) => l.type === 'gate');
      assert.deepEqual(gates.map((g) => (g.type === 'gate' ? [g.allowed, g.how] : [])), [[true, 'person']]);
    } finally {
      await person.close();
    }
  });

  it('asks a gate of the service\'s run through elicitation, over the socket', async () => {
    const asked: string[] = [];
    const careful = await serveMcpStdio(['--duck', join(ducks, 'careful.duck')], { QUACKD_HOME: home }, { elicit: (m) => (asked.push(m), { action: 'accept', content: { confirm: true } }) });
    try {
      const quack = await careful.client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
      assert.equal(isError(quack), false, text(quack));
      assert.deepEqual(asked, ['den: 1 quack — confirm?']);
      await careful.client.callTool({ name: 'robot_verb', arguments: { verb: 'declare_failure', args: { reason: 'done' } } });
      const gates = transcript(home, runIdIn(text(quack))).filter((l) => l.type === 'gate');
      assert.deepEqual(gates.map((g) => (g.type === 'gate' ? [g.allowed, g.how] : [])), [[true, 'person']]);
    } finally {
      await careful.close();
    }
  });

  it("a gate the client fails to ask is shut in the service's run and recorded as unasked, over the socket too", async () => {
    const failing = await serveMcpStdio(['--duck', join(ducks, 'careful.duck')], { QUACKD_HOME: home }, { elicit: () => Promise.reject(new Error('the dialog crashed')) });
    try {
      const quack = await failing.client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
      assert.equal(isError(quack), true, text(quack));
      await failing.client.callTool({ name: 'robot_verb', arguments: { verb: 'declare_failure', args: { reason: 'done' } } });
      const gates = transcript(home, runIdIn(text(quack))).filter((l) => l.type === 'gate');
      assert.deepEqual(gates.map((g) => (g.type === 'gate' ? [g.allowed, g.how] : [])), [[false, 'unasked']]);
    } finally {
      await failing.close();
    }
  });

  it("reads a long run's transcript as a resource: its beginning and end, the middle said left out, the service unmoved", async () => {
    // A run with frames writes tens of MB; this one 6 MB, a frame a line. Over the socket a reply is one line of at most 1 MiB.
    const id = '20991231-235959-long';
    const at = (i: number) => new Date(Date.UTC(2099, 11, 31, 23, 0, i / 1000)).toISOString();
    const frames = Array.from({ length: 12_000 }, (_, i) => JSON.stringify({ t: at(i + 1), type: 'frame', step: i + 1, state: { duck: { x: i / 1000, y: 0, heading_deg: 0 }, pad: 'x'.repeat(420) } }));
    const lines = [JSON.stringify({ t: at(0), type: 'start', run_id: id, duck: 'long', body: 'microduck:sim2d' }), ...frames, JSON.stringify({ t: at(12_001), type: 'end', outcome: 'success', reason: 'walked far' })];
    mkdirSync(join(home, 'transcripts'), { recursive: true });
    writeFileSync(join(home, 'transcripts', `${id}.jsonl`), `${lines.join('\n')}\n`);
    const read = resourceText(await served.client.readResource({ uri: `quackd://transcript/${id}` }));
    assert.ok(read.length < 1_000_000, `${read.length} characters in one answer`);
    const got = read.split('\n').map((l) => JSON.parse(l) as { type: string; step?: number; lines?: number; reason?: string });
    assert.equal(got[0]?.type, 'start');
    assert.deepEqual(got.at(-1), JSON.parse(lines.at(-1)!), 'the end as written');
    const gaps = got.filter((l) => l.type === 'left_out');
    assert.equal(gaps.length, 1);
    const steps = got.filter((l) => l.type === 'frame').map((l) => l.step ?? 0);
    assert.equal(gaps[0]?.lines, lines.length - 2 - steps.length, 'every line not shown is counted');
    const gap = got.indexOf(gaps[0]!);
    const last = got.length - gap - 2;
    assert.deepEqual(steps, [...Array.from({ length: gap - 1 }, (_, i) => i + 1), ...Array.from({ length: last }, (_, i) => 12_000 - last + i + 1)], 'the first frames, then the last, in order');
    assert.match(gaps[0]?.reason ?? '', new RegExp(`quackd transcript show ${id} has every one$`));
    assert.match(text(await served.client.callTool({ name: 'robot_list', arguments: {} })), /^den · microduck:sim2d · idle/, 'the service answers on');
  });

  it('stops its session\'s run in the service when the MCP client goes', async () => {
    const other = await serveMcpStdio([], { QUACKD_HOME: home });
    const quack = await other.client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
    const runId = runIdIn(text(quack));
    assert.equal(serving.service.status('den').run?.runId, runId);
    await other.close();
    const run = serving.service.status('den');
    assert.equal(run.run, undefined, 'the robot is free again');
    assert.deepEqual([run.lastOutcome?.runId, run.lastOutcome?.status, run.lastOutcome?.reason], [runId, 'interrupted', 'stopped by the MCP client closing']);
  });

  it('an emergency stop through the service ends the session, and the next answer says so', async () => {
    const quack = await served.client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
    const runId = runIdIn(text(quack));
    const ended = new Promise<void>((resolve) => {
      const off = serving.service.events.on('run:end', (e) => (e.runId === runId ? (off(), resolve()) : undefined));
    });
    await serving.service.stop('den');
    await ended;
    // Whether the stop reached serve-mcp before this call or during it, the answer tells how the session ended.
    const next = await served.client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
    assert.match(text(next), new RegExp(`transcript ${runId}\\)? ended between calls: interrupted — stopped by an emergency stop|the session ended: interrupted — stopped by an emergency stop · 1 step, \\d+ calls · transcript ${runId}`));
    const again = await served.client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
    assert.equal(isError(again), false, text(again));
    await served.client.callTool({ name: 'robot_verb', arguments: { verb: 'declare_failure', args: { reason: 'done' } } });
  });

  it('refuses --memory-dir while the service keeps the memory, in one line', async () => {
    const r = await quackd(['serve-mcp', '--memory-dir', join(home, 'elsewhere')], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^quackd: serve-mcp: --memory-dir is for a server that holds the robots itself, and quackd serve \(pid \d+\) keeps its robots' memory \(leave --memory-dir out, or stop the service\)\n$/);
  });
});
