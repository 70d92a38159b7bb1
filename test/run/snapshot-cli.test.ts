/**
 * `snapshot` as a user runs it: the built CLI flies a duck that allows it on microduck:sim2d with
 * `camera: synthetic`, against the loopback LLM server. A pilot that reads pictures receives the
 * frame in its API's wire format (asserted on the request bodies), shrunk to pilot.image_width;
 * the same JPEG is saved beside the transcript, named from the verb's line, never inline; the
 * bytes sent are counted over every request; a words-only pilot gets the detector's words and is
 * told so; the run's recording keeps it on /camera; --dry-run still looks; a robot without a camera is not offered the verb.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import jpeg from 'jpeg-js';
import type { TranscriptLine } from '../../src/transcript/events.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { readIndexed } from '../helpers/mcap.js';
import { anthropicMessage, openaiToolCalls, startLlmServer, toolUse, type LlmServer } from '../helpers/llm-server.js';
import { lookDuck } from '../helpers/ducks.js';
import { tempDir } from '../helpers/tmp.js';

const KEY = 'quackd-local-Key-5e1f0c3a9b72d4';

const DUCK = lookDuck('snapshot, to see what is in front of you', 'declare success and say what you saw');

interface Run extends CliResult {
  readonly home: string;
  readonly lines: TranscriptLine[];
  readonly raw: string;
  readonly runId: string;
}

async function run(server: LlmServer, provider: 'openai' | 'anthropic', config: { pilot?: string; camera?: boolean }, extra: readonly string[] = []): Promise<Run> {
  const home = tempDir('quackd-snapshot-');
  const camera = config.camera === false ? '' : '\n    camera: synthetic';
  writeFileSync(join(home, 'config.yaml'), `robots:\n  den:\n    body: microduck:sim2d${camera}\n${config.pilot !== undefined ? `pilot:\n${config.pilot}\n` : ''}`);
  writeFileSync(join(home, 'look.duck'), DUCK);
  const base = provider === 'openai' ? `${server.url}/v1` : server.url;
  const r = await runCli(['run', join(home, 'look.duck'), '--robot', 'den', '--provider', provider, '--base-url', base, '--model', 'm', '--no-memory', ...extra], {
    env: { QUACKD_HOME: home, OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY },
    timeoutMs: 60_000,
  });
  const dir = join(home, 'transcripts');
  const file = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith('.jsonl')) : undefined;
  assert.ok(file !== undefined, `a transcript (${r.stdout}${r.stderr})`);
  const raw = readFileSync(join(dir, file), 'utf8');
  return { ...r, home, raw, runId: file.slice(0, -'.jsonl'.length), lines: raw.trim().split('\n').map((l) => JSON.parse(l) as TranscriptLine) };
}

const ofType = <T extends TranscriptLine['type']>(r: Run, type: T) => r.lines.filter((e): e is Extract<TranscriptLine, { type: T }> => e.type === type);

/** Every picture's base64 in a recorded request body, in either wire format. */
function picturesIn(body: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    const url = (o['image_url'] as { url?: unknown } | undefined)?.url;
    if (o['type'] === 'image_url' && typeof url === 'string') found.push(url.replace(/^data:image\/jpeg;base64,/, ''));
    const source = o['source'] as { type?: unknown; data?: unknown } | undefined;
    if (o['type'] === 'image' && source?.type === 'base64' && typeof source.data === 'string') found.push(source.data);
    Object.values(o).forEach(walk);
  };
  walk(body);
  return found;
}

/** The snapshot's saved file, as its transcript line names it, checked to be a JPEG `width` wide. */
function savedPicture(r: Run, width: number): Buffer {
  const result = ofType(r, 'verb_result').find((e) => e.verb === 'snapshot');
  assert.ok(result !== undefined, r.stdout + r.stderr);
  assert.equal(result.data?.['picture_file'], `${r.runId}/snapshot-1.jpg`);
  const path = join(r.home, 'transcripts', r.runId, 'snapshot-1.jpg');
  assert.ok(existsSync(path), 'the picture is saved beside the transcript');
  const bytes = readFileSync(path);
  const decoded = jpeg.decode(bytes, { useTArray: true });
  assert.equal(decoded.width, width);
  assert.equal(decoded.height, (width * 3) / 4);
  assert.equal(result.data?.['jpeg_bytes'], bytes.length);
  // Pictures never go inline into the transcript.
  assert.ok(!r.raw.includes(bytes.toString('base64').slice(0, 200)));
  return bytes;
}

/** The end line counts the bytes of every picture in every request the server received. */
function assertCounted(r: Run, server: LlmServer, shown: number): void {
  const sent = server.requests.flatMap((q) => picturesIn(q.body)).reduce((sum, b64) => sum + b64.length, 0);
  assert.ok(sent > 0);
  assert.deepEqual(ofType(r, 'end')[0]?.pictures, { shown, bytes: sent });
  assert.deepEqual(ofType(r, 'request').map((q) => q.pictureBytes ?? 0), server.requests.map((q) => picturesIn(q.body).reduce((s, b) => s + b.length, 0)));
  assert.match(r.stdout, new RegExp(`${shown} pictures? \\(${(sent / 1000).toFixed(1)} kB sent\\)`));
}

