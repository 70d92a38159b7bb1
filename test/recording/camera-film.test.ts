/**
 * The recording's camera film as a user gets it: the built CLI flies a duck on microduck:sim2d with
 * `camera: synthetic` against a loopback model that thinks 600 ms a request, with
 * `recordings.camera_fps` set. The run ends as it would without the film (its last line printed,
 * exit 0: a film frame being encoded when the run ends must not end the process early, which it
 * once did), /camera/film holds frames over the run, every frame due at the rate is filmed or
 * counted skipped in the recording's metadata, /camera still holds only what the pilot was shown,
 * and camera_fps 0 records no film. How many a busy machine films is CPU, not a test's business:
 * beside four busy processes 3–5 frames of about 19 due (7 of 13 on a quiet one).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { openaiToolCalls, startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { readIndexed } from '../helpers/mcap.js';
import { lookDuck } from '../helpers/ducks.js';
import { tempDir } from '../helpers/tmp.js';

const KEY = 'quackd-local-Key-5e1f0c3a9b72d4';
const DUCK = lookDuck('snapshot, then turn 30 degrees', 'declare success');

describe('the recording films the camera between snapshots', () => {
  let server: LlmServer;
  before(async () => {
    server = await startLlmServer({ apiKey: KEY, delayMs: () => 600 });
  });
  after(async () => server.close());

  async function fly(fps: number): Promise<{ home: string; stdout: string; code: number | null; seconds: number }> {
    server.reply(
      openaiToolCalls([{ name: 'snapshot', arguments: '{}' }]),
      openaiToolCalls([{ name: 'turn', arguments: '{"degrees":30}' }]),
      openaiToolCalls([{ name: 'declare_success', arguments: '{"reason":"looked and turned"}' }]),
    );
    const home = tempDir('quackd-film-');
    writeFileSync(join(home, 'config.yaml'), `robots:\n  den:\n    body: microduck:sim2d\n    camera: synthetic\nrecordings:\n  camera_fps: ${fps}\n`);
    writeFileSync(join(home, 'look.duck'), DUCK);
    const started = Date.now();
    const r = await runCli(['run', join(home, 'look.duck'), '--robot', 'den', '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--no-memory'], { env: { QUACKD_HOME: home, OPENAI_API_KEY: KEY }, timeoutMs: 60_000 });
    // What the run wrote last, for a run that ends short: how far it got (its end? its recording?).
    const transcripts = join(home, 'transcripts');
    const tail = existsSync(transcripts) ? readdirSync(transcripts).filter((f) => f.endsWith('.jsonl')).flatMap((f) => readFileSync(join(transcripts, f), 'utf8').trim().split('\n').slice(-3)) : [];
    return { home, stdout: `${r.stdout}${r.stderr}\ntranscript's last lines:\n${tail.join('\n')}\nrecordings: ${readdirSync(home).includes('recordings') ? readdirSync(join(home, 'recordings')).join(', ') : 'none'}`, code: r.code, seconds: (Date.now() - started) / 1000 };
  }

  it('camera_fps 5: frames on /camera/film over the run, the snapshot alone on /camera, the run ends whole', async () => {
    const r = await fly(5);
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /^OK success — looked and turned/m);
    const [file] = readdirSync(join(r.home, 'recordings'));
    assert.ok(file !== undefined);
    const recording = await readIndexed(join(r.home, 'recordings', file));
    assert.equal(recording.schemas.get('/camera/film'), 'foxglove.CompressedImage');
    const film = (recording.messages.get('/camera/film') ?? []) as { format: string; data: string; timestamp: { sec: number; nsec: number } }[];
    assert.ok(film.every((f) => f.format === 'jpeg' && Buffer.from(f.data, 'base64').subarray(0, 2).toString('hex') === 'ffd8'), 'each a JPEG');
    // A film, not one picture: frames taken at different times.
    const at = new Set(film.map((f) => f.timestamp.sec * 1e9 + f.timestamp.nsec));
    assert.ok(film.length >= 2 && at.size === film.length, `${film.length} frames, ${at.size} times`);
    // Every frame due is filmed or counted skipped (one still being made: shrinking, encoding and,
    // for this simulator, rendering cost CPU, and a busy machine films fewer); none beyond the rate.
    // Three requests of 600 ms each keep the run going at least 1.8 s: at 5 a second, 5 due at least.
    const counts = recording.metadata.get('quackd.recording');
    const [frames, skipped, failed] = ['camera_frames', 'camera_skipped', 'camera_failed'].map((k) => Number(counts?.get(k)));
    assert.deepEqual([frames, failed], [film.length, 0], JSON.stringify([...(counts ?? [])]));
    const due = (frames ?? 0) + (skipped ?? 0);
    assert.ok(due >= 5 && due <= Math.ceil(r.seconds * 5) + 1, `${frames} filmed and ${skipped} skipped in ${r.seconds} s`);
    assert.equal(recording.messages.get('/camera')?.length, 1, 'the one snapshot the pilot was shown');
  });

  it('camera_fps 0: no film, the snapshot still recorded', async () => {
    const r = await fly(0);
    assert.equal(r.code, 0, r.stdout);
    const [file] = readdirSync(join(r.home, 'recordings'));
    const recording = await readIndexed(join(r.home, 'recordings', file ?? ''));
    assert.equal(recording.messages.get('/camera/film'), undefined);
    assert.equal(recording.messages.get('/camera')?.length, 1);
  });
});
