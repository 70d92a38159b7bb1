/**
 * A held Microduck body's policy folders for the run it is lent to. The body outlives the run it
 * opened for, so the pool hands it each slot's folder at every lease (Body.usePolicies:
 * `quackd policy load` between runs); until it has, the folders it opened with stand.
 *
 * A folder new to the body is warmed in its loop's worker at once (ControlLoop.warm: the session
 * made and run once, right after a tick), and the run begins once it is warm (ready): made at the
 * walk's first verb instead, the session blocked the worker just before that verb's first tick,
 * which then came tens of milliseconds late on a Pi, at the start of a gait.
 */
import type { ControlLoop } from '../../control/control-loop.js';
import { policyWarmups } from '../../control/skills/specs.js';
import { SLOTS, type Slot } from '../../policy/slots.js';

/** How long a run waits for a swapped policy to warm; past it, its first verb waits for the rest (a huge model). */
const WARM_WAIT_MS = 3000;

export class LentPolicies {
  private dirs: Readonly<Record<string, string>> | undefined;
  private warming: Promise<void> = Promise.resolve();

  constructor(
    /** Each slot's folder as the body opened. */
    private readonly opened: (slot: Slot) => string,
    /** The body's loop, which warms a folder new to it; none for a body opened without one. */
    private readonly loop?: Pick<ControlLoop, 'warm'>,
  ) {}

  use(dirs: Readonly<Record<string, string>>): void {
    const fresh = new Set(SLOTS.flatMap((slot) => (dirs[slot] !== undefined && dirs[slot] !== this.dir(slot) ? [dirs[slot]] : [])));
    this.dirs = { ...dirs };
    if (fresh.size > 0 && this.loop !== undefined) this.warming = this.loop.warm(policyWarmups([...fresh])).catch(() => undefined);
  }

  /** The slot's folder for this run: the one lent, or the one it opened with. */
  dir(slot: Slot): string {
    return this.dirs?.[slot] ?? this.opened(slot);
  }

  /** Resolves once the folders lent last are warm, or after WARM_WAIT_MS. */
  async ready(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, WARM_WAIT_MS)));
    await Promise.race([this.warming, late]);
    clearTimeout(timer);
  }
}
