/**
 * A ServiceApi double for front-door tests (MQTT, later the control socket): a fleet of robots
 * whose runs the test drives by hand (steps, gates, the end), emitting the bus events the real
 * service emits, and every call recorded with its arguments (who asked apart, in `askers`). The real Service replaces it in
 * integration tests; keep it in this one file.
 */
import { InputError } from '../../src/errors.js';
import type { BodyKey } from '../../src/bodies/body.js';
import type { RunReport } from '../../src/run/start-run.js';
import { RobotBusy } from '../../src/runtime/body-pool.js';
import { EventBus } from '../../src/runtime/events.js';
import { UnknownRobot } from '../../src/runtime/fleet.js';
import { byText, type RunBy } from '../../src/runtime/holder.js';
import type { HealthLine, RobotStatus, RunOnRequest, ServiceApi, StartedRun, TorqueRun, UnconfirmedStop } from '../../src/service/api.js';
import type { Outcome } from '../../src/transcript/events.js';

export type Call = { readonly method: 'run'; readonly robot: string; readonly request: RunOnRequest } | { readonly method: 'stop'; readonly robot?: string } | { readonly method: 'answerGate'; readonly robot: string; readonly answer: boolean; readonly verb?: string } | { readonly method: 'torque'; readonly robot: string; readonly on: boolean };

export const DOUBLE_DUCKS = ['hello-world', 'find-and-kick'];

interface Running {
  readonly runId: string;
  readonly duck: string;
  readonly finish: (report: RunReport) => void;
  step: number;
}

export class ServiceDouble implements ServiceApi {
  readonly events = new EventBus();
  readonly calls: Call[] = [];
  /** How each gate answer was given: `person` only from a channel trusted to carry one. */
  readonly hows: string[] = [];
  /** Who asked for each run, stop and gate answer that said so, as the journal words it: `mqtt client ha-den`. */
  readonly askers: { readonly method: Call['method']; readonly by: string }[] = [];
  private readonly state = new Map<string, RobotStatus>();
  private readonly running = new Map<string, Running>();
  private readonly gates = new Map<string, string>();
  private runs = 0;
  private readonly started = new Map<string, number>();

  constructor(fleet: readonly { readonly robot: string; readonly key: BodyKey }[]) {
    for (const { robot, key } of fleet) this.state.set(robot, { robot, key, activity: 'idle' });
  }

  robots(): readonly RobotStatus[] {
    return [...this.state.values()];
  }

  status(robot: string): RobotStatus {
    const s = this.state.get(robot);
    if (s === undefined) throw new UnknownRobot(`unknown robot "${robot}"`);
    return s;
  }

  run(robot: string, asked: RunOnRequest): Promise<StartedRun> {
    const { by, ...request } = asked;
    this.calls.push({ method: 'run', robot, request });
    this.asked('run', by);
    const status = this.status(robot);
    if (this.running.has(robot)) return Promise.reject(new RobotBusy(robot));
    if (!DOUBLE_DUCKS.includes(request.duck)) return Promise.reject(new InputError(`no duck named "${request.duck}"`));
    const runId = `run-${++this.runs}`;
    let finish: (report: RunReport) => void = () => undefined;
    const done = new Promise<RunReport>((resolve) => (finish = resolve));
    this.running.set(robot, { runId, duck: request.duck, finish, step: 0 });
    this.started.set(runId, Date.now());
    this.events.emit('run:start', { robot, key: status.key, runId, duck: request.duck, by: by !== undefined ? byText(by) : 'cli user test (uid 0)' });
    this.update(robot, { activity: 'running', run: { runId, duck: request.duck, step: 0, startedAt: new Date().toISOString() } });
    return Promise.resolve({ runId, transcriptPath: `/tmp/transcripts/${runId}.jsonl`, robot, key: status.key, duck: { name: request.duck, budgets: { steps: 20, llm_calls: 30, seconds: 60 } }, pilot: 'fake', dryRun: request.dryRun === true, memory: {}, done });
  }

  /** The double keeps no transcripts: nothing to follow. */
  follow(): undefined {
    return undefined;
  }

  /** The run on `robot` takes a step (a verb's result on the bus, a new status). */
  step(robot: string, verb = 'walk'): void {
    const r = this.running.get(robot);
    if (r === undefined) throw new Error(`${robot} is not running`);
    r.step++;
    this.events.emit('run:step', { robot, runId: r.runId, step: r.step, verb, label: `${verb} 0.3`, ok: true, summary: 'walked 0.30 m' });
    this.update(robot, { run: { runId: r.runId, duck: r.duck, step: r.step, startedAt: new Date().toISOString() } });
  }

