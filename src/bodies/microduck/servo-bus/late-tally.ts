/**
 * What the bus's late answers cost the loop, told twice: since the plant opened (BusFacts.late,
 * facts for whoever reads them) and since the body's last mark, which it sets as a verb begins
 * (BusFacts.late_since_mark), so a verb's result quotes the worst of its own spell, never a worse
 * one from an earlier verb.
 */
import * as z from '../../../zod-mini.js';

/**
 * Ticks with no reading for a late answer and the oldest a reading then was; cycles answered after
 * the bus gave up and how long after at worst; ticks with no reading for the trunk's read still out
 * (trunk-imu.ts) and how long it had been out at worst (ms).
 */
export const LateSchema = z.object({ ticks: z.number(), worst_ms: z.number(), cycles: z.number(), after_ms: z.number(), imu_ticks: z.number(), imu_out_ms: z.number() });
export type Late = z.infer<typeof LateSchema>;

export const noLate = (): Late => ({ ticks: 0, worst_ms: 0, cycles: 0, after_ms: 0, imu_ticks: 0, imu_out_ms: 0 });

export class LateTally {
  readonly total = noLate();
  private sinceMark = noLate();

  /** A tick that got no reading, the last one `ageMs` old. */
  tick(ageMs: number): void {
    for (const l of [this.total, this.sinceMark]) {
      l.ticks++;
      l.worst_ms = Math.max(l.worst_ms, Math.round(ageMs));
    }
  }

  /** A cycle whose every answer came, the last `afterMs` after the bus gave up. */
  cycle(afterMs: number): void {
    for (const l of [this.total, this.sinceMark]) {
      l.cycles++;
      l.after_ms = Math.max(l.after_ms, Math.round(afterMs));
    }
  }

  /** A tick that got no reading because the trunk's read had been out `outMs`. */
  imu(outMs: number): void {
    for (const l of [this.total, this.sinceMark]) {
      l.imu_ticks++;
      l.imu_out_ms = Math.max(l.imu_out_ms, Math.round(outMs));
    }
  }

  /** A verb begins: from now on, the since-mark figures are its own. */
  mark(): void {
    this.sinceMark = noLate();
  }

  get since(): Late {
    return { ...this.sinceMark };
  }
}
