/**
 * A walk of the MuJoCo twin in its default pace (lockstep: the simulation runs as fast as it
 * computes, faster than the wall), recorded as `quackd run` (the built CLI) records it: its ticks
 * are stamped with the robot's own time, a period apart, so Foxglove plays the walk at the speed
 * the duck walked it, not sped up to however long the simulation took.
 */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { writeDuck } from '../helpers/ducks.js';
import { readIndexed } from '../helpers/mcap.js';
import { tempDir } from '../helpers/tmp.js';

interface Tick {
  readonly header: { readonly stamp: { readonly sec: number; readonly nanosec: number } };
  readonly tick: number;
}

test('a twin’s lockstep walk is recorded on its own clock: one tick every 20 ms', async () => {
  const home = tempDir('quackd-twin-ticks-');
  writeFileSync(join(home, 'config.yaml'), 'robots:\n  tw: { body: microduck:mujoco }\n');
  const duck = writeDuck(home, 'walk', 'robot: microduck:mujoco\nverbs: [walk]\nbudgets: { steps: 3, llm_calls: 5, seconds: 120 }', '# Walk\n\n## Strategy\n1. walk 1.5\n');
  const run = await runCli(['run', duck, '--provider', 'script'], { env: { QUACKD_HOME: home } });
  assert.equal(run.code, 0, run.stderr);
  const recordings = join(home, 'recordings');
  const [file] = readdirSync(recordings);
  assert.ok(file !== undefined);
  const back = await readIndexed(join(recordings, file));
  const ticks = (back.messages.get('/control/tick') ?? []) as Tick[];
  // 1.5 m at the policy's 0.3 m/s: about 5 s of the robot's time.
  assert.ok(ticks.length >= 250, `${ticks.length} ticks`);
  const ms = (t: Tick) => t.header.stamp.sec * 1000 + t.header.stamp.nanosec / 1e6;
  const gaps = ticks.slice(1).map((t, i) => ms(t) - ms(ticks[i] as Tick));
  // At least a period between ticks; rounding of the nanoseconds aside.
  assert.ok(Math.min(...gaps) > 19.99, `the closest ticks are ${Math.min(...gaps).toFixed(3)} ms apart`);
  const spanS = (ms(ticks.at(-1) as Tick) - ms(ticks[0] as Tick)) / 1000;
  assert.ok(spanS >= ((ticks.length - 1) * 20) / 1000, `${ticks.length} ticks over ${spanS.toFixed(2)} s`);
  // The trunk's accelerometer beside its gyro and gravity: 9.81 m/s² up the trunk as the duck
  // stands before its first step, and about that on average over a walk whose every footfall
  // jolts it (5–95 % of its ticks read 0.9–18.5 m/s²: the bundled gait is a shuffle).
  const imu = (back.messages.get('/imu') ?? []) as { readonly accel: { readonly x: number; readonly y: number; readonly z: number } }[];
  assert.equal(imu.length, ticks.length);
  const first = imu[0]?.accel;
  assert.ok(first !== undefined && Math.abs(first.z - 9.80665) < 1e-6 && Math.abs(first.x) < 1e-6, `standing: ${JSON.stringify(first)}`);
  const mean = imu.reduce((sum, m) => sum + m.accel.z, 0) / imu.length;
  assert.ok(Math.abs(mean - 9.81) < 1, `the accelerometer's z over the walk: mean ${mean.toFixed(2)} m/s²`);
});

test('a twin’s lockstep find-and-kick is recorded whole: every tick the loop ran, none lost, over four layouts', async () => {
  // Bursts of 2500 ticks a second: a ring of 256 read every 100 ms lost up to 173 of a run's ticks.
  for (const seed of [1, 2, 3, 4]) {
    const home = tempDir('quackd-twin-whole-');
    const run = await runCli(['run', 'find-and-kick', '--robot', 'microduck:mujoco', '--seed', String(seed), '--no-memory'], { env: { QUACKD_HOME: home } });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /lost samples/, `seed ${seed}`);
    const recordings = join(home, 'recordings');
    const [file] = readdirSync(recordings);
    assert.ok(file !== undefined);
    const back = await readIndexed(join(recordings, file));
    const ticks = (back.messages.get('/control/tick') ?? []) as Tick[];
    assert.ok(ticks.length >= 250, `seed ${seed}: ${ticks.length} ticks`);
    const gaps = ticks.slice(1).filter((t, i) => t.tick !== (ticks[i] as Tick).tick + 1).length;
    assert.equal(gaps, 0, `seed ${seed}: ${gaps} breaks in the tick numbers of ${ticks.length} ticks`);
    assert.equal(back.metadata.get('quackd.recording')?.get('dropped_ticks'), '0', `seed ${seed}`);
  }
});
