/**
 * find-and-kick on the host-firmware duck standing on the MuJoCo twin (test/bridge/firmware-twin.ts):
 * `quackd run find-and-kick --robot duck` as a user types it, microduck:jsonrpc over a pty to
 * quackd-fw-host, whose servos and IMU are the twin's, the duck seeing through a network camera
 * that shows the twin's head camera (ffmpeg decoding its MJPEG, the ball found by colour). The
 * share of seeds that succeed, the wall time per run, and how far the ball really moved in the
 * twin against what the camera measured. A failed seed is listed with its reason.
 *
 *   node --import tsx bench/host-find-and-kick.ts [--seeds 1-10]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FirmwareTwin, twinCameraSetting } from '../test/bridge/firmware-twin.js';
import { runCli } from '../test/helpers/cli.js';
import { fmt, median } from './_stats.js';
import { seedList } from './_seeds.js';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '1-10' } } });

interface Outcome {
  readonly seed: number;
  readonly ok: boolean;
  readonly seconds: number;
  readonly measured: number | undefined;
  readonly truth: number;
  readonly reason: string;
}

async function runSeed(seed: number): Promise<Outcome> {
  const twin = await FirmwareTwin.start({ seed });
  const home = mkdtempSync(join(tmpdir(), 'quackd-bench-fw-twin-'));
  try {
    writeFileSync(join(home, 'config.yaml'), `robots:\n  duck: { body: microduck:jsonrpc, port: ${JSON.stringify(twin.port)}, camera: ${twinCameraSetting(twin.cameraUrl)} }\n`);
    const start = twin.ball();
    const r = await runCli(['run', 'find-and-kick', '--robot', 'duck', '--no-memory', '--json'], { env: { QUACKD_HOME: home }, timeoutMs: 200_000 });
    const end = twin.ball();
    const out = JSON.parse(r.stdout) as { outcome: string; reason: string; seconds: number; transcript: string };
    const kicks = readFileSync(out.transcript, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"verb_result"') && l.includes('"verb":"kick"'))
      .map((l) => (JSON.parse(l) as { data?: { ball_displaced_m?: number } }).data?.ball_displaced_m)
      .filter((m): m is number => typeof m === 'number');
    return { seed, ok: out.outcome === 'success', seconds: out.seconds, measured: kicks.at(-1), truth: Math.hypot(end.x - start.x, end.y - start.y), reason: out.reason };
  } finally {
    await twin.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const outcomes: Outcome[] = [];
for (const seed of seedList(values.seeds)) {
  const o = await runSeed(seed);
  outcomes.push(o);
  console.log(`  seed ${String(seed).padStart(3)}  ${o.ok ? 'success' : 'failure'}  ${fmt(o.seconds)} s  ball moved ${fmt(o.truth, 2)} m in the twin${o.measured !== undefined ? `, ${fmt(o.measured, 2)} m by the camera` : ''}${o.ok ? '' : `  — ${o.reason.slice(0, 140)}`}`);
}
const ok = outcomes.filter((o) => o.ok);
console.log(`host-firmware duck on the twin: ${ok.length}/${outcomes.length} succeeded; wall median ${fmt(median(outcomes.map((o) => o.seconds)))} s; of the successes the twin's ball moved ${fmt(median(ok.map((o) => o.truth)), 2)} m (median), the camera said ${fmt(median(ok.map((o) => o.measured ?? 0)), 2)} m`);
