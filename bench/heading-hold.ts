/**
 * The walk's heading hold on the host-firmware duck standing on the MuJoCo twin
 * (test/bridge/firmware-twin.ts): `quackd do walk 1.5` as a user types it, over a real pty, from
 * the start of sim2d's layouts, each layout walked with the robot's `heading_hold` left at its
 * defaults and with `heading_hold: false`, one after the other. Per walk: how far along and how
 * far off its start line the twin's trunk ended, and the track's angle from the heading it
 * started with. A layout whose start faces a wall or the sofa within the walk falls either way
 * (nothing here senses them): those are listed, and left out of the means.
 *
 *   node --import tsx bench/heading-hold.ts [--seeds 1-12] [--metres 1.5]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FirmwareTwin, twinCameraSetting } from '../test/bridge/firmware-twin.js';
import { runCli } from '../test/helpers/cli.js';
import { fmt, median } from './_stats.js';
import { seedList } from './_seeds.js';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '1-12' }, metres: { type: 'string', default: '1.5' } } });

interface Walk {
  readonly ok: boolean;
  readonly along: number;
  readonly left: number;
  readonly veerDeg: number;
}

const wrapDeg = (a: number): number => (Math.atan2(Math.sin(a), Math.cos(a)) * 180) / Math.PI;

async function walk(seed: number, held: boolean): Promise<Walk> {
  const twin = await FirmwareTwin.start({ seed });
  const home = mkdtempSync(join(tmpdir(), 'quackd-bench-hold-'));
  try {
    writeFileSync(join(home, 'config.yaml'), `robots:\n  duck: { body: microduck:jsonrpc, port: ${JSON.stringify(twin.port)}, camera: ${twinCameraSetting(twin.cameraUrl)}${held ? '' : ', heading_hold: false'} }\n`);
    const s = twin.trunk();
    const r = await runCli(['do', 'walk', values.metres, '--yes', '--robot', 'duck'], { env: { QUACKD_HOME: home }, timeoutMs: 90_000 });
    const e = twin.trunk();
    const [dx, dy] = [e.x - s.x, e.y - s.y];
    const [c, sn] = [Math.cos(s.yaw), Math.sin(s.yaw)];
    return { ok: r.code === 0, along: dx * c + dy * sn, left: -dx * sn + dy * c, veerDeg: wrapDeg(Math.atan2(dy, dx) - s.yaw) };
  } finally {
    await twin.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const rows: { seed: number; held: Walk; alone: Walk }[] = [];
for (const seed of seedList(values.seeds)) {
  const held = await walk(seed, true);
  const alone = await walk(seed, false);
  rows.push({ seed, held, alone });
  const show = (w: Walk): string => `${w.ok ? 'ok  ' : 'fell'} ${fmt(w.along, 2)} m along, ${fmt(w.left, 2)} m left, track ${fmt(w.veerDeg, 0)}°`;
  console.log(`  layout ${String(seed).padStart(3)}  held: ${show(held)}   not held: ${show(alone)}`);
}
const both = rows.filter((r) => r.held.ok && r.alone.ok);
const fell = rows.filter((r) => !(r.held.ok && r.alone.ok)).map((r) => `${r.seed} (${r.held.ok ? '' : 'held'}${r.held.ok || r.alone.ok ? '' : ', '}${r.alone.ok ? '' : 'not held'})`);
const stat = (pick: (r: (typeof rows)[number]) => Walk, of: (w: Walk) => number): string => `${fmt(median(both.map((r) => Math.abs(of(pick(r))))), 2)} (max ${fmt(Math.max(...both.map((r) => Math.abs(of(pick(r))))), 2)})`;
console.log(
  `heading hold, ${values.metres} m walks on ${both.length} layouts both walked: off the line ${stat((r) => r.held, (w) => w.left)} m held, ${stat((r) => r.alone, (w) => w.left)} m not; track off the heading ${stat((r) => r.held, (w) => w.veerDeg)}° held, ${stat((r) => r.alone, (w) => w.veerDeg)}° not (medians of absolutes)${fell.length > 0 ? `; fell: layout ${fell.join(', ')}` : ''}`,
);
