/**
 * Watches the robots opened per run that are driven through a daemon of their own (a Reachy Mini
 * through Pollen's daemon): nothing is held open between their runs, so nothing would say the
 * daemon died. While such a robot is idle the service asks its daemon every few seconds (one cheap
 * GET, BodyEntry.reach) and says on the bus, as a held robot's link does, `link lost` with why
 * when it does not answer, or answers with its backend stopped (it drives nothing then), and
 * `link ok` when it can drive the robot again: status, health and MQTT availability follow. Nothing moves and no run starts; a run under way is its own witness, and a body that
 * opens has just been answered.
 */
import type { ModuleLogger } from '../log.js';
import type { Robot } from '../runtime/fleet.js';
import type { Runtime } from '../runtime/runtime.js';

const ASK_EVERY_MS = 5000;

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

export class ReachWatch {
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => void) | undefined;
  private watched: readonly Robot[] = [];
  private readonly asking = new Set<string>();
  /** What was last said of each robot: `ok`, or why it does not answer. */
  private readonly said = new Map<string, string>();
  /** Bodies opened per robot: an answer asked for before the last of them is stale. */
  private readonly opened = new Map<string, number>();
  private stopped = false;

  constructor(
    private readonly runtime: Runtime,
    private readonly log: ModuleLogger,
  ) {}

  /** Asks each watched robot's daemon once (so status is right from the start), then every few seconds. */
  async start(): Promise<void> {
    this.watched = this.robots();
    if (this.watched.length === 0) return;
    this.unlisten ??= this.runtime.events.on('body:open', ({ robot }) => {
      if (!this.watched.some((r) => r.name === robot)) return;
      this.opened.set(robot, (this.opened.get(robot) ?? 0) + 1);
      this.say(robot, undefined);
    });
    await Promise.all(this.watched.map((robot) => this.ask(robot)));
    this.timer ??= setInterval(() => this.look(), ASK_EVERY_MS);
    this.timer.unref();
  }

  /** Idempotent; an answer still coming is dropped. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.unlisten?.();
    this.unlisten = undefined;
  }

  private robots(): Robot[] {
    const robots: Robot[] = [];
    for (const member of this.runtime.fleet.list()) {
      if (member.entry.perRun !== true || member.entry.reach === undefined) continue;
      try {
        robots.push(this.runtime.robot(member.name));
      } catch {
        // A setting the file lacks: its runs are refused with the same words, and there is nothing to ask.
      }
    }
    return robots;
  }

  private look(): void {
    for (const robot of this.watched) {
      if (!this.asking.has(robot.name) && this.runtime.bodies.holder(robot.name) === undefined) void this.ask(robot);
    }
  }

  private async ask(robot: Robot): Promise<void> {
    const reach = robot.entry.reach;
    if (reach === undefined) return;
    this.asking.add(robot.name);
    const opened = this.opened.get(robot.name) ?? 0;
    let why: string | undefined;
    try {
      why = await reach(robot.settings);
    } catch (err) {
      why = message(err);
    } finally {
      this.asking.delete(robot.name);
    }
    // A run took the robot meanwhile, or a body opened since: that is the newer word.
    if (this.stopped || this.runtime.bodies.holder(robot.name) !== undefined || (this.opened.get(robot.name) ?? 0) !== opened) return;
    this.say(robot.name, why);
  }

  private say(robot: string, why: string | undefined): void {
    const now = why ?? 'ok';
    if (this.said.get(robot) === now) return;
    const was = this.said.get(robot);
    this.said.set(robot, now);
    if (why !== undefined && was !== undefined && was !== 'ok') this.log.debug({ robot, err: why }, 'daemon still not answering');
    this.runtime.events.emit('body:report', why === undefined ? { robot, link: 'ok' } : { robot, link: 'lost', why });
  }
}
