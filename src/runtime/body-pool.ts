/**
 * The body pool: bodies are opened once and leased to runs. A lease's end stops motion but keeps
 * a held body open, so a serial link (and later a control loop) stays up across runs; a per-run
 * body (a seeded simulator's world) is opened for its lease and closed after it. One lease at a
 * time per robot; leases of different robots go on side by side.
 */
import { BodyStale, type Body } from '../bodies/body.js';
import { QuackdError } from '../errors.js';
import { timeOfDay } from '../text/clock.js';
import type { EventBus } from './events.js';
import type { Robot } from './fleet.js';
import { byText, cliUser, type Holder } from './holder.js';
import { policiesLine } from './journal.js';
import { logger } from '../log.js';
import { BUNDLED_SLOTS, bundledPolicyDir } from '../policy/bundled.js';

/**
 * A second run asked for a robot that is already running one: who holds it, since when, and how
 * to free it (`den is already running find-and-kick for mcp session 3f2a1b9c (claude-ai 0.1.0)
 * since 14:02:07; one run at a time per robot`).
 */
export class RobotBusy extends QuackdError {
  override readonly name = 'RobotBusy';
  constructor(
    readonly robot: string,
    readonly holder?: Holder,
  ) {
    // A holder with no duck is reading the robot's sensors (robot_observe): a moment's work.
    const what = holder === undefined ? 'is already running a duck' : holder.duck !== undefined ? `is already running ${holder.duck}` : 'is busy reading its sensors';
    const who = holder === undefined ? '' : ` for ${byText(holder.by)} since ${timeOfDay(holder.since)}`;
    super(`${robot} ${what}${who}; one run at a time per robot`, 'runtime', `'quackd stop ${robot}' frees it`);
  }
}

export interface Lease {
  readonly robot: Robot;
  readonly body: Body;
  /** Ends the lease: a per-run body closes, a held one stays open for the next run. */
  release(): Promise<void>;
}

/** A robot claimed for a run whose body is not open yet. */
export interface Reservation {
  open(seed: number): Promise<Lease>;
  /** Gives the claim back when the run never opened the body. */
  cancel(): void;
}

interface Held {
  readonly robot: Robot;
  body: Promise<Body> | undefined;
}

export class BodyPool {
  private readonly held = new Map<string, Held>();
  /** Who holds each robot claimed for a run (or a reading of its sensors). */
  private readonly leased = new Map<string, Holder>();
  /** The body each lease holds now, per-run or held: what an emergency stop reaches. */
  private readonly lent = new Map<string, Body>();
  private closing = false;
  /**
   * Robots whose last body closed owing a stop (its link was down when it was stopped): the next
   * body opened for it stops first, so a blip shorter than the firmware's watchdog does not leave
   * its motors on with nobody sending the stop.
   */
  private readonly owed = new Set<string>();
  /** The slots' folders last said in the journal for each robot, so a lease says only a change. */
  private readonly policiesSaid = new Map<string, string>();

  constructor(
    private readonly events: EventBus,
    /** The policy folders a robot that runs policies gets, read afresh at each open. */
    private readonly policiesOf: (robot: Robot) => Readonly<Record<string, string>> | undefined = () => undefined,
  ) {}

  /** Leases `robot`'s body for one run; `seed` picks a simulator's world. Throws RobotBusy. */
  lease(robot: Robot, seed: number, holder?: Holder): Promise<Lease> {
    return this.reserve(robot, holder).open(seed);
  }

  /** Who holds `robot` now, if anyone does. */
  holder(robot: string): Holder | undefined {
    return this.leased.get(robot);
  }

  /**
   * Claims `robot` for one run at once (throws RobotBusy, naming who holds it), before anything
   * opens; the body opens later, with `open`, once the run has a transcript to report a failure to.
   */
  reserve(robot: Robot, holder: Holder = { by: cliUser(), since: new Date() }): Reservation {
    if (this.closing) throw new Error('the runtime is stopping');
    const held = this.leased.get(robot.name);
    if (held !== undefined) throw new RobotBusy(robot.name, held);
    this.leased.set(robot.name, holder);
    let opened = false;
    return {
      open: (seed) => {
        opened = true;
        return this.openLease(robot, seed);
      },
      cancel: () => {
        if (!opened) this.leased.delete(robot.name);
      },
    };
  }

  private async openLease(robot: Robot, seed: number): Promise<Lease> {
    let body: Body;
    try {
      body = await this.begun(robot, seed);
    } catch (err) {
      // A held body gone stale between runs (its servo bus faulted, nobody running) is the old
      // body's trouble, not this run's: opened afresh once, and only that open's failure is said.
      if (!(err instanceof BodyStale) || robot.entry.perRun === true) {
        this.leased.delete(robot.name);
        throw err;
      }
      try {
        body = await this.begun(robot, seed);
      } catch (again) {
        this.leased.delete(robot.name);
        throw again;
      }
    }
    this.lent.set(robot.name, body);
    let released = false;
    // A held body whose link died is not lent again: it is closed, and the next run opens afresh.
    let lost = false;
    const unwatch = body.onTrouble?.((t) => (lost ||= t.kind === 'link-lost'));
    return {
      robot,
      body,
      release: async () => {
        if (released) return;
        released = true;
        unwatch?.();
        this.lent.delete(robot.name);
        try {
          if (robot.entry.perRun === true) await this.close(robot, body);
          else if (lost) await this.discard(robot, body);
        } finally {
          this.leased.delete(robot.name);
        }
      },
    };
  }

