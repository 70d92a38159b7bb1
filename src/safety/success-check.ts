/**
 * quackd checks a declared success against what the body measured, so a model cannot talk its
 * way to a green outcome. Pure.
 */
import type { Metrics } from '../bodies/body.js';
import type { SuccessCheck } from '../ducks/duck.js';

export interface Verification {
  /** false only when a measured metric fails its check. */
  readonly ok: boolean;
  /** e.g. `ball_displaced_m 0.49 ≥ 0.3`, or `battery_v: no reading (unverified)`. */
  readonly detail: string;
}

const SHOW: Record<SuccessCheck['op'], string> = { '>=': '≥', '<=': '≤', '>': '>', '<': '<', '==': '=' };

function holds(value: number, check: SuccessCheck): boolean {
  switch (check.op) {
    case '>=':
      return value >= check.value;
    case '<=':
      return value <= check.value;
    case '>':
      return value > check.value;
    case '<':
      return value < check.value;
    case '==':
      return value === check.value;
  }
}

export function verifySuccess(checks: readonly SuccessCheck[], metrics: Metrics): Verification {
  const parts: string[] = [];
  for (const check of checks) {
    const value = metrics[check.metric];
    // A duck only names metrics its body measures (ducks/check.ts): a missing one is a reading
    // the body does not have, and the check cannot say yes or no.
    if (value === undefined) {
      parts.push(`${check.metric}: no reading (unverified)`);
      continue;
    }
    if (!holds(value, check)) {
      return { ok: false, detail: `${check.metric} is ${value}, needs ${SHOW[check.op]} ${check.value}` };
    }
    parts.push(`${check.metric} ${value} ${SHOW[check.op]} ${check.value}`);
  }
  return { ok: true, detail: parts.join(', ') };
}
