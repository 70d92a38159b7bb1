/**
 * Every run is recorded, as a user runs it (the built CLI): the recording reads back with the
 * indexed reader, one foxglove.Log per transcript line, the pose and the room per frame; --no-record
 * leaves none; `transcript show --mcap` says where it is; `recordings list|prune` and the size cap.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readTranscript } from '../../src/transcript/reader.js';
import { childEnv, runCli } from '../helpers/cli.js';
import { readIndexed, readStreaming } from '../helpers/mcap.js';
import { startLlmServer } from '../helpers/llm-server.js';
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
  const before = readdirSync(join(dir, 'recordings')).sort();
  assert.equal(before.length, 3, 'three small runs fit in 1 MB');
  const pruned = await runCli(['recordings', 'prune', '--max-mb', '0.05', '--json'], { env });
  const gone = (JSON.parse(pruned.stdout) as { pruned: { id: string }[] }).pruned.map((r) => `${r.id}.mcap`);
  assert.deepEqual(readdirSync(join(dir, 'recordings')).sort(), before.filter((f) => !gone.includes(f)));
  assert.ok(gone.length >= 1 && gone.length <= 2, `${gone.length} pruned`);
  assert.ok(!gone.includes(before.at(-1)!), 'the newest is kept');
  const check = await runCli(['config', 'check'], { env });
  assert.match(check.stdout, /recordings +\S+recordings/);
  assert.match(check.stdout, /recording +every run \(--no-record skips one\), newest 1 MB kept per robot/);
});

test('a run killed with SIGKILL mid-run leaves a recording the streaming reader reads (no summary: the process never closed it)', async (t) => {
  const server = await startLlmServer();
  t.after(() => server.close());
  server.reply({ kind: 'hang' });
  const { dir, env } = home();
  let child: ChildProcess | undefined;
  const run = runCli(['run', 'hello-world', '--local', '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--timeout', '60'], { env: { ...env, OPENAI_API_KEY: 'k' }, onSpawn: (c) => (child = c) });
  const until = Date.now() + 30_000;
  while (server.requests.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(server.requests.length > 0, 'the pilot never asked the model');
  child?.kill('SIGKILL');
  assert.equal((await run).signal, 'SIGKILL');
  const [file] = readdirSync(join(dir, 'recordings'));
  const back = await readStreaming(join(dir, 'recordings', file!));
  assert.equal(back.complete, false);
  // The log lines so far sit in the chunk being filled, lost with the process: what reads is the header and every closed chunk.
  assert.ok((back.messages.get('/log') ?? []).length <= readTranscript(join(dir, 'transcripts', file!.replace(/\.mcap$/, '.jsonl'))).lines.length);
});
