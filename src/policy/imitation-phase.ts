/**
 * The Open Duck Mini v2 walk's imitation phase, counted as its reference runtime counts it
 * (v2_rl_walk_mujoco.py): a tick count i, advanced after each observation by 1 + phase_offset and
 * wrapped at phase_steps (its reference motion's nb_steps_in_period). An observation carries
 * [cos 2πi/N, sin 2πi/N] of the count before its own tick's advance, so the first reads [0, 0], not
 * [1, 0]: the runtime starts the pair at zeros, as the training env's reset does, and each
 * training step's observation carries the count that step advanced to, the next action's input.
 */
export class ImitationPhase {
  private i = 0;
  private readonly pair: [number, number] = [0, 0];

  constructor(
    private readonly steps: number,
    private readonly offset = 0,
  ) {
    if (!(Number.isInteger(steps) && steps > 0)) throw new RangeError(`imitation phase: ${steps} steps in a period`);
  }

  /** What this tick's observation reads: [cos, sin]. */
  observed(): readonly [number, number] {
    return this.pair;
  }

  /** After this tick's observation. Python's % wraps a negative count up; JavaScript's keeps its sign. */
  advance(): void {
    const n = this.steps;
    this.i = (((this.i + 1 + this.offset) % n) + n) % n;
    const angle = (2 * Math.PI * this.i) / n;
    this.pair[0] = Math.cos(angle);
    this.pair[1] = Math.sin(angle);
  }
}
