/**
 * The command a motion verb sends its policy, from the slot's manifest: the speed asked for, else
 * the manifest's `command.nominal`, else the top of its `command.ranges` in the verb's direction
 * (a trained policy is most sure of itself where its training's commands were), clamped to those
 * ranges. A body writes no speed of its own: a trained walk that does not step below vx 0.4 is
 * sent what its manifest says, and a turn is never sent past the rate it was trained for.
 */
import type { ManifestFile } from './manifest.js';

/** The axes a verb commands: forward speed (walk) and yaw rate (turn). */
export type Axis = 'vx' | 'vyaw';

/**
 * For a manifest that gives neither a nominal nor a range on the axis (a legacy file with a
 * minimal manifest): a forward speed and a yaw rate inside every Microduck walk's training range
 * we know of (sim-kit: vel_noise_walk steps at 0.3–0.5 m/s; the bundled gaits top out at 0.3).
 */
const UNSTATED: Readonly<Record<Axis, number>> = { vx: 0.3, vyaw: 1.0 };

const UNIT: Readonly<Record<Axis, string>> = { vx: 'm/s', vyaw: 'rad/s' };

export interface Commanded {
  readonly axis: Axis;
  /** Signed, as sent. */
  readonly value: number;
  /** Where its size came from. */
  readonly from: 'asked' | 'nominal' | 'range' | 'unstated';
  /** The size asked for when the range cut it. */
  readonly clampedFrom?: number;
  /** The fraction of it the policy is measured to make good (its manifest's `command.made_good`). */
  readonly madeGood?: number;
  /** `commanded vx 0.50 m/s (the manifest's nominal)`. */
  readonly text: string;
}

const FROM_TEXT: Readonly<Record<Commanded['from'], string>> = {
  asked: 'as asked',
  nominal: "the policy's nominal",
  range: "the top of the policy's range",
  unstated: 'its manifest gives no nominal or range',
};

/**
 * The command on `axis` for a verb going `direction` (its sign), with `asked` (a size, m/s or
 * rad/s) when the verb's caller gave one; a string saying why not when the ranges allow no motion
 * that way (a walk backwards for a policy whose vx range is [0, 0.5]).
 */
export function commandFor(m: Pick<ManifestFile, 'command'> | undefined, axis: Axis, direction: number, asked?: number): Commanded | string {
  const sign = direction < 0 ? -1 : 1;
  const range = m?.command?.ranges?.[axis];
  const nominal = m?.command?.nominal?.[axis];
  const top = range === undefined ? undefined : sign > 0 ? range[1] : -range[0];
  const [size, from]: [number, Commanded['from']] = asked !== undefined ? [Math.abs(asked), 'asked'] : nominal !== undefined && nominal !== 0 ? [Math.abs(nominal), 'nominal'] : top !== undefined ? [top, 'range'] : [UNSTATED[axis], 'unstated'];
  const wanted = sign * size;
  const value = range === undefined ? wanted : Math.min(range[1], Math.max(range[0], wanted));
  if (value * sign <= 0) return `the policy's command.ranges.${axis} [${range?.[0] ?? 0}, ${range?.[1] ?? 0}] has no ${axis === 'vyaw' ? (sign > 0 ? 'left turn' : 'right turn') : sign > 0 ? 'forward speed' : 'backward speed'}`;
  const clamped = value !== wanted;
  const why = clamped ? `${Math.abs(wanted).toFixed(2)} asked, the top of the policy's range` : FROM_TEXT[from];
  const madeGood = m?.command?.made_good?.[axis];
  return { axis, value, from, ...(clamped ? { clampedFrom: Math.abs(wanted) } : {}), ...(madeGood !== undefined ? { madeGood } : {}), text: `commanded ${axis} ${value.toFixed(2)} ${UNIT[axis]} (${why})` };
}

/**
 * How much of its command a policy is counted on to make good: the bundled walk covers 0.13 m/s
 * at vx 0.3, vel_noise_walk 0.13 m/s at 0.5 (both in the twin), so a quarter.
 */
const MADE_GOOD = 0.25;

/**
 * A verb's time is half as long again as its amount takes at that speed: the bundled turn makes
 * 0.18-0.19 rad/s of its 0.6 in the twin, and a busy machine's late bus replies slow it further
 * (0.11 rad/s seen on a CI runner beside four busy processes, which ended a 180° turn at 149°).
 * A slow turn should finish; a duck that makes no way still ends.
 */
const SLACK = 1.5;

/** A verb's time limit, ms: `amount` (m or rad) at a quarter of the commanded speed, half as long again, and 2 s to start and stop. */
export function timeLimitMs(amount: number, c: Commanded): number {
  return (Math.abs(amount) / (Math.abs(c.value) * MADE_GOOD)) * SLACK * 1000 + 2000;
}

/**
 * A walk with no odometry (a servo bus, the serial bridge) ends on its time: `metres` at the
 * speed the policy makes good (its manifest's `made_good`: the bundled walk makes 0.13 m/s when
 * sent 0.3), else at the commanded speed. `estimate` is how far a walk that ran `s` seconds is
 * reckoned to have gone (signed, never measured), `about` what a summary says of it.
 */
export function timedWalk(c: Commanded, metres: number): { readonly ms: number; readonly estimate: (s: number) => number; readonly about: (s: number) => string } {
  const goes = Math.abs(c.value) * (c.madeGood ?? 1);
  const at = c.madeGood !== undefined ? ` at the ${goes.toFixed(2)} m/s its manifest says it makes good` : '';
  const estimate = (s: number): number => Math.round(Math.sign(metres) * s * goes * 100) / 100;
  return { ms: (Math.abs(metres) / goes) * 1000, estimate, about: (s) => `about ${Math.abs(estimate(s)).toFixed(2)} m${at}` };
}
