/**
 * Bench: how often a servo-bus duck's walk succeeds in the MuJoCo twin, over many layouts, not
 * the one the tests use. For each seed (sim2d's living room: where the duck stands and faces,
 * where the ball lies) a servo twin starts (test/helpers/servo-twin-process.ts: real packets over
 * a pty, the twin's trunk through the simulated BNO055 on feetech), and `quackd do walk 1.0 --yes`
 * runs as a user runs it, from dist/. A walk succeeds when quackd says so and the twin went
 * 0.7–1.3 m along its heading.
 *
 * A servo-bus duck has no bumper (a real Open Duck Mini v2 sees no walls), so a layout whose
 * 1 m ahead (and a margin for the gait's drift) runs into a wall, the sofa or the ball is counted
 * apart: its falls are the room's, not the loop's. The rate that judges the loop is the clear
 * paths'. --load N runs N busy processes beside it (a loaded Pi, or CI).
 *
 *   node --import tsx bench/twin-walks.ts [--seeds 1-20] [--protocols feetech,dynamixel] [--load 0]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BALL_RADIUS, DUCK_RADIUS, sweepDisc } from '../src/bodies/microduck/sim2d/arena.js';
import { layoutForSeed } from '../src/bodies/microduck/sim2d/sim2d-body.js';
import { servoTwinProcess, type BusProtocol } from './_servo-twin.js';
import { seedList } from './_seeds.js';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '1-20' }, protocols: { type: 'string', default: 'feetech,dynamixel' }, load: { type: 'string', default: '0' } } });
const SEEDS = seedList(values.seeds);
const PROTOCOLS = values.protocols.split(',') as BusProtocol[];
const LOAD = Number(values.load);
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const METRES = 1.0;
/** Room the gait's sideways drift and its trunk need beside the line walked (m), and the distance past the end. */
const MARGIN = 0.15;

/** What stands in the way of a 1 m walk (with the margin) from the seed's layout, or undefined. */
function blocker(seed: number): string | undefined {
  const l = layoutForSeed(seed);
  return sweepDisc(l.duck, l.duck.heading, METRES + MARGIN, DUCK_RADIUS + MARGIN, [{ name: 'ball', at: l.ball, radius: BALL_RADIUS }]).blockedBy;
}

async function walkOnce(protocol: BusProtocol, seed: number): Promise<{ ok: boolean; along: number; said: string }> {
  const twin = await servoTwinProcess(protocol, 1_000_000, seed);
  const home = mkdtempSync(join(tmpdir(), 'quackd-bench-twin-walks-'));
  try {
    writeFileSync(join(home, 'config.yaml'), `robots:\n  duck: ${twin.yaml}\n`);
    const start = await twin.trunk();
    const r = spawnSync(process.execPath, [MAIN, 'do', 'walk', String(METRES), '--yes', '--robot', 'duck'], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', QUACKD_HOME: home }, encoding: 'utf8', timeout: 90_000 });
    const end = await twin.trunk();
    const along = (end.x - start.x) * Math.cos(start.yaw) + (end.y - start.y) * Math.sin(start.yaw);
    const out = `${r.stdout}${r.stderr}`;
    const said = (/walk 1\.00 +(.*)$/m.exec(out)?.[1] ?? out.trim().split('\n').at(-1) ?? '').replace(/ \(no odometry.*$/, '').trim();
    return { ok: r.status === 0 && along > 0.7 && along < 1.3, along, said };
  } finally {
    await twin.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

const busy: ChildProcess[] = Array.from({ length: LOAD }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
try {
  console.log(`servo-bus ducks walking ${METRES} m in the twin · seeds ${values.seeds} · ${LOAD} busy process${LOAD === 1 ? '' : 'es'} beside`);
  for (const protocol of PROTOCOLS) {
    const tally = { clear: { ok: 0, n: 0 }, blocked: { ok: 0, n: 0 } };
    const failures: string[] = [];
    for (const seed of SEEDS) {
      const inTheWay = blocker(seed);
      const w = await walkOnce(protocol, seed);
      const t = inTheWay === undefined ? tally.clear : tally.blocked;
      t.n++;
      if (w.ok) t.ok++;
      else failures.push(`  seed ${seed}${inTheWay !== undefined ? ` (${inTheWay} ahead)` : ' (clear path)'}: ${w.along.toFixed(2)} m, ${w.said}`);
    }
    const pct = (t: { ok: number; n: number }) => (t.n === 0 ? '-' : `${t.ok}/${t.n} (${Math.round((100 * t.ok) / t.n)} %)`);
    console.log(`microduck:${protocol}: clear paths ${pct(tally.clear)} walked · a wall, the sofa or the ball ahead ${pct(tally.blocked)}`);
    for (const f of failures) console.log(f);
  }
} finally {
  for (const b of busy) b.kill('SIGKILL');
}
