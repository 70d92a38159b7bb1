/**
 * The one stage that may command the plant (test/invariants.test.ts holds every other file to
 * it): whatever a skill asks for passes here. A vector with a missing or non-finite value is
 * refused whole and the last targets are held, since half a pose is not a pose. Every other
 * target is clamped to its joint's limits, then to one period's travel at the joint's top speed
 * from the last target, so no skill, however wrong, makes a joint jump.
 */
import type { JointSpec, Plant } from './plant.js';

export type Verdict =
  | { readonly sent: true; readonly clamped: number; readonly stepLimited: number }
  | { readonly sent: false; readonly refused: 'non-finite' | 'length' };

/**
 * `desired`, made safe, into `out`; `last` is the previous target. A joint whose last target
 * lies outside its limits (a duck found folded past them) is not snapped back, which would be a
 * jump: its range is widened to that target, so it may stay or move inward, never further out.
 */
export function limitTargets(desired: ArrayLike<number>, last: Float64Array, joints: readonly JointSpec[], periodS: number, out: Float64Array): Verdict {
  if (desired.length !== joints.length || last.length !== joints.length) return { sent: false, refused: 'length' };
  for (let i = 0; i < joints.length; i += 1) if (!Number.isFinite(desired[i])) return { sent: false, refused: 'non-finite' };
  let clamped = 0;
  let stepLimited = 0;
  joints.forEach((joint, i) => {
    const from = last[i] ?? 0;
    const want = desired[i] ?? from;
    const inRange = Math.min(Math.max(want, Math.min(joint.min, from)), Math.max(joint.max, from));
    if (inRange !== want) clamped += 1;
    const step = joint.maxVelocity * periodS;
    const stepped = Math.min(Math.max(inRange, from - step), from + step);
    if (stepped !== inRange) stepLimited += 1;
    out[i] = stepped;
  });
  return { sent: true, clamped, stepLimited };
}

export class SafetyStage {
  private last: Float64Array | undefined;
  private readonly scratch: Float64Array;
  private limpNow = false;

  constructor(
    private readonly plant: Plant,
    private readonly periodS: number,
  ) {
    this.scratch = new Float64Array(plant.joints.length);
  }

  /** Whether a hold pose has been taken: before it nothing is ever sent. */
  get established(): boolean {
    return this.last !== undefined;
  }

  /** A copy of the targets held now (the last sent), for a skill to start from. */
  held(): Float64Array | undefined {
    return this.last?.slice();
  }

  /** The targets held now, not copied (read them before the next tick), for a recording. */
  applied(): Readonly<Float64Array> | undefined {
    return this.last;
  }

  /**
   * Holds `pose`, the joints' measured positions: sending where the joints already are moves
   * none of them. Torque comes back on here after a limp.
   */
  establish(pose: Float64Array): void {
    const targets = pose.slice();
    this.plant.send(targets);
    this.last = targets;
    this.limpNow = false;
  }

  /** Sends the held targets again (a failed read, no verb, a refused vector); nothing while limp. */
  hold(): void {
    if (this.last === undefined || this.limpNow) return;
    this.plant.send(this.last);
  }

  /** The skill's targets, checked, limited and sent; a refused vector holds the last targets. */
  submit(desired: ArrayLike<number>): Verdict {
    // The loop runs no skill before a hold pose nor while limp: reaching here then is a bug.
    if (this.last === undefined || this.limpNow) throw new Error('safety: targets submitted with no hold pose to move from');
    const targets = this.scratch;
    const verdict = limitTargets(desired, this.last, this.plant.joints, this.periodS, targets);
    if (!verdict.sent) {
      this.hold();
      return verdict;
    }
    this.plant.send(targets);
    this.last.set(targets);
    return verdict;
  }

  /** Torque off where the plant can; false when it cannot, and then the targets are held. */
  limp(): boolean {
    if (this.plant.limp === undefined) {
      this.hold();
      return false;
    }
    this.limpNow = true;
    this.plant.limp();
    return true;
  }
}
