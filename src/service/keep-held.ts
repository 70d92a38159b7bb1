/**
 * Keeps the fleet's held robots open. At start each serial robot's body is opened so status shows
 * its link (opening says hello and never switches torque on: nothing moves); a robot that is not
 * open (its port missing at start, a cable out, a duck charging elsewhere; or its body closed
 * after its link was lost in a run) is opened again once its device is back, so status, health
 * and a dashboard show the robot as it is and its next run finds it open. A device still missing
 * costs a stat every few seconds, never a worker; one that is there but does not open (a firmware
 * that does not answer) is tried less and less often, up to once a minute.
 */
import type { ModuleLogger } from '../log.js';
import type { Robot } from '../runtime/fleet.js';
import type { Runtime } from '../runtime/runtime.js';

const LOOK_EVERY_MS = 2000;
const LONGEST_WAIT_MS = 60_000;

interface Spell {
  /** Failed opens since the device was last seen to arrive. */
  failures: number;
  notBefore: number;
  present: boolean;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

export class KeepHeld {
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => void) | undefined;
  private readonly opening = new Set<string>();
  /** The held robots, resolved once: the fleet is the config file's, read at start. */
  private held: readonly Robot[] = [];
  private readonly spells = new Map<string, Spell>();
  /** Why each held robot that is not open is not (its last open's error). */
  private readonly reasons = new Map<string, string>();

  constructor(
    private readonly runtime: Runtime,
    private readonly log: ModuleLogger,
  ) {}

  /** Opens every held robot's body, side by side, then looks after them. */
  async start(): Promise<void> {
    // Opened by anyone (a run, too): whatever kept it closed is over.
    this.unlisten ??= this.runtime.events.on('body:open', ({ robot }) => this.reasons.delete(robot));
    this.held = this.robots();
    await Promise.all(this.held.map((robot) => this.open(robot)));
    this.timer ??= setInterval(() => this.look(), LOOK_EVERY_MS);
    this.timer.unref();
  }

  /** Idempotent; a body being opened finishes opening (the runtime's stop closes it). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unlisten?.();
    this.unlisten = undefined;
  }

  /** Why `robot` is not open (`serial port /dev/… not found …`), if an open said. */
  reason(robot: string): string | undefined {
    return this.reasons.get(robot);
  }

  private robots(): Robot[] {
    const robots: Robot[] = [];
    for (const member of this.runtime.fleet.list()) {
      if (member.entry.perRun === true) continue;
      try {
        robots.push(this.runtime.robot(member.name));
      } catch (err) {
        // A setting the file lacks (port): its runs are refused with the same words.
        this.reasons.set(member.name, message(err));
      }
    }
    return robots;
  }

  private look(): void {
    const now = Date.now();
    for (const robot of this.held) {
      if (this.opening.has(robot.name) || !this.runtime.bodies.unopened(robot)) continue;
      const spell = this.spells.get(robot.name) ?? { failures: 0, notBefore: 0, present: true };
      this.spells.set(robot.name, spell);
      const present = robot.entry.present?.(robot.settings) ?? true;
      // Plugged in again: tried at once, whatever the waits before.
      if (present && !spell.present) spell.notBefore = 0;
      spell.present = present;
      if (present && now >= spell.notBefore) void this.open(robot);
    }
  }

  private async open(robot: Robot): Promise<void> {
    this.opening.add(robot.name);
    const facts = { robot: robot.name, body: robot.key };
    try {
      await this.runtime.bodies.hold(robot);
      this.spells.delete(robot.name);
      this.log.info(facts, 'body open');
    } catch (err) {
      const spell = this.spells.get(robot.name) ?? { failures: 0, notBefore: 0, present: true };
      spell.failures += 1;
      spell.notBefore = Date.now() + Math.min(LONGEST_WAIT_MS, LOOK_EVERY_MS * 2 ** spell.failures);
      this.spells.set(robot.name, spell);
      const why = message(err);
      // Said once a spell (and again when the reason changes), not every few seconds.
      if (this.reasons.get(robot.name) !== why) this.log.warn({ ...facts, err: why }, 'body not open; opened again once its device is back (its next run tries too)');
      else this.log.debug({ ...facts, err: why }, 'body still not open');
      this.reasons.set(robot.name, why);
    } finally {
      this.opening.delete(robot.name);
    }
  }
}
