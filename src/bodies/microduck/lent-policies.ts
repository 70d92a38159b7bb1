/**
 * A held Microduck body's policy folders for the run it is lent to. The body outlives the run it
 * opened for, so the pool hands it each slot's folder at every lease (Body.usePolicies:
 * `quackd policy load` between runs); until it has, the folders it opened with stand.
 */
import type { Slot } from '../../policy/slots.js';

export class LentPolicies {
  private dirs: Readonly<Record<string, string>> | undefined;

  use(dirs: Readonly<Record<string, string>>): void {
    this.dirs = { ...dirs };
  }

  /** The slot's folder for this run: the one lent, or `opened`'s. */
  dir(slot: Slot, opened: (slot: Slot) => string): string {
    return this.dirs?.[slot] ?? opened(slot);
  }
}
