/**
 * microduck:feetech and microduck:dynamixel: a duck whose Pi drives its servo bus itself (the
 * Open Duck Mini v2's STS3215s, the XL330 ducks), with the same 50 Hz control loop, policies and
 * safety stage as the twin and the jsonrpc duck. The bus plant (control-plant.ts) lives in the
 * loop's worker and owns the port; this body switches torque through it (channel.ts), reads
 * what it knows (sense), and runs walk, turn and kick as policy verbs.
 *
 * Opening never switches torque on (nothing moves because a process started); a motion verb
 * does, read back from every servo, the goals set to the pose the servos stand in first. A fault
 * on the bus (a servo silent, a reply garbled after its retry, an alarm bit, the adapter pulled)
 * ends the verb at the next look (every WATCH_MS) and the run: motion can no longer be trusted.
 * Torque off is then attempted and its read-back said in the same line. A held duck's bus is
 * watched between runs too (IDLE_WATCH_MS): a fault there is said on the runtime's bus as a lost
 * link (`body:report`), and the link as ok again once every servo answers; the body is still not
 * trusted, and the next run finds it stale (BodyStale), so the pool opens it afresh for that run.
 * Closing turns torque off
 * and reads it back: on Feetech nothing else would (the servos hold their last goal after a
 * `kill -9`); on Dynamixel the Bus Watchdog also stops them 100 ms after quackd falls silent.
 *
 * Without an IMU reading the motion verbs are refused, saying why (none configured, the BNO055 not
 * answering): a policy fed an invented upright trunk is not walking. The IMU is the trunk's BNO055
 * (`imu:`, read in the plant: trunk-imu.ts); tests give a simulator's (`sim_imu`).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { ControlLoop } from '../../../control/control-loop.js';
import type { HeadingHoldSettings } from '../../../control/skills/heading-hold.js';
import { ControlError } from '../../../control/errors.js';
import { DEFAULT_FALL, type FallSettings } from '../../../control/fall.js';
import { describeVerb, type VerbResult as LoopResult } from '../../../control/skill.js';
import { skillWarmups } from '../../../control/skills/specs.js';
import { bundledPolicyDir } from '../../../policy/bundled.js';
import { timeLimitMs, timedWalk, type Axis, type Commanded } from '../../../policy/command.js';
import { SLOTS, type Slot } from '../../../policy/slots.js';
import { LentPolicies } from '../lent-policies.js';
import { missedNote, ranSeconds, runPolicyVerb, stanceRefusal, verbCommand, type PolicyVerb } from '../policy-verb.js';
import type { ProtocolName } from '../../../servo-bus/packet.js';
import { siblingModule } from '../../../worker-thread.js';
import { logger } from '../../../log.js';
import type { EventBus } from '../../../runtime/events.js';
import { BodyError, BodyStale, type Body, type BodyKey, type BodyOptions, type BodyTrouble, type Frame, type Intent, type Metrics, type Observation, type VerbResult } from '../../body.js';
import { turnedDeg } from '../heading.js';
import { torqueResult } from '../torque.js';
import { RemoteServoBus, type TorqueReadBack } from './channel.js';
import { BusFactsSchema, IMU_PENDING, type BusFacts } from './control-plant.js';
import { OPEN_DUCK_MINI_V2 } from './joint-table.js';
import { noLate } from './late-tally.js';
import { BUS_REFUSED, busKey, servoBusSettings } from './settings.js';

const PERIOD_MS = 20;
/** How often a running verb looks at the bus for a fault. */
const WATCH_MS = 50;
/**
 * How often a held duck's bus is looked at when nobody but the service listens: a dashboard's
 * second. Each look is a round trip to the control worker, which a held duck's idle CPU pays.
 */
const IDLE_WATCH_MS = 1000;
const TORQUE_TIMEOUT_MS = 3000;

const deg = (r: number): number => Math.round((r * 180) / Math.PI);
const round2 = (n: number): number => Math.round(n * 100) / 100;

/** `torque off: read back from every servo`, or which servos did not say so. */
export function describeReadBack(b: TorqueReadBack): string {
  const state = b.asked ? 'on' : 'off';
  if (b.stuck.length === 0 && b.silent.length === 0) return `torque ${state}: read back from every servo`;
  const parts = [...(b.stuck.length > 0 ? [`${b.stuck.join(', ')} still ${b.asked ? 'off' : 'on'}`] : []), ...(b.silent.length > 0 ? [`${b.silent.join(', ')} did not answer`] : [])];
  return `torque ${state} not confirmed: ${parts.join('; ')}`;
}

