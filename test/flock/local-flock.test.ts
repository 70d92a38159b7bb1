/**
 * `quackd run flock-find-ball` as a person runs it: three microduck:sim2d ducks with the fake
 * pilot, in one process, a real LMDB memory in the test's own home. Exactly one kicks; the others
 * are stopped and quack; each member's run has its transcript and writes its episode; the flock's
 * transcript holds the decisions and links every member's run.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readTranscript } from '../../src/transcript/reader.js';
import type { TranscriptLine } from '../../src/transcript/events.js';
import { quackd } from '../helpers/quackd.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

interface MemberJson {
  name: string;
  where: string;
  runs: string[];
  outcome?: string;
  dropped?: string;
}
interface FlockJson {
  run: string;
  outcome: string;
  reason: string;
  transcript: string;
  members: MemberJson[];
}

const lines = (home: string, id: string): TranscriptLine[] => readTranscript(join(home, 'transcripts', `${id}.jsonl`)).lines;
const kicks = (ls: readonly TranscriptLine[]) => ls.filter((l) => l.type === 'verb_result' && l.verb === 'kick');

describe('a flock of three sim2d ducks, in one process', () => {
  it('exactly one kicks; the others stop and quack; episodes and the flock transcript link every run', async () => {
    const home = tempDir('quackd-flock-');
    const r = await quackd(['run', 'flock-find-ball', '--json'], { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as FlockJson;
    assert.equal(report.outcome, 'success');
    assert.deepEqual(report.members.map((m) => [m.name, m.where]), [
      ['microduck:sim2d#1', 'microduck:sim2d'],
      ['microduck:sim2d#2', 'microduck:sim2d'],
      ['microduck:sim2d#3', 'microduck:sim2d'],
    ]);

    // One kick in all the members' runs together, and it moved the ball.
    const byMember = report.members.map((m) => ({ m, runs: m.runs.map((id) => ({ id, lines: lines(home, id) })) }));
    const kicked = byMember.filter(({ runs }) => runs.some((run) => kicks(run.lines).length > 0));
    assert.equal(kicked.length, 1, `one member kicked: ${kicked.map((k) => k.m.name).join(', ')}`);
    const finder = kicked[0]!;
    assert.equal(finder.runs.length, 1, 'the finder runs its part only');
    assert.ok(kicks(finder.runs[0]!.lines).every((l) => l.type === 'verb_result' && l.ok));
    assert.match(report.reason, new RegExp(`^${finder.m.name} found the ball and kicked it`));
    // The others: their part stopped by the flock, then hello-world, which quacked.
    for (const { m, runs } of byMember.filter((b) => b !== finder)) {
      assert.equal(runs.length, 2, `${m.name}: its part, then its quack`);
      const [part, quack] = runs;
      const partEnd = part!.lines.find((l) => l.type === 'end');
      assert.equal(partEnd?.type === 'end' ? `${partEnd.outcome}: ${partEnd.reason}` : '', `interrupted: stopped by the flock (${finder.m.name} found the ball first)`);
      assert.equal(quack!.lines.find((l) => l.type === 'start' && l.duck === 'hello-world')?.type, 'start');
      assert.ok(quack!.lines.some((l) => l.type === 'verb_result' && l.verb === 'quack' && l.ok), `${m.name} quacked`);
      assert.equal(m.outcome, 'success');
    }
    // Every member is told who it is and that the others search too.
    const firstPrompt = (ls: readonly TranscriptLine[]) => ls.find((l) => l.type === 'prompt' && l.role === 'system');
    const prompt = firstPrompt(finder.runs[0]!.lines);
    assert.match(prompt?.type === 'prompt' ? prompt.content : '', new RegExp(`You are ${finder.m.name}, member \\d of 3`));

    // The flock's own transcript: the coordinator's decisions, and a link to each member run.
    const flock = lines(home, report.run);
    const start = flock.find((l) => l.type === 'start');
    assert.equal(start?.type === 'start' ? `${start.provider} ${start.model}` : '', 'coordinator first-finder-kicks');
    assert.ok(!flock.some((l) => l.type === 'request' || l.type === 'response' || l.type === 'memory'), 'the coordinator calls no pilot and remembers nothing');
    const said = flock.flatMap((l) => (l.type === 'flock' ? [l] : []));
    const linked = said.filter((l) => l.what === 'run').map((l) => l.memberRun);
    assert.deepEqual(linked.sort(), report.members.flatMap((m) => m.runs).sort());
    for (const id of linked) assert.ok(existsSync(join(home, 'transcripts', `${id ?? ''}.jsonl`)), `${id ?? ''} is on disk`);
    assert.deepEqual(said.filter((l) => l.what === 'finder').map((l) => l.member), [finder.m.name]);
    assert.deepEqual(said.filter((l) => l.what === 'allow').map((l) => `${l.member} ${l.verb ?? ''}`), [`${finder.m.name} kick`]);
    assert.equal(said.filter((l) => l.what === 'stop').length, 2);
    assert.deepEqual(said.filter((l) => l.what === 'member').map((l) => l.seed), [7, 8, 9], 'each member its own seed');
    assert.equal(flock.at(-1)?.type, 'end');

    // Each member run that reached its body wrote an episode to microduck:sim2d's memory.
    const exported = await quackd(['memory', 'export', '--robot', 'microduck:sim2d'], { env: { QUACKD_HOME: home } });
    assert.equal(exported.code, 0, exported.stderr);
    const episodes = exported.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; run?: string; text: string }).filter((e) => e.kind === 'episode');
    const stepped = byMember.flatMap(({ runs }) => runs).filter((run) => run.lines.some((l) => l.type === 'verb_result'));
    assert.deepEqual(episodes.map((e) => e.run).sort(), stepped.map((run) => run.id).sort());
    for (const { m, runs } of byMember) assert.ok(runs.some((run) => episodes.some((e) => e.run === run.id)), `${m.name} has an episode`);
    assert.ok(!episodes.some((e) => e.run === report.run), 'the coordinator writes no episode');
  });

  it('prints the members, the decisions and one outcome line; quackd ducks lists the flock', async () => {
    const home = tempDir('quackd-flock-');
    const r = await quackd(['run', 'flock-find-ball', '--seed', '3'], { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const out = r.stdout.split('\n');
    assert.match(out[0] ?? '', /^flock-find-ball · plan first-finder-kicks · 3 members · pilot fake · each 20 steps, 30 calls, 60 s · flock 90 s$/);
    assert.match(r.stdout, /^ {2}microduck:sim2d#1 {2}on microduck:sim2d · seed 3$/m);
    assert.match(r.stdout, /^ {2}microduck:sim2d#\d {2}finder: saw the ball \(.*ball (found )?at bearing/m);
    assert.match(r.stdout, /^ {2}microduck:sim2d#\d {2}kick allowed \(the finder's\)$/m);
    assert.equal(out.filter((l) => / {2}quacks \(hello-world\)$/.test(l)).length, 2);
    assert.match(out.at(-2) ?? '', /^OK success — microduck:sim2d#\d found the ball and kicked it: .* · 3 members, \d+\.\d s · transcript \d{8}-\d{6}-flock-find-ball$/);

    const ducks = await quackd(['ducks'], { env: { QUACKD_HOME: home } });
    assert.match(ducks.stdout, /^flock-find-ball +starter +Find the ball as a flock of three.* \(flock of 3, first-finder-kicks\)$/m);
    const listed = JSON.parse((await quackd(['ducks', '--json'], { env: { QUACKD_HOME: home } })).stdout) as { name: string; flock?: { members: string[]; plan: string } }[];
    assert.deepEqual(listed.find((d) => d.name === 'flock-find-ball')?.flock, { members: ['microduck:sim2d#1', 'microduck:sim2d#2', 'microduck:sim2d#3'], plan: 'first-finder-kicks' });
  });

  it('refuses what a flock cannot take, in one line, before anything runs', async () => {
    const home = tempDir('quackd-flock-');
    mkdirSync(join(home, 'ducks'));
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\n  bench: { body: microduck:jsonrpc, port: /dev/null }\nmqtt: false\n');
    const starter = readFileSync(new URL('../../src/ducks/starters/flock-find-ball.duck', import.meta.url), 'utf8');
    const write = (name: string, members: string) => writeFileSync(join(home, 'ducks', `${name}.duck`), starter.replace(/members: \[.*\]/, `members: ${members}`));
    const env = { QUACKD_HOME: home };
    write('typo', '[den, dne]');
    write('camera', '[den, bench]');
    write('far', '[den, remote:quackd-hall/hall-duck]');
    const cases: [string[], RegExp][] = [
      [['run', 'typo'], /^quackd: .*typo\.duck:6: flock\.members: unknown robot "dne" \(did you mean "den"\?\)/],
      [['run', 'camera'], /^quackd: .*camera\.duck:8: verbs: search_scan needs a camera: setting \(the bridge carries no camera\) on microduck:jsonrpc/],
      [['run', 'far'], /^quackd: .*far\.duck:6: flock\.members: remote:quackd-hall\/hall-duck is reached over MQTT, but mqtt: is off in /],
      [['run', 'flock-find-ball', '--robot', 'den'], /^quackd: run: --robot: flock-find-ball is a flock, and its robots are its flock\.members/],
      [['run', 'flock-find-ball', '--port', '/dev/ttyACM0'], /^quackd: run: --port is for one robot/],
      [['run', 'far', '--dry-run'], /^quackd: run: --dry-run cannot reach remote:quackd-hall\/hall-duck/],
    ];
    for (const [args, expected] of cases) {
      const r = await quackd(args, { env });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, expected);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    assert.ok(!existsSync(join(home, 'transcripts')), 'nothing ran: no transcript was even opened');
  });

  it('a member written as a key that means a robot of the fleet says which; a key two robots share is refused naming them', async () => {
    const home = tempDir('quackd-flock-');
    mkdirSync(join(home, 'ducks'));
    const starter = readFileSync(new URL('../../src/ducks/starters/flock-find-ball.duck', import.meta.url), 'utf8');
    const write = (members: string) => writeFileSync(join(home, 'ducks', 'pair.duck'), starter.replace(/members: \[.*\]/, `members: ${members}`));
    write('[microduck:sim2d]');
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\n');
    const r = await quackd(['run', 'pair', '--seed', '3'], { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
    assert.match(r.stdout, /^ {2}microduck:sim2d {2}on den \(microduck:sim2d\) · seed 3$/m, r.stdout + r.stderr);
    // Written as the key and as its name, den would be asked to run twice at once: refused before anything runs.
    write('[microduck:sim2d, den]');
    const twice = await quackd(['run', 'pair'], { env: { QUACKD_HOME: home } });
    assert.equal(twice.code, 2, twice.stdout);
    assert.match(twice.stderr, /^quackd: .*pair\.duck:6: flock\.members: den and microduck:sim2d are one robot, den \(microduck:sim2d\): name each robot once/);
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\n  hall: { body: microduck:sim2d }\n');
    const shared = await quackd(['run', 'pair'], { env: { QUACKD_HOME: home } });
    assert.equal(shared.code, 2, shared.stdout);
    assert.match(shared.stderr, /^quackd: .*pair\.duck:6: flock\.members: microduck:sim2d is the body of 2 robots of the fleet \(den, hall\): name one of them/);
    assert.equal(shared.stderr.trim().split('\n').length, 1, shared.stderr);
  });

  it('refuses local members a running quackd serve holds: two controllers, and quackd stop would not reach them', async () => {
    const home = tempDir('quackd-flock-');
    mkdirSync(join(home, 'ducks'));
    const starter = readFileSync(new URL('../../src/ducks/starters/flock-find-ball.duck', import.meta.url), 'utf8');
    writeFileSync(join(home, 'ducks', 'pair.duck'), starter.replace(/members: \[.*\]/, 'members: [den, hall]'));
    const served = await serve(home, 'robots:\n  den: { body: microduck:sim2d }\n  hall: { body: microduck:sim2d }\nmqtt: false\n');
    try {
      const r = await quackd(['run', 'pair'], { env: { QUACKD_HOME: home } });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.equal(r.stdout, '', 'nothing ran');
      assert.match(r.stderr, new RegExp(`^quackd: run: den, hall are held by quackd serve \\(pid ${String(served.child.pid)}\\), and pair would drive them from here, out of reach of 'quackd stop' \\(in flock\\.members, name each remote:den \\(the service runs it, over MQTT\\), stop the service, or add --local\\)\n$`));
      const status = await quackd(['status', '--json'], { env: { QUACKD_HOME: home } });
      assert.doesNotMatch(status.stdout, /"runId"/, 'the service ran nothing either');
      // Asked for by name, it runs here (the person chose two controllers).
      const here = await quackd(['run', 'pair', '--local', '--json'], { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
      assert.equal(here.code, 0, here.stdout + here.stderr);
    } finally {
      served.child.kill('SIGTERM');
      await served.exited.catch(() => undefined);
    }
  });
});

