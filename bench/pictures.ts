/**
 * What pictures cost a find-and-kick run with a pilot that reads them: the built CLI runs the
 * find-and-kick starter on microduck:sim2d with `camera: synthetic`, its pilot an OpenAI-compatible
 * model on a loopback server. The model is scripted as a careful multimodal pilot would fly the
 * duck's strategy: it takes a snapshot before each decision that moves the duck (before the scan,
 * before walking up, before kicking, and after the kick to see it went), and otherwise follows the
 * strategy from the verbs' results (turn by the ball's bearing, walk its distance less 0.25 m,
 * kick with the foot on its side). Per seed: the snapshots, the bytes of pictures sent over every
 * request (each request carries the pictures its history holds), the whole requests' bytes, and
 * whether the run succeeded; then the medians. A real model may look more or less often: the
 * bytes go with the snapshots it takes and how long each stays in its history.
 *
 *   node --import tsx bench/pictures.ts [--seeds 1-10]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { listDucks } from '../src/ducks/find.js';
import { runCli } from '../test/helpers/cli.js';
import { openaiText, openaiToolCalls, startLlmServer, type RecordedRequest, type Reply } from '../test/helpers/llm-server.js';
import { fmt, median } from './_stats.js';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '1-10' }, verbose: { type: 'boolean', default: false } } });
const [from, to] = (values.seeds ?? '1-10').split('-').map(Number) as [number, number];
const SEEDS = Array.from({ length: (to ?? from) - from + 1 }, (_, i) => from + i);
const KEY = 'quackd-bench-Key-0c3a9b72d45e1f';

interface Message {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly { function: { name: string } }[];
}

/** The verbs called so far, in order, each with its result's text. */
function history(body: unknown): { verb: string; result: string }[] {
  const messages = (body as { messages?: Message[] } | null)?.messages ?? [];
  const done: { verb: string; result: string }[] = [];
  for (const m of messages) {
    for (const c of m.role === 'assistant' ? (m.tool_calls ?? []) : []) done.push({ verb: c.function.name, result: '' });
    const open = done.findIndex((d) => d.result === '');
    if (m.role === 'tool' && open >= 0) done[open] = { ...done[open]!, result: typeof m.content === 'string' ? m.content : '' };
  }
  return done;
}

/** Where a verb's words put the ball, as a model reads them: `ball found at bearing 5° left, 3.27 m`. */
function ballIn(text: string): { bearing: number; distance: number } | undefined {
  const m = /bearing (?:(\d+)° (left|right)|straight ahead), ([\d.]+) m/.exec(text);
  if (m === null) return undefined;
  return { bearing: m[1] === undefined ? 0 : Number(m[1]) * (m[2] === 'left' ? 1 : -1), distance: Number(m[3]) };
}

/** The careful pilot's next call, from what it did and what the verbs said. */
function pilot(req: RecordedRequest): Reply {
  const done = history(req.body);
  const call = (name: string, args: Record<string, unknown> = {}): Reply => openaiToolCalls([{ name, arguments: JSON.stringify(args) }]);
  const [last, before] = [done.at(-1), done.at(-2)];
  if (done.length > 30) return call('declare_failure', { reason: 'out of ideas' });
  if (last === undefined) return call('snapshot');
  switch (last.verb) {
    case 'kick':
      return call('snapshot');
    case 'walk':
    case 'turn':
      return call('search_scan');
    case 'search_scan': {
      const ball = ballIn(last.result);
      if (ball === undefined) return call('walk', { metres: 1 });
      if (Math.abs(ball.bearing) > 4) return call('turn', { degrees: ball.bearing });
      return call('snapshot');
    }
    case 'snapshot': {
      if (before?.verb === 'kick') return call('declare_success', { reason: 'kicked the ball; the picture shows it rolled away' });
      if (before?.verb !== 'search_scan') return call('search_scan');
      const { bearing, distance } = ballIn(before.result) ?? { bearing: 0, distance: 1 };
      if (distance > 0.4) return call('walk', { metres: Math.min(2, distance - 0.25) });
      return call('kick', { foot: bearing > 2 ? 'left' : 'right' });
    }
    default:
      return openaiText('I cannot tell what to do next.');
  }
}

function pictureBytes(body: unknown): number {
  let bytes = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    const url = (o['image_url'] as { url?: unknown } | undefined)?.url;
    if (o['type'] === 'image_url' && typeof url === 'string') bytes += url.length;
    Object.values(o).forEach(walk);
  };
  walk(body);
  return bytes;
}

/** The find-and-kick starter with `snapshot` among its verbs (a starter offers only what it lists). */
const DUCK = readFileSync(listDucks().find((d) => d.name === 'find-and-kick')?.path ?? 'find-and-kick.duck', 'utf8').replace('verbs: [search_scan, turn, walk, kick, quack]', 'verbs: [search_scan, turn, walk, kick, quack, snapshot]');

const server = await startLlmServer({ fallback: pilot });
const rows: { seed: number; ok: boolean; snapshots: number; pictures: number; requests: number; total: number }[] = [];
const homes: string[] = [];
try {
  for (const seed of SEEDS) {
    server.requests.length = 0;
    // Not test/helpers' tempDir: its clean-up hook would start node:test's runner, which prints TAP here.
    const home = mkdtempSync(join(tmpdir(), 'quackd-bench-pictures-'));
    homes.push(home);
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  den:\n    body: microduck:sim2d\n    camera: synthetic\npilot:\n  images: true\n');
    writeFileSync(join(home, 'find-and-look.duck'), DUCK);
    const r = await runCli(['run', join(home, 'find-and-look.duck'), '--robot', 'den', '--seed', String(seed), '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'vision-model', '--no-memory', '--no-record'], { env: { QUACKD_HOME: home, OPENAI_API_KEY: KEY }, timeoutMs: 120_000 });
    const bodies = server.requests.map((q) => q.body);
    const snapshots = bodies.reduce<number>((n, b) => Math.max(n, history(b).filter((d) => d.verb === 'snapshot').length), 0);
    rows.push({ seed, ok: r.code === 0, snapshots, pictures: bodies.reduce<number>((n, b) => n + pictureBytes(b), 0), requests: bodies.length, total: bodies.reduce<number>((n, b) => n + Buffer.byteLength(JSON.stringify(b)), 0) });
    const row = rows.at(-1)!;
    if (values.verbose === true) console.log(r.stdout + r.stderr);
    console.log(`seed ${seed}: ${row.ok ? 'success' : `exit ${r.code}`}, ${row.snapshots} snapshots, ${row.requests} requests, pictures ${fmt(row.pictures / 1000)} kB of ${fmt(row.total / 1000)} kB sent`);
  }
} finally {
  await server.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
}
const kB = (xs: number[]): string => `${fmt(median(xs) / 1000)} kB (${fmt(Math.min(...xs) / 1000)}–${fmt(Math.max(...xs) / 1000)})`;
console.log(`\nfind-and-kick with a multimodal pilot (OpenAI wire, sim2d's synthetic camera, 512 px JPEG pictures), ${rows.length} seeds, ${rows.filter((r) => r.ok).length} succeeded:`);
console.log(`  snapshots per run: median ${median(rows.map((r) => r.snapshots))}; requests per run: median ${median(rows.map((r) => r.requests))}`);
console.log(`  pictures sent per run: median ${kB(rows.map((r) => r.pictures))}; everything sent per run: ${kB(rows.map((r) => r.total))}`);