export class BusBody implements Body {
  private facts: BusFacts;
  private closed = false;
  private halt: AbortController | undefined;
  private readonly listeners = new Set<(t: BodyTrouble) => void>();
  private watch: NodeJS.Timeout | undefined;
  private watchMs: number | undefined;
  private reported = false;

  constructor(
    readonly key: BodyKey,
    private readonly loop: ControlLoop,
    private readonly remote: RemoteServoBus,
    private readonly port: string,
    private readonly policies: (slot: Slot) => string,
    first: BusFacts,
    /** A straight walk's heading hold (the robot's `heading_hold`; off unless set: BUS_HEADING_HOLD). */
    private readonly headingHold: HeadingHoldSettings | false,
    /** Says the bus's link on the runtime's bus when it changes (a held duck's: the service shows it). */
    private readonly sayLink?: (up: boolean) => void,
  ) {
    this.facts = first;
    this.lent = new LentPolicies(policies, loop);
    sayLink?.(linkUp(first));
    this.rewatch();
  }

  private async sense(): Promise<BusFacts> {
    const parsed = BusFactsSchema.safeParse(await this.loop.sense().catch(() => null));
    if (parsed.success) this.facts = parsed.data;
    return this.facts;
  }

  onTrouble(listener: (t: BodyTrouble) => void): () => void {
    this.listeners.add(listener);
    this.rewatch();
    return () => {
      this.listeners.delete(listener);
      this.rewatch();
    };
  }

  /** Each slot's folder for this run: the pool lends them at every lease. */
  private readonly lent: LentPolicies;

  usePolicies(dirs: Readonly<Record<string, string>>): void {
    this.lent.use(dirs);
  }

  private policyDir(slot: Slot): string {
    return this.lent.dir(slot);
  }

  /** A bus that faulted (in an earlier run, or between runs) is not trusted again: the pool opens the robot afresh. */
  async beginRun(): Promise<void> {
    // A policy swapped since the last run is warm before the run's first verb (lent-policies.ts).
    await this.lent.ready();
    const f = await this.sense();
    if (f.fault !== null) throw new BodyStale(`${this.key} on ${this.port} faulted (${f.fault}); it is opened afresh`);
  }

  async observe(): Promise<Observation> {
    const f = await this.sense();
    this.assertSound(f);
    return { summary: `${f.protocol} bus: ${f.torque ? 'torque on' : 'torque off'}, tilt ${deg(f.tilt_rad)}°${f.imu ? '' : ' (no IMU)'}`, data: { torque: f.torque, tilt_deg: deg(f.tilt_rad), imu: f.imu } };
  }

  async perform(intent: Intent, signal?: AbortSignal): Promise<VerbResult> {
    const refused = BUS_REFUSED[intent.verb];
    if (refused !== undefined) return { ok: false, summary: `${intent.verb} ${refused} on ${this.key}` };
    if (signal?.aborted === true) return { ok: false, summary: `${intent.verb}: stopped before it started` };
    this.assertSound(await this.sense());
    if (intent.verb === 'torque') {
      const back = await this.torque(intent.args.on);
      const problem = back.stuck.length > 0 || back.silent.length > 0;
      return problem ? { ok: false, summary: describeReadBack(back), data: { torque: this.facts.torque, stuck: back.stuck, silent: back.silent } } : torqueResult(intent.args.on);
    }
    if (intent.verb !== 'walk' && intent.verb !== 'turn' && intent.verb !== 'kick') return { ok: false, summary: `${intent.verb} is not a verb of ${this.key}` };
    if (!this.facts.imu) return { ok: false, summary: `${intent.verb} needs the trunk's IMU, and ${this.key} reads none: ${this.facts.imu_problem ?? IMU_PENDING}` };
    if (intent.verb === 'walk') return this.walk(intent.args.metres, intent.args.speed, signal);
    if (intent.verb === 'turn') return this.turn(intent.args.degrees, intent.args.rate, signal);
    return this.kick(intent.args.foot, signal);
  }

