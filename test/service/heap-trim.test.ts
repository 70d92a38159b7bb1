/**
 * Giving freed memory back (src/service/heap-trim.ts, src/service/malloc-trim.ts): glibc's
 * malloc_trim through koffi in a real process; the service's trims when it is quiet and never
 * while a robot runs; `quackd serve` doing it after it is ready and after a run through its socket.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { EventBus } from '../../src/runtime/events.js';
import type { RobotActivity, RobotStatus } from '../../src/runtime/robot-status.js';
import { HeapTrimDoor } from '../../src/service/heap-trim.js';
import { childEnv, outputOf, runCli } from '../helpers/cli.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Lines a pino logger at debug wrote, as their messages and facts. */
function debugLog(): { log: ReturnType<typeof pino>; lines: { msg: string; why?: string }[] } {
  const lines: { msg: string; why?: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const l of chunk.toString('utf8').split('\n').filter((x) => x !== '')) lines.push(JSON.parse(l) as { msg: string; why?: string });
      done();
    },
  });
  return { log: pino({ level: 'debug' }, sink), lines };
}

/** A service's robots as the door sees them: their activity at start, then `robot:status` events. */
function robots(initial: Record<string, RobotActivity>): { events: EventBus; robots(): readonly RobotStatus[]; set(robot: string, activity: RobotActivity): void } {
  const events = new EventBus();
  const status = (robot: string, activity: RobotActivity): RobotStatus => ({ robot, key: 'microduck:sim2d', activity });
  return {
    events,
    robots: () => Object.entries(initial).map(([r, a]) => status(r, a)),
    set: (robot, activity) => events.emit('robot:status', { robot, status: status(robot, activity) }),
  };
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(10);
  }
}

describe('giving freed memory back', () => {
  it('malloc_trim returns to the system what glibc kept after a burst of allocations was freed', async () => {
    // 60 MB of 4 kB buffers, one in eight kept: the rest freed and collected, yet resident until the trim.
    const malloc = new URL('../../src/service/malloc-trim.ts', import.meta.url).href;
    const script = `
      import { readFileSync } from 'node:fs';
      import { loadMallocTrim } from ${JSON.stringify(malloc)};
      const rss = () => Number(readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\\s+(\\d+)/)[1]) / 1024;
      const trim = await loadMallocTrim();
      if (trim instanceof Error) throw trim;
      const base = rss();
      let kept = [];
      for (let i = 0; i < 15000; i++) { const b = Buffer.alloc(4000 + (i % 7) * 64); if (i % 8 === 0) kept.push(b); }
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 50));
      const freed = rss();
      trim();
      console.log(JSON.stringify({ base, freed, trimmed: rss(), keptMb: kept.reduce((n, b) => n + b.length, 0) / 1048576 }));
    `;
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], { env: childEnv({ MALLOC_ARENA_MAX: '2' }), stdio: ['ignore', 'pipe', 'pipe'] });
    const r = await outputOf(child);
    assert.equal(r.code, 0, r.stderr);
    const { base, freed, trimmed, keptMb } = JSON.parse(r.stdout) as { base: number; freed: number; trimmed: number; keptMb: number };
    // Beyond the buffers still kept: what glibc held on to after they were freed, and what it still held after the trim.
    const held = freed - base - keptMb;
    const left = trimmed - base - keptMb;
    const mb = (x: number): string => `${x.toFixed(1)} MB`;
    assert.ok(held >= 10, `glibc kept what was freed: ${mb(held)} beyond the ${mb(keptMb)} still in use`);
    assert.ok(left <= held / 2, `the trim gave most of it back: ${mb(held)} -> ${mb(left)}`);
  });

  it('trims once the service is quiet, again every while, never while a robot runs, and not after it stops', async () => {
    const { log } = debugLog();
    let trims = 0;
    const fleet = robots({ den: 'idle', hall: 'offline' });
    const door = new HeapTrimDoor(log, { load: () => Promise.resolve(() => (trims++, true)), quietMs: 60, everyMs: 400 });
    await door.start(fleet);
    await until('the first trim, once quiet', () => trims >= 1);
    fleet.set('den', 'running');
    const during = trims;
    await sleep(600);
    assert.equal(trims, during, 'no trim while den runs, not even the periodic one');
    fleet.set('den', 'stopping');
    fleet.set('hall', 'idle');
    await sleep(150);
    assert.equal(trims, during, 'nor while it stops');
    fleet.set('den', 'idle');
    // At least: a loaded machine may poll late, after the periodic one too.
    await until('a trim once den is back to idle', () => trims >= during + 1, 2000);
    await until('the periodic one after it', () => trims >= during + 2, 3000);
    await door.stop();
    const stopped = trims;
    await sleep(600);
    assert.equal(trims, stopped, 'none after the door stopped');
  });

  it('without malloc_trim (no glibc, or koffi cannot load) the door says why at debug and does nothing', async () => {
    const { log, lines } = debugLog();
    const door = new HeapTrimDoor(log, { load: () => Promise.resolve(new Error('libc.so.6: cannot open shared object file')), quietMs: 10 });
    await door.start(robots({ den: 'idle' }));
    await sleep(50);
    await door.stop();
    assert.deepEqual(lines.map((l) => [l.msg, l.why]), [['freed memory stays with the process: no malloc_trim here', 'libc.so.6: cannot open shared object file']]);
  });

  it('quackd serve gives freed memory back once it is ready and again after a run through its socket', async () => {
    const home = tempDir('quackd-heap-trim-');
    const s = await serve(home, 'robots:\n  den: { body: microduck:sim2d }\nmqtt: false\n', { QUACKD_LOG_LEVEL: 'debug' });
    const trims = (): number => s.stderr().split('\n').filter((l) => l.includes('freed memory given back to the system')).length;
    await until('a trim after ready', () => trims() >= 1, 20_000);
    const ready = trims();
    const run = await runCli(['run', 'hello-world', '--robot', 'den'], { env: { QUACKD_HOME: home } });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    await until('a trim after the run', () => trims() > ready, 20_000);
    s.child.kill('SIGTERM');
    assert.equal((await s.exited).code, 0);
  });
});
