/**
 * Every run is recorded, as a user runs it (the built CLI): the recording reads back with the
 * indexed reader, one foxglove.Log per transcript line, the pose and the room per frame; --no-record
 * leaves none; `transcript show --mcap` says where it is; `recordings list|prune` and the size cap.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { readTranscript } from '../../src/transcript/reader.js';
import { childEnv, runCli } from '../helpers/cli.js';
import { readIndexed, readStreaming, type JointState } from '../helpers/mcap.js';
import { tempDir } from '../helpers/tmp.js';

const home = () => {
  const dir = tempDir();
  return { dir, env: childEnv({ QUACKD_HOME: dir, NO_COLOR: '1' }) };
};

test('quackd run hello-world writes a recording the indexed reader reads: a Log per transcript line, the pose and room per frame', async () => {
  const { dir, env } = home();
  const run = await runCli(['run', 'hello-world', '--local'], { env });
  assert.equal(run.code, 0, run.stderr);
  const [transcript] = readdirSync(join(dir, 'transcripts'));
  const id = transcript!.replace(/\.jsonl$/, '');
  const path = join(dir, 'recordings', `${id}.mcap`);
  const back = await readIndexed(path);
  const { lines } = readTranscript(join(dir, 'transcripts', transcript!));
  const frames = lines.filter((l) => l.type === 'frame').length;
  assert.ok(frames > 0);
  assert.deepEqual(Object.fromEntries(back.schemas), { '/log': 'foxglove.Log', '/tf': 'foxglove.FrameTransforms', '/room': 'foxglove.SceneUpdate' });
  assert.deepEqual(Object.fromEntries(back.counts), { '/log': lines.length, '/tf': frames, '/room': frames });
  const logs = back.messages.get('/log') as { name: string; message: string; level: number }[];
  assert.deepEqual(
    logs.map((l) => l.name),
    lines.map((l) => l.type),
  );
  assert.match(logs.at(-1)!.message, /^success — /);
  const room = back.messages.get('/room')![0] as { entities: { id: string }[] };
  assert.deepEqual(room.entities.map((e) => e.id).sort(), ['ball', 'sofa', 'walls']);

  const show = await runCli(['transcript', 'show', 'last', '--mcap'], { env });
  assert.equal(show.code, 0, show.stderr);
  assert.equal(show.stdout.trim(), path);
  const list = await runCli(['recordings', 'list'], { env });
  assert.match(list.stdout, new RegExp(`${id} .* microduck:sim2d .*success`));
});

test('--no-record runs with no recording, and transcript show --mcap says so with exit 1', async () => {
  const { dir, env } = home();
  const run = await runCli(['run', 'hello-world', '--local', '--no-record'], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(existsSync(join(dir, 'recordings')) ? readdirSync(join(dir, 'recordings')).length : 0, 0);
  const show = await runCli(['transcript', 'show', 'last', '--mcap'], { env });
  assert.equal(show.code, 1);
  assert.match(show.stderr, /has no recording/);
});

test('recordings prune keeps each robot within its cap, its newest always; config check shows the recording settings', async () => {
  const { dir, env } = home();
  writeFileSync(join(dir, 'config.yaml'), 'recordings:\n  max_mb: 1\n');
  for (let i = 0; i < 3; i++) assert.equal((await runCli(['run', 'hello-world', '--local', '--seed', String(i)], { env })).code, 0);
  // By run id (a second, then a suffix for a later run in the same second), not by file name:
  // `x-2.mcap` sorts before `x.mcap` ('-' < '.'), and runs fast enough now share a second.
  const byRun = (a: string, b: string) => (basename(a, '.mcap') < basename(b, '.mcap') ? -1 : 1);
  const before = readdirSync(join(dir, 'recordings')).sort(byRun);
  assert.equal(before.length, 3, 'three small runs fit in 1 MB');
  const pruned = await runCli(['recordings', 'prune', '--max-mb', '0.05', '--json'], { env });
  const gone = (JSON.parse(pruned.stdout) as { pruned: { id: string }[] }).pruned.map((r) => `${r.id}.mcap`);
  assert.deepEqual(readdirSync(join(dir, 'recordings')).sort(byRun), before.filter((f) => !gone.includes(f)));
  assert.ok(gone.length >= 1 && gone.length <= 2, `${gone.length} pruned`);
  assert.ok(!gone.includes(before.at(-1)!), 'the newest is kept');
  const check = await runCli(['config', 'check'], { env });
  assert.match(check.stdout, /recordings +\S+recordings/);
  assert.match(check.stdout, /recording +every run \(--no-record skips one\), newest 1 MB kept per robot/);
});

test('a twin walk killed with SIGKILL seconds in leaves a recording the streaming reader reads to within a second of the kill', async (t) => {
  const { dir, env } = home();
  // The twin at pace realtime: 50 Hz on the wall clock, so the kill lands mid-walk as it would on a duck.
  writeFileSync(join(dir, 'config.yaml'), 'robots:\n  twin: { body: microduck:mujoco, pace: realtime }\n');
  mkdirSync(join(dir, 'ducks'));
  writeFileSync(join(dir, 'ducks', 'beat.duck'), '---\ndescription: A long beat.\nrobot: microduck:mujoco\nverbs: [walk]\nbudgets: { steps: 4, llm_calls: 6, seconds: 120 }\n---\n# Beat\n\n## Strategy\n1. walk 2\n');
  let child: ChildProcess | undefined;
  const run = runCli(['run', 'beat', '--robot', 'twin', '--local', '--provider', 'script', '--no-memory'], { env, timeoutMs: 120_000, onSpawn: (c) => (child = c) });
  const transcriptPath = () => readdirSync(join(dir, 'transcripts')).map((f) => join(dir, 'transcripts', f))[0];
  const until = Date.now() + 60_000;
  const walking = () => existsSync(join(dir, 'transcripts')) && transcriptPath() !== undefined && readTranscript(transcriptPath()!).lines.some((l) => l.type === 'tool_call');
  while (!walking() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(walking(), 'the run never started its walk');
  await new Promise((resolve) => setTimeout(resolve, 4000));
  child?.kill('SIGKILL');
  const killedAt = Date.now();
  assert.equal((await run).signal, 'SIGKILL');
  const { lines } = readTranscript(transcriptPath()!);
  assert.ok(!lines.some((l) => l.type === 'end'), 'the walk ended before the kill');
  const [file] = readdirSync(join(dir, 'recordings'));
  const back = await readStreaming(join(dir, 'recordings', file!));
  assert.equal(back.complete, false, 'no footer: the process never closed it');
  // A chunk closes at least once a second, and the loop's ticks reach the recorder every 100 ms: past that, nothing before the kill is lost.
  const SLACK_MS = 1500;
  const logs = (back.messages.get('/log') ?? []) as { name: string }[];
  const before = lines.filter((l) => Date.parse(l.t) <= killedAt - SLACK_MS);
  assert.ok(before.length >= 2, `${before.length} transcript lines before the kill`);
  assert.deepEqual(
    logs.slice(0, before.length).map((l) => l.name),
    before.map((l) => l.type),
    'every transcript line older than a second is in the recording',
  );
  const at = (m: unknown) => {
    const { sec, nanosec } = (m as JointState).header.stamp;
    return sec * 1000 + nanosec / 1e6;
  };
  for (const topic of ['/joints/measured', '/joints/applied', '/control/tick']) {
    const messages = back.messages.get(topic) ?? [];
    assert.ok(messages.length >= 100, `${messages.length} on ${topic}: seconds of a walk`);
    const lost = killedAt - at(messages.at(-1));
    t.diagnostic(`${topic}: ${messages.length} messages, the last ${Math.round(lost)} ms before the kill`);
    assert.ok(lost < SLACK_MS, `${topic} ends ${Math.round(lost)} ms before the kill`);
  }
});