  /** A gate opens on `robot`'s run, waiting for answerGate. */
  gate(robot: string, verb: string): void {
    const r = this.running.get(robot);
    if (r === undefined) throw new Error(`${robot} is not running`);
    this.gates.set(robot, verb);
    this.events.emit('run:gate', { robot, runId: r.runId, question: `${verb} strength 0.5`, verb, state: 'waiting' });
  }

  /** The run on `robot` ends with `outcome`. */
  finish(robot: string, outcome: Outcome = { status: 'success', reason: 'ball moved 0.4 m' }): void {
    const r = this.running.get(robot);
    if (r === undefined) return;
    this.running.delete(robot);
    this.gates.delete(robot);
    const key = this.status(robot).key;
    this.events.emit('run:end', { robot, key, runId: r.runId, duck: r.duck, outcome });
    this.update(robot, { activity: 'idle', run: undefined, lastOutcome: { ...outcome, runId: r.runId, duck: r.duck, endedAt: new Date().toISOString() } });
    const seconds = (Date.now() - (this.started.get(r.runId) ?? Date.now())) / 1000;
    r.finish({ runId: r.runId, transcriptPath: `/tmp/transcripts/${r.runId}.jsonl`, duck: r.duck, robot: key, outcome, steps: r.step, llmCalls: 0, seconds, usage: { inputTokens: 0, outputTokens: 0 }, dryRun: false });
  }

  private asked(method: Call['method'], by: RunBy | undefined): void {
    if (by !== undefined) this.askers.push({ method, by: byText(by) });
  }

  /** The double counts no stops: its runs start at once, with no wait a stop could fall into. */
  stopMark(): number {
    return 0;
  }

  /** Robots whose body will not confirm a stop, and why (a link down). */
  readonly unconfirming = new Map<string, string>();

  stop(robot?: string, _why?: string, by?: RunBy): Promise<readonly UnconfirmedStop[]> {
    this.calls.push(robot !== undefined ? { method: 'stop', robot } : { method: 'stop' });
    this.asked('stop', by);
    if (robot !== undefined) this.status(robot);
    for (const name of robot !== undefined ? [robot] : [...this.running.keys()]) this.finish(name, { status: 'interrupted', reason: 'stopped' });
    return Promise.resolve([...this.unconfirming].filter(([name]) => robot === undefined || robot === name).map(([name, why]) => ({ robot: name, why })));
  }

  answerGate(robot: string, answer: boolean, verb?: string, how?: 'tty' | 'person' | 'channel', by?: RunBy): boolean {
    this.calls.push({ method: 'answerGate', robot, answer, ...(verb !== undefined ? { verb } : {}) });
    if (how !== undefined) this.hows.push(how);
    this.asked('answerGate', by);
    const waiting = this.gates.get(robot);
    if (waiting === undefined || (verb !== undefined && verb !== waiting)) return false;
    this.gates.delete(robot);
    const r = this.running.get(robot);
    if (r !== undefined) this.events.emit('run:gate', { robot, runId: r.runId, question: `${waiting} strength 0.5`, verb: waiting, state: 'answered', allowed: answer, how: 'mqtt' });
    return true;
  }

  health(): Promise<readonly HealthLine[]> {
    return Promise.resolve([{ check: 'loop', status: 'ok', detail: '50.0 of 50 Hz · 0 missed' }]);
  }

  /** Switches at once, as a simulator does: the run is done and the read-back is what was asked. */
  torque(robot: string, on: boolean): Promise<TorqueRun> {
    this.calls.push({ method: 'torque', robot, on });
    const key = this.status(robot).key;
    this.update(robot, { torque: on });
    const runId = `run-${++this.runs}`;
    const transcriptPath = `/tmp/transcripts/${runId}.jsonl`;
    const report: RunReport = { runId, transcriptPath, duck: 'torque', robot: key, outcome: { status: 'success', reason: `did torque ${on ? 'on' : 'off'}` }, steps: 1, llmCalls: 2, seconds: 0, usage: { inputTokens: 0, outputTokens: 0 }, dryRun: false };
    return Promise.resolve({ runId, transcriptPath, robot, key, duck: { name: 'torque', budgets: { steps: 1, llm_calls: 2, seconds: 60 } }, pilot: 'script', dryRun: false, memory: {}, done: Promise.resolve(report), torque: Promise.resolve(on) });
  }

  /** A new status for `robot` (what the service emits on any change). */
  update(robot: string, patch: Partial<RobotStatus>): void {
    const next = { ...this.status(robot), ...patch } as RobotStatus & Record<string, unknown>;
    for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
    this.state.set(robot, next);
    this.events.emit('robot:status', { robot, status: next });
  }
}