describe('quackd run: snapshot on microduck:sim2d with camera: synthetic', () => {
  let server: LlmServer;
  before(async () => {
    server = await startLlmServer({ apiKey: KEY });
  });
  after(async () => server.close());
  beforeEach(() => void server.requests.splice(0));

  const openaiCall = (name: string, args: string) => openaiToolCalls([{ name, arguments: args }]);

  it('OpenAI-compatible with pilot.images: the frame as a data URI, image_width wide, saved and counted', async () => {
    server.reply(openaiCall('snapshot', '{}'), openaiCall('turn', '{"degrees": 30}'), openaiCall('declare_success', '{"reason": "saw it"}'));
    const r = await run(server, 'openai', { pilot: '  images: true\n  image_width: 320' });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {5}snapshot +picture 320×240, [\d.]+ kB; camera: no ball in view$/m);
    const tools = (server.requests[0]?.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    assert.ok(tools.includes('snapshot'));
    const bytes = savedPicture(r, 320);
    // The second request carries the very bytes saved, right after the tool result; the third again.
    const sent = picturesIn(server.requests[1]?.body);
    assert.deepEqual(sent, [bytes.toString('base64')]);
    assert.equal(picturesIn(server.requests[2]?.body).length, 1);
    // Not a step: the turn is step 1.
    assert.deepEqual(ofType(r, 'verb_result').map((e) => [e.verb, e.step]), [['snapshot', undefined], ['turn', 1]]);
    assertCounted(r, server, 1);
  });

  it('Anthropic: the frame as an image block in the tool_result, 512 px wide by default', async () => {
    server.reply(anthropicMessage([toolUse('snapshot', {})]), anthropicMessage([toolUse('declare_success', { reason: 'saw it' })]));
    const r = await run(server, 'anthropic', {});
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const bytes = savedPicture(r, 512);
    const messages = (server.requests[1]?.body as { messages: { content: { type: string; content?: unknown }[] | string }[] }).messages;
    const results = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result');
    assert.deepEqual((results[0]?.content as unknown[])[1], { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: bytes.toString('base64') } });
    assertCounted(r, server, 1);
    // The run's recording holds the same picture on /camera, as Foxglove's Image panel reads it.
    const recording = await readIndexed(join(r.home, 'recordings', `${r.runId}.mcap`));
    assert.equal(recording.schemas.get('/camera'), 'foxglove.CompressedImage');
    const frames = recording.messages.get('/camera') as { format: string; frame_id: string; data: string }[] | undefined;
    assert.deepEqual(frames?.map((f) => [f.format, f.frame_id, f.data]), [['jpeg', 'camera', bytes.toString('base64')]]);
  });

  it('a pilot that reads words only gets the detector\'s words, is told a picture was taken, and is sent none', async () => {
    server.reply(openaiCall('turn', '{"degrees": 30}'), openaiCall('snapshot', '{}'), openaiCall('declare_success', '{"reason": "saw it"}'));
    const r = await run(server, 'openai', {});
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(server.requests.flatMap((q) => picturesIn(q.body)).length, 0);
    const tool = (server.requests[2]?.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool').at(-1);
    assert.match(String(tool?.content), /^ok — picture 512×384, [\d.]+ kB; camera: ball at bearing 5° left, 3\.27 m \(332 px\) \(a picture was taken too; this pilot reads words only\)$/);
    savedPicture(r, 512);
    assert.equal(ofType(r, 'end')[0]?.pictures, undefined);
    assert.doesNotMatch(r.stdout, /kB sent/);
  });

  it('--dry-run still looks: looking moves nothing', async () => {
    server.reply(anthropicMessage([toolUse('snapshot', {})]), anthropicMessage([toolUse('declare_success', { reason: 'saw it' })]));
    const r = await run(server, 'anthropic', {}, ['--dry-run']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(ofType(r, 'verb_result')[0]?.invented, false);
    savedPicture(r, 512);
    assert.equal(picturesIn(server.requests[1]?.body).length, 1);
  });

  it('a robot without a camera is not offered snapshot, and a call of it is refused with why', async () => {
    server.reply(openaiCall('snapshot', '{}'), openaiCall('declare_failure', '{"reason": "blind"}'));
    const r = await run(server, 'openai', { camera: false });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const tools = (server.requests[0]?.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    assert.ok(!tools.includes('snapshot'));
    assert.match(r.stdout, /snapshot +\(refused: microduck:sim2d has no camera here \(a camera: setting in the robot's config gives it one\)\)/);
    assert.ok(!existsSync(join(r.home, 'transcripts', r.runId)));
  });
});

describe('quackd do snapshot', () => {
  it('takes one picture by hand on a robot with a camera, and says why not on one without', async () => {
    const home = tempDir('quackd-do-snapshot-');
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den:\n    body: microduck:sim2d\n    camera: synthetic\n  bare:\n    body: microduck:sim2d\n');
    const r = await runCli(['do', 'snapshot', '--robot', 'den', '--local'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {5}snapshot +picture 512×384, [\d.]+ kB; camera: no ball in view$/m);
    const runId = /transcript (\S+)$/m.exec(r.stdout)?.[1] ?? '';
    assert.ok(existsSync(join(home, 'transcripts', runId, 'snapshot-1.jpg')));
    // transcript show names the picture under its line.
    const show = await runCli(['transcript', 'show', runId], { env: { QUACKD_HOME: home } });
    assert.match(show.stdout, new RegExp(`step - {2}snapshot: ok — picture 512×384, [\\d.]+ kB; camera: no ball in view\\n {18}picture ${runId}/snapshot-1\\.jpg\\n`));
    const bare = await runCli(['do', 'snapshot', '--robot', 'bare', '--local'], { env: { QUACKD_HOME: home } });
    assert.equal(bare.code, 3, bare.stdout + bare.stderr);
    assert.match(bare.stdout, /snapshot needs a camera, and this robot has none here \(a camera: setting in its config gives it one\)/);
  });
});