  private async torque(on: boolean): Promise<TorqueReadBack> {
    try {
      const back = await this.remote.torque(on);
      await this.sense();
      return back;
    } catch (err) {
      throw new BodyError(`${this.key}: torque ${on ? 'on' : 'off'}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private command(slot: Slot, axis: Axis, direction: number, asked?: number): Commanded | VerbResult {
    return verbCommand(this.policyDir(slot), slot, axis, direction, asked);
  }

  /** Torque on (read back), then the policy until `until` or its time; a bus fault ends it and the run. */
  private async drive(v: PolicyVerb, signal?: AbortSignal): Promise<LoopResult | VerbResult> {
    const { verb } = v;
    const refusal = stanceRefusal((slot) => this.policyDir(slot), v.slot);
    if (refusal !== undefined) return { ok: false, summary: `${verb}: ${refusal}` };
    // The plant's late answers are tallied afresh for this verb (its result quotes its own worst),
    // and the facts kept here forget the last verb's, should the plant not be read again.
    await this.remote.markLate().catch((err: unknown) => {
      throw new BodyError(`${this.key}: ${verb}: ${err instanceof Error ? err.message : String(err)}`);
    });
    this.facts = { ...this.facts, late_since_mark: noLate() };
    // Every motion verb switches torque on itself (goals first set to the pose the servos stand
    // in), so only torque it has read back from every servo is ever driven.
    const back = await this.torque(true);
    if (back.silent.length > 0) await this.failHard(verb, `${back.silent.join(', ')} did not answer torque on`);
    if (back.stuck.length > 0) return { ok: false, summary: `${verb}: ${describeReadBack(back)}`, data: { stuck: back.stuck } };
    const halt = new AbortController();
    this.halt = halt;
    const stop = (): void => halt.abort();
    signal?.addEventListener('abort', stop, { once: true });
    this.rewatch();
    let result: LoopResult;
    try {
      result = await runPolicyVerb({ loop: this.loop, dir: (slot) => this.policyDir(slot), headingHold: this.headingHold }, v, halt.signal);
    } finally {
      signal?.removeEventListener('abort', stop);
      this.halt = undefined;
      this.rewatch();
    }
    const f = await this.sense();
    if (f.fault !== null) await this.failHard(verb, f.fault);
    return result;
  }

  /** The run ends here: torque off is tried and its read-back said with the fault. */
  private async failHard(verb: string, fault: string): Promise<never> {
    const off = await this.remote.torque(false).then(describeReadBack, (err: unknown) => `torque off not sent: ${err instanceof Error ? err.message : String(err)}`);
    throw new BodyError(`${verb} on ${this.port}: ${fault}; ${off}`);
  }

  private failed(result: LoopResult, what: string): VerbResult | undefined {
    if (result.outcome === 'done') return undefined;
    const why = result.outcome === 'stopped' ? 'stopped' : describeVerb(result);
    // A verb that went wrong while the bus's answers came late says so: a duck that fell walking blind was not only a fall.
    const late = this.lateTicks();
    const blind = late !== undefined ? `; ${late}, which held the duck without a reading` : '';
    const missed = missedNote(result);
    return { ok: false, summary: `${what}: ${why}${blind}${missed !== undefined ? `; ${missed}` : ''}`, data: { tilt_deg: deg(this.facts.tilt_rad), ran_s: ranSeconds(result, PERIOD_MS), ...(result.outcome === 'stopped' ? { stopped: true } : {}) } };
  }

  /**
   * A verb that went well while the bus answered late says so: the duck held blind meanwhile.
   * Cycles the bus gave up on (the control plant's lateGraceMs) are said as such; else ticks on
   * which the reading was too old (a slow wire), which a walk sometimes survives and sometimes not.
   */
  private lateNote(): string {
    const { cycles: n, after_ms } = this.facts.late_since_mark;
    if (n > 0) return `; the servo bus answered late ${n === 1 ? 'once' : `${n} times`} (${after_ms} ms after it gave up at worst), holding the duck without a reading meanwhile`;
    const late = this.lateTicks();
    return late !== undefined ? `; ${late}, holding the duck without a reading meanwhile` : '';
  }

  /** Ticks of this verb on which the reading was too old to act on, if any: the bus's, the trunk IMU's. */
  private lateTicks(): string | undefined {
    const { ticks: n, worst_ms, imu_ticks: m, imu_out_ms } = this.facts.late_since_mark;
    const said = [
      ...(n > 0 ? [`the servo bus answered late on ${n} tick${n === 1 ? '' : 's'} (a reading ${worst_ms} ms old at worst)`] : []),
      ...(m > 0 ? [`the trunk's IMU answered late on ${m} tick${m === 1 ? '' : 's'} (a read out ${imu_out_ms} ms at worst)`] : []),
    ];
    return said.length > 0 ? said.join(' and ') : undefined;
  }

  /** The bus carries no odometry: a walk ends on its time (timedWalk) and says so. */
  private async walk(metres: number, speed: number | undefined, signal?: AbortSignal): Promise<VerbResult> {
    const c = this.command('walk', 'vx', metres, speed);
    if (!('axis' in c)) return c;
    const timed = timedWalk(c, metres);
    const r = await this.drive({ verb: 'walk', slot: 'walk', command: { vx: c.value, vy: 0, vyaw: 0 }, until: { kind: 'distance', metres }, timeoutMs: timed.ms }, signal);
    if (!('outcome' in r)) return r;
    const ran = ranSeconds(r, PERIOD_MS);
    const what = `walked ${ran.toFixed(1)} s`;
    const failed = this.failed(r, what);
    if (failed !== undefined) return failed;
    // A walk with no odometry ends on its time limit: that is how it ends as asked here.
    return { ok: true, summary: `${what} at ${c.value.toFixed(2)} m/s (no odometry: ${timed.about(ran)}), ${c.text}${this.lateNote()}`, data: { ran_s: ran, commanded_vx: round2(c.value) } };
  }

  private async turn(degrees: number, rate: number | undefined, signal?: AbortSignal): Promise<VerbResult> {
    const rad = (degrees * Math.PI) / 180;
    const c = this.command('turn', 'vyaw', rad, rate !== undefined ? (rate * Math.PI) / 180 : undefined);
    if (!('axis' in c)) return c;
    const before = this.facts.yaw_rad;
    const r = await this.drive({ verb: 'turn', slot: 'turn', command: { vx: 0, vy: 0, vyaw: c.value }, until: { kind: 'yaw', rad }, timeoutMs: timeLimitMs(rad, c) }, signal);
    if (!('outcome' in r)) return r;
    const turned = turnedDeg(before, this.facts.yaw_rad, rad);
    const what = `turned ${Math.abs(turned)}° ${turned >= 0 ? 'left' : 'right'} (gyro)`;
    return this.failed(r, what) ?? { ok: Math.abs(turned - degrees) <= 15, summary: `${what}, ${c.text}${this.lateNote()}`, data: { turned_deg: turned } };
  }

  private async kick(foot: 'left' | 'right', signal?: AbortSignal): Promise<VerbResult> {
    const r = await this.drive({ verb: 'kick', slot: foot === 'left' ? 'kick_left' : 'kick_right', command: { vx: 0, vy: 0, vyaw: 0 }, until: { kind: 'duration' }, timeoutMs: 5000 }, signal);
    if (!('outcome' in r)) return r;
    return this.failed(r, `kicked ${foot}`) ?? { ok: true, summary: `kicked ${foot} (no camera: whether a ball moved is unknown)${this.lateNote()}` };
  }

  private assertSound(f: BusFacts): void {
    if (this.closed) throw new BodyError(`${this.key} is closed`);
    if (f.fault !== null) throw new BodyError(`${this.key} on ${this.port}: ${f.fault}`);
  }

  /**
   * Looks at the bus while a verb runs or anyone listens (every WATCH_MS), and for a held duck's
   * link between runs (every IDLE_WATCH_MS): a fault stops the verb and is told.
   */
  private rewatch(): void {
    const ms = this.closed ? undefined : this.halt !== undefined || this.listeners.size > 0 ? WATCH_MS : this.sayLink !== undefined ? IDLE_WATCH_MS : undefined;
    if (ms === this.watchMs) return;
    if (this.watch !== undefined) clearInterval(this.watch);
    this.watch = undefined;
    this.watchMs = ms;
    if (ms === undefined) return;
    this.watch = setInterval(() => void this.look(), ms);
    this.watch.unref();
  }

  private async look(): Promise<void> {
    const f = await this.sense();
    if (this.closed) return;
    this.sayLink?.(linkUp(f));
    if (f.fault === null) return;
    this.halt?.abort();
    if (this.reported) return;
    this.reported = true;
    // Between runs nobody else hears it: the journal says why the robot went offline.
    if (this.halt === undefined && this.listeners.size === 0) logger('body').warn({ body: this.key, port: this.port, fault: f.fault }, 'servo bus fault between runs; the next run opens it afresh');
    // Told as a lost link whatever the fault: the bus is not trusted again until opened afresh,
    // which the pool does for a lost link once the port is back (a pulled adapter, a servo reset).
    for (const l of [...this.listeners]) l({ kind: 'link-lost', message: `${this.key} on ${this.port}: ${f.fault}` });
  }

  frame(): Frame {
    const f = this.facts;
    return { state: { torque: f.torque, tilt_deg: deg(f.tilt_rad), fault: f.fault, bus_cycles: f.cycles } };
  }

  metrics(): Metrics {
    const f = this.facts;
    return { tilt_deg: deg(f.tilt_rad), torque: f.torque ? 1 : 0, bus_timeouts: f.counters.timeouts, bus_damaged: f.counters.damaged };
  }

  stop(): Promise<void> {
    this.halt?.abort();
    this.loop.stop();
    return Promise.resolve();
  }

  /** Halted, the servos hold their pose with torque on: an emergency stop switches them off, read back. */
  async emergencyStop(): Promise<void> {
    await this.stop();
    if (this.closed) return;
    const back = await this.torque(false);
    if (back.stuck.length > 0 || back.silent.length > 0) throw new BodyError(`${this.key} on ${this.port}: ${describeReadBack(back)}`);
  }

  /** Torque off, read back (the one exit path on Feetech that leaves the servos limp), then the loop. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.rewatch();
    this.halt?.abort();
    await this.remote.torque(false).catch(() => undefined);
    this.remote.close();
    await this.loop.close();
  }
}

/** The servos answer (a faulted bus whose servos all answer again is back, though not trusted). */
const linkUp = (f: BusFacts): boolean => f.fault === null || f.answering;

/** `body:report` of a held duck's link, said when it changes. */
function linkReporter(events: EventBus, robot: string): (up: boolean) => void {
  let was: boolean | undefined;
  return (up) => {
    if (up === was) return;
    was = up;
    events.emit('body:report', { robot, link: up ? 'ok' : 'lost' });
  };
}

export async function createBusBody(protocol: ProtocolName, options: BodyOptions): Promise<Body> {
  const key = busKey(protocol);
  const parsed = servoBusSettings.safeParse(options.settings ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.path[0] === 'port' || issue === undefined) throw new BodyError(`${key} needs the servo bus adapter: pass --port /dev/serial/by-id/<your adapter>`);
    throw new BodyError(`${key}: ${issue.path.join('.')}: ${issue.message}`);
  }
  const s = parsed.data;
  const fall: FallSettings = { ...DEFAULT_FALL, then: s.after_fall ?? 'limp' };
  const policies = (slot: Slot): string => options.policies?.[slot] ?? s.policies?.[slot] ?? bundledPolicyDir(slot);
  const channel = `quackd-servo-bus-${randomUUID()}`;
  const joints = (s.joints ?? OPEN_DUCK_MINI_V2).map((j) => ({ ...j }));
  let loop: ControlLoop;
  try {
    loop = await ControlLoop.start({
      plant: { module: siblingModule(import.meta.url, 'control-plant').href, options: { port: s.port, baud: s.baud, protocol, joints, channel, timeoutMs: s.bus_timeout_ms, ...(s.sim_imu !== undefined ? { simImu: s.sim_imu } : {}), ...(s.imu !== undefined ? { imu: s.imu } : {}) } },
      periodMs: PERIOD_MS,
      fall,
      warm: skillWarmups(SLOTS.map(policies)),
      robot: options.robot ?? key,
      ...(options.events !== undefined ? { events: options.events } : {}),
    });
  } catch (err) {
    if (err instanceof ControlError) throw new BodyError(`${key}: ${err.message.replace(/^the plant could not be made: /, '')}`);
    throw err;
  }
  const remote = new RemoteServoBus(channel, TORQUE_TIMEOUT_MS);
  const first = BusFactsSchema.safeParse(await loop.sense().catch(() => null));
  if (!first.success) {
    remote.close();
    await loop.close();
    throw new BodyError(`${key}: the bus plant reported nothing it could be read from`);
  }
  // No hold unless asked for (BUS_HEADING_HOLD, the setting's default, says why).
  const say = options.events !== undefined ? linkReporter(options.events, options.robot ?? key) : undefined;
  return new BusBody(key, loop, remote, s.port, policies, await imuSettled(loop, first.data), s.heading_hold, say);
}

/**
 * The trunk's IMU answers a few ticks after the loop starts (a BNO055's fusion reads zeros until it
 * settles): the body is open once it has, or once this long has passed, so a run's first motion
 * is not refused for a reading a tick away (seen at load: patrol's first walk, 1 run in 3).
 */
const IMU_FIRST_READING_MS = 1500;

async function imuSettled(loop: ControlLoop, first: BusFacts): Promise<BusFacts> {
  const until = performance.now() + IMU_FIRST_READING_MS;
  let facts = first;
  while (!facts.imu && facts.imu_problem === IMU_PENDING && facts.fault === null && performance.now() < until) {
    await delay(20);
    const next = BusFactsSchema.safeParse(await loop.sense().catch(() => null));
    if (next.success) facts = next.data;
  }
  return facts;
}
