/**
 * The tuner's search: a (1+λ) evolution strategy over named knobs of PolicyParams, each a
 * number in [min, max] searched on a [0, 1] scale, with a seeded PRNG so a pass is the same
 * every time it is run with the same seed. A generation draws λ Gaussian neighbours of the
 * incumbent, keeps the best if it beats the incumbent, and widens σ on success, narrows it on
 * failure (the 1/5th rule's spirit, tuned for small budgets).
 */
import { seededRandom } from '../../random.js';
import type { BalanceParams, GaitParams, KickParams, PolicyParams, StanceParams } from './param-types.js';

type NumericKeys<T> = { [K in keyof T]-?: T[K] extends number ? K : never }[keyof T];

export interface Knob {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  read(p: PolicyParams): number;
  write(p: PolicyParams, v: number): PolicyParams;
}

export const gaitKnob = (slot: 'walk' | 'turn', key: NumericKeys<GaitParams>, min: number, max: number): Knob => ({
  name: `${slot}.${key}`,
  min,
  max,
  read: (p) => p[slot][key],
  write: (p, v) => ({ ...p, [slot]: { ...p[slot], [key]: v } }),
});

export const balanceKnob = (key: NumericKeys<BalanceParams>, min: number, max: number): Knob => ({
  name: `balance.${key}`,
  min,
  max,
  read: (p) => p.balance[key],
  write: (p, v) => ({ ...p, balance: { ...p.balance, [key]: v } }),
});

export const stanceKnob = (key: NumericKeys<StanceParams>, min: number, max: number): Knob => ({
  name: `stance.${key}`,
  min,
  max,
  read: (p) => p.stance[key],
  write: (p, v) => ({ ...p, stance: { ...p.stance, [key]: v } }),
});

export const kickKnob = (key: NumericKeys<KickParams>, min: number, max: number): Knob => ({
  name: `kick.${key}`,
  min,
  max,
  read: (p) => p.kick[key],
  write: (p, v) => ({ ...p, kick: { ...p.kick, [key]: v } }),
});


function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Four significant decimals: params.ts stays readable and a retune is a small diff. */
const round = (v: number): number => Math.round(v * 1e4) / 1e4;

export interface Scored<R> {
  readonly score: number;
  readonly report: R;
}

export interface SearchOptions<R> {
  readonly knobs: readonly Knob[];
  readonly start: PolicyParams;
  readonly evaluate: (p: PolicyParams) => Promise<Scored<R>>;
  readonly generations: number;
  readonly lambda: number;
  /** Initial step, on the [0, 1] scale of every knob. */
  readonly sigma: number;
  readonly seed: number;
  readonly progress?: (g: number, best: Scored<R>, sigma: number, improved: boolean) => void;
}

export interface SearchResult<R> {
  readonly params: PolicyParams;
  readonly best: Scored<R>;
  readonly start: Scored<R>;
  readonly evaluations: number;
}

export async function search<R>(o: SearchOptions<R>): Promise<SearchResult<R>> {
  const random = seededRandom(o.seed);
  const apply = (base: PolicyParams, unit: readonly number[]): PolicyParams =>
    o.knobs.reduce((p, k, i) => k.write(p, round(k.min + (k.max - k.min) * Math.min(1, Math.max(0, unit[i] ?? 0)))), base);
  let unit = o.knobs.map((k) => Math.min(1, Math.max(0, (k.read(o.start) - k.min) / (k.max - k.min))));
  let params = apply(o.start, unit);
  let best = await o.evaluate(params);
  const start = best;
  let evaluations = 1;
  let sigma = o.sigma;
  for (let g = 1; g <= o.generations; g++) {
    let winner: { unit: number[]; params: PolicyParams; scored: Scored<R> } | undefined;
    for (let c = 0; c < o.lambda; c++) {
      const candidate = unit.map((u) => Math.min(1, Math.max(0, u + sigma * gaussian(random))));
      const p = apply(o.start, candidate);
      const scored = await o.evaluate(p);
      evaluations++;
      if (winner === undefined || scored.score > winner.scored.score) winner = { unit: candidate, params: p, scored };
    }
    const improved = winner !== undefined && winner.scored.score > best.score;
    if (improved && winner !== undefined) {
      unit = winner.unit;
      params = winner.params;
      best = winner.scored;
      sigma = Math.min(0.3, sigma * 1.3);
    } else {
      sigma = Math.max(0.01, sigma * 0.8);
    }
    o.progress?.(g, best, sigma, improved);
  }
  return { params, best, start, evaluations };
}
