/**
 * The MuJoCo twin's real-time factor (simulated seconds per wall second) while it holds the home
 * pose the way the control loop drives it (send, 4 × 5 ms steps, read, every 20 ms period),
 * against a baseline in the same process: the same number of mj_step calls on a free box resting
 * on a plane. The ratio says what the duck itself costs over MuJoCo's fixed per-step overhead.
 * Goal: real-time factor ≥ 2 on a 2-core machine.
 */
import { HOME_POSE, STEPS_PER_PERIOD, TIMESTEP } from '../src/bodies/microduck/mujoco/duck-spec.js';
import { createMujocoPlant } from '../src/bodies/microduck/mujoco/plant.js';
import { loadMujoco } from '../src/bodies/microduck/mujoco/wasm.js';
import { fmt, median } from './_stats.js';

const SIM_SECONDS = 20;
const ROUNDS = 5;
const PERIOD = TIMESTEP * STEPS_PER_PERIOD;
const periods = Math.round(SIM_SECONDS / PERIOD);

const loadStart = performance.now();
const mujoco = await loadMujoco();
const loadMs = performance.now() - loadStart;

const BOX = `<mujoco><option timestep="${TIMESTEP}" integrator="implicitfast"/><worldbody>
  <geom type="plane" size="5 5 0.05"/>
  <body pos="0 0 0.05"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="0.7"/></body>
</worldbody></mujoco>`;

/** Wall seconds for the twin to simulate SIM_SECONDS, as the control loop would drive it. */
function twin(): { wall: number; compileMs: number } {
  const compileStart = performance.now();
  const plant = createMujocoPlant(mujoco, { seed: 7 });
  const compileMs = performance.now() - compileStart;
  const targets = Float64Array.from(HOME_POSE);
  const start = performance.now();
  for (let i = 0; i < periods; i++) {
    plant.send(targets);
    plant.advance(PERIOD);
    if (plant.read() === undefined) throw new Error('the twin blew up');
  }
  const wall = (performance.now() - start) / 1000;
  plant.close();
  return { wall, compileMs };
}

function box(): number {
  const sim = mujoco.compile(BOX);
  sim.forward();
  const start = performance.now();
  sim.step(periods * STEPS_PER_PERIOD);
  const wall = (performance.now() - start) / 1000;
  sim.close();
  return wall;
}

const twinWall: number[] = [];
const boxWall: number[] = [];
const compile: number[] = [];
twin(); // warm the JIT and the WebAssembly tiers before measuring
for (let r = 0; r < ROUNDS; r++) {
  boxWall.push(box());
  const t = twin();
  twinWall.push(t.wall);
  compile.push(t.compileMs);
}
const steps = periods * STEPS_PER_PERIOD;
const twinRtf = SIM_SECONDS / median(twinWall);
const boxRtf = SIM_SECONDS / median(boxWall);
console.log(`@mujoco/mujoco load ${fmt(loadMs, 0)} ms · twin compile (room + duck, primitives) median ${fmt(median(compile), 1)} ms`);
console.log(`twin holding home (${SIM_SECONDS} s sim, ${steps} steps, read every period): ${fmt(median(twinWall) * 1e6 / steps)} µs/step · real-time factor ${fmt(twinRtf)}× (goal ≥ 2×)`);
console.log(`baseline free box, same ${steps} mj_step calls:        ${fmt(median(boxWall) * 1e6 / steps)} µs/step · real-time factor ${fmt(boxRtf)}×`);
console.log(`twin / baseline cost per step: ${fmt(median(twinWall) / median(boxWall))}×`);
