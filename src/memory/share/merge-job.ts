/**
 * Merging what came from the fleet into one body, inside the write transaction the writer runs it
 * in (src/memory/writer-jobs.ts): each arrival is planned against the entries as the ones before
 * it left them, so a catch-up of 400 retained messages is one commit, not 400.
 */
import type { Entry } from '../entry.js';
import type { BodyTx } from '../lmdb-store.js';
import { planMerge, type Arrival, type MergeOutcome } from './merge.js';

export interface Merged {
  readonly id: string;
  readonly outcome: MergeOutcome;
  /** The entries written, as stored. */
  readonly put: readonly Entry[];
  /** The ids removed (an entry outranked, a forget, the cap). */
  readonly del: readonly string[];
}

export function mergeArrivals(tx: BodyTx, arrivals: readonly Arrival[]): Merged[] {
  return arrivals.map((arrival) => {
    const plan = planMerge(tx.entries(), arrival);
    for (const id of plan.del) tx.remove(id);
    for (const e of plan.put) tx.put(e);
    return { id: arrival.kind === 'entry' ? arrival.entry.id : arrival.id, ...plan };
  });
}