  /**
   * `robot`'s body, open and told a run begins. One that cannot start a run (its link died between
   * runs, its firmware does not answer, its bus faulted) is closed, never lent again.
   */
  private async begun(robot: Robot, seed: number): Promise<Body> {
    const body = robot.entry.perRun === true ? await this.open(robot, seed) : await this.heldBody(robot, seed);
    // Before the try: a slots file that cannot be read fails this run, not the held body.
    if (robot.entry.perRun !== true) this.lendPolicies(robot, body);
    try {
      await body.beginRun?.();
    } catch (err) {
      if (robot.entry.perRun === true) await this.close(robot, body).catch(() => undefined);
      else await this.discard(robot, body);
      throw err;
    }
    return body;
  }

  /**
   * Opens a held body now, outside any run, so a service shows its link from the start; nothing
   * moves (a body opens limp or holding the pose it finds). A per-run body opens with its run.
   */
  async hold(robot: Robot): Promise<void> {
    if (robot.entry.perRun === true || this.closing) return;
    await this.heldBody(robot, 0);
  }

  /**
   * Whether `robot` is a held robot with no body open or opening and no run (a run's lease ends
   * after its lost body is closed): one the service may open again, its port missing at start or
   * its body closed after a lost link.
   */
  unopened(robot: Robot): boolean {
    if (robot.entry.perRun === true || this.closing || this.leased.has(robot.name)) return false;
    return this.held.get(robot.name)?.body === undefined;
  }

  /**
   * Halts a robot's motion now, in a run or between runs (an emergency stop): the body a lease
   * holds, else its held body. False when no body of it is open.
   */
  async stopBody(name: string): Promise<boolean> {
    const body = this.lent.get(name) ?? (await this.held.get(name)?.body?.catch(() => undefined));
    if (body === undefined) return false;
    await (body.emergencyStop !== undefined ? body.emergencyStop() : body.stop());
    return true;
  }

  /** Stops and closes every held body (the runtime's stop). */
  async closeAll(): Promise<void> {
    this.closing = true;
    const held = [...this.held.values()];
    this.held.clear();
    await Promise.all(
      held.map(async (h) => {
        const body = await h.body?.catch(() => undefined);
        if (body === undefined) return;
        await body.stop().catch(() => undefined);
        await this.close(h.robot, body);
      }),
    );
  }

  private async discard(robot: Robot, body: Body): Promise<void> {
    this.held.delete(robot.name);
    await this.close(robot, body).catch(() => undefined);
  }

  private heldBody(robot: Robot, seed: number): Promise<Body> {
    const h = this.held.get(robot.name) ?? { robot, body: undefined };
    this.held.set(robot.name, h);
    // A body that failed to open (port missing) is tried afresh by the next run.
    h.body ??= this.open(robot, seed).catch((err: unknown) => {
      h.body = undefined;
      throw err;
    });
    return h.body;
  }

  /**
   * A held body runs each slot's folder as the slots say at this lease (`quackd policy load`
   * between runs), not as they said when the service opened it; the journal says a change.
   */
  private lendPolicies(robot: Robot, body: Body): void {
    const policies = robot.entry.policies === true ? this.policiesOf(robot) : undefined;
    if (policies === undefined || body.usePolicies === undefined) return;
    body.usePolicies(policies);
    this.sayPolicies(robot.name, policies, false);
  }

  /** The journal's line of a robot's policies: at each opening, and at a lease only when they changed. */
  private sayPolicies(robot: string, policies: Parameters<typeof policiesLine>[1], always: boolean): void {
    const said = JSON.stringify(policies);
    if (!always && this.policiesSaid.get(robot) === said) return;
    this.policiesSaid.set(robot, said);
    policiesLine(robot, policies, new Set(BUNDLED_SLOTS.map(bundledPolicyDir)));
  }

  private async open(robot: Robot, seed: number): Promise<Body> {
    const policies = robot.entry.policies === true ? this.policiesOf(robot) : undefined;
    const body = await robot.entry.load({ seed, settings: robot.settings, robot: robot.name, events: this.events, ...(policies !== undefined ? { policies } : {}) });
    if (this.owed.has(robot.name)) await this.payOwed(robot, body);
    this.events.emit('body:open', { robot: robot.name, key: robot.key });
    if (policies !== undefined) this.sayPolicies(robot.name, policies, true);
    return body;
  }

  /** The stop the robot's last body could not deliver, before anything else; a body that cannot deliver it either is not lent. */
  private async payOwed(robot: Robot, body: Body): Promise<void> {
    try {
      await body.stop();
    } catch (err) {
      await body.close().catch(() => undefined);
      throw err;
    }
    this.owed.delete(robot.name);
    logger('runtime').info({ robot: robot.name }, 'stop sent again as the link came back (the last one had not reached the motors): confirmed');
  }

  private async close(robot: Robot, body: Body): Promise<void> {
    try {
      await body.close();
    } finally {
      if (body.stopOwed === true) this.owed.add(robot.name);
      this.events.emit('body:close', { robot: robot.name, key: robot.key });
    }
  }
}
