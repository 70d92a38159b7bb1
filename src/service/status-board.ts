/**
 * The status board: each robot's RobotStatus, kept from the bus's events alone (runs, steps,
 * gates, the control loop's health, what a held body reports), never by asking a body or a loop.
 * When a robot's status changes it says so on the bus (`robot:status`), so a dashboard publishes
 * state as it happens instead of polling.
 */
import type { BodyKey } from '../bodies/body.js';
import type { EventBus } from '../runtime/events.js';
import type { Robot } from '../runtime/fleet.js';
import type { RobotActivity, RobotStatus } from './api.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface Entry {
  status: Mutable<RobotStatus>;
  /** Opened for each run (a simulator, a daemon's robot): `offline` only while its daemon does not answer (reach-watch.ts). */
  readonly perRun: boolean;
  open: boolean;
  fallen: boolean;
  stopping: boolean;
}

const unmet = (robot: string, key: BodyKey, perRun: boolean): Mutable<RobotStatus> => ({ robot, key, activity: perRun ? 'idle' : 'offline' });

export class StatusBoard {
  private readonly entries = new Map<string, Entry>();
  private unlisten: (() => void)[] = [];
  private last = new Map<string, string>();

  constructor(
    private readonly events: EventBus,
    fleet: readonly Robot[],
    private readonly now: () => Date = () => new Date(),
  ) {
    for (const robot of fleet) this.add(robot.name, robot.key, robot.entry.perRun === true);
  }

  start(): void {
    const on = this.events.on.bind(this.events);
    this.unlisten = [
      on('run:start', (e) => this.change(e.robot, e.key, (s) => {
        s.run = { runId: e.runId, duck: e.duck, step: 0, startedAt: this.now().toISOString(), by: e.by };
        delete s.gate;
      })),
      on('run:step', (e) => this.change(e.robot, undefined, (s) => {
        if (e.step !== undefined && s.run?.runId === e.runId) s.run = { ...s.run, step: e.step };
      })),
      on('run:gate', (e) => this.change(e.robot, undefined, (s) => {
        if (e.state === 'waiting') s.gate = { question: e.question, verb: e.verb, since: this.now().toISOString() };
        else delete s.gate;
      })),
      on('run:end', (e) => this.change(e.robot, e.key, (s, entry) => {
        s.lastOutcome = { ...e.outcome, runId: e.runId, duck: s.run?.runId === e.runId ? s.run.duck : '', endedAt: this.now().toISOString() };
        delete s.run;
        delete s.gate;
        entry.stopping = false;
      })),
      on('control:stats', (e) => this.change(e.robot, undefined, (s, entry) => {
        const { hz, periodMs, restingMs, missed, overruns, state, scheduling } = e.stats;
        s.loop = { hz, periodMs, ...(restingMs !== undefined ? { restingMs } : {}), missed, overruns, state, scheduling };
        // A loop that stands again (holding, running) is no longer fallen; a closed one says nothing of it.
        if (state === 'fallen') entry.fallen = true;
        else if (state !== 'closed') {
          entry.fallen = false;
          delete s.fell;
        }
      })),
      on('control:fell', (e) => this.change(e.robot, undefined, (s, entry) => {
        entry.fallen = true;
        s.fell = { at: this.now().toISOString(), tilt_deg: Math.round((e.tiltRad * 180) / Math.PI) };
      })),
      // A body opened outside the fleet for a look (an MCP client's observe) is no robot of the board's; a run brings it on.
      on('body:open', (e) => this.change(e.robot, undefined, (_s, entry) => {
        entry.open = true;
      })),
      on('body:close', (e) => this.change(e.robot, undefined, (s, entry) => {
        entry.open = false;
        // A closed loop's rate is not a rate any more.
        delete s.loop;
      })),
      on('body:report', (e) => this.change(e.robot, undefined, (s) => {
        if (e.battery_v !== undefined) s.battery_v = e.battery_v;
        if (e.battery_pct !== undefined) s.battery_pct = e.battery_pct;
        if (e.torque !== undefined) s.torque = e.torque;
        if (e.link !== undefined) s.link = e.link;
        if (e.link === 'lost' && e.why !== undefined) s.away = e.why;
        else if (e.link !== undefined) delete s.away;
      })),
    ];
  }

  stop(): void {
    for (const off of this.unlisten) off();
    this.unlisten = [];
  }

  /** The service asked this robot to stop: `stopping` until its run ends. */
  stopping(robot: string): void {
    this.change(robot, undefined, (s, entry) => {
      if (s.run !== undefined) entry.stopping = true;
    });
  }

  list(): RobotStatus[] {
    return [...this.entries.values()].map((e) => ({ ...e.status }));
  }

  /**
   * A robot's status; one the board has not met yet (a body key outside the fleet) is idle, or
   * offline, and stays off the board: asking after a robot (an MCP client's observe, a status)
   * must not add it to the robots this service looks after. It joins when a run or body event names it.
   */
  get(robot: string, key: BodyKey, perRun: boolean): RobotStatus {
    return { ...(this.entries.get(robot)?.status ?? unmet(robot, key, perRun)) };
  }

  private add(robot: string, key: BodyKey, perRun: boolean): Entry {
    const entry: Entry = { status: unmet(robot, key, perRun), perRun, open: false, fallen: false, stopping: false };
    this.entries.set(robot, entry);
    return entry;
  }

  private change(robot: string, key: BodyKey | undefined, edit: (status: Mutable<RobotStatus>, entry: Entry) => void): void {
    const entry = this.entries.get(robot) ?? (key !== undefined ? this.add(robot, key, true) : undefined);
    // Events of a robot the board never met and cannot name a body for (a loop of a test's own) are not a robot's status.
    if (entry === undefined) return;
    edit(entry.status, entry);
    entry.status.activity = activity(entry);
    const status = { ...entry.status };
    const text = JSON.stringify(status);
    if (this.last.get(robot) === text) return;
    this.last.set(robot, text);
    this.events.emit('robot:status', { robot, status });
  }
}

function activity(entry: Entry): RobotActivity {
  if (entry.status.run !== undefined) return entry.stopping ? 'stopping' : 'running';
  // Out of reach before fallen: a fall was last seen, but nothing says the robot still lies there
  // (someone may have stood it up), and that nothing reaches it is the news. `fell` keeps the fall;
  // the link back, its loop says again whether it is down.
  if ((!entry.perRun && !entry.open) || entry.status.link === 'lost') return 'offline';
  if (entry.fallen) return 'fallen';
  return 'idle';
}
