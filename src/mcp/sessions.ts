/**
 * robot_verb's sessions: the MCP client pilots a run of the server's duck, one verb at a time. The
 * first verb on a robot starts that run (its transcript, its budgets, its body leased, memory in
 * its prompt), and each later verb goes to the same run's executor through the relay pilot, so
 * the allowlist, budgets and gates are a run's own. The run ends as any run does (a declaration,
 * a spent budget, an error, a stop) or when the client goes; the next verb starts a new one.
 * One session per robot per MCP connection; a robot busy with another run is refused.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Observation } from '../bodies/body.js';
import { RelayBusy, type RelayStep } from '../pilot/providers/relay.js';
import type { RunReport } from '../run/start-run.js';
import type { RunBy } from '../runtime/holder.js';
import type { RobotStatus, StartedRun } from '../service/api.js';
import type { TranscriptEvent } from '../transcript/events.js';
import { personGates, type AskPerson } from './ask-person.js';
import type { Backend, RunHandle } from './backend.js';
import type { SessionDuck } from './duck.js';

export interface VerbReply {
  readonly run: Omit<StartedRun, 'done'>;
  /** This verb started the session. */
  readonly fresh: boolean;
  /** The session duck's verbs (its allowlist, declarations aside). */
  readonly verbs: readonly string[];
  /** The transcript events of this call: its refusal, its gate, its result. */
  readonly events: readonly TranscriptEvent[];
  /** What the loop told the pilot of it; absent when the run ended instead. */
  readonly step?: RelayStep;
  /** The run ended with this call (a declaration, a spent budget) or before it could be made. */
  readonly ended?: RunReport;
  /** How the robot's previous session ended, when no verb's answer said so (its seconds ran out between calls, a stop). */
  readonly previous?: RunReport;
}

interface Session {
  readonly handle: RunHandle;
  readonly events: TranscriptEvent[];
  /** The tool call under way, whose stream a gate's question goes on. */
  readonly via: { call?: RequestId };
  /** A verb is under way: another call is refused before it can take over `via`. */
  busy?: boolean;
  observation?: Observation;
  /** A verb's answer said the session ended. */
  told?: boolean;
}

export interface SessionOptions {
  readonly backend: Backend;
  readonly duckFor: (robot: RobotStatus) => SessionDuck;
  /** Who pilots, as the transcript names it: the MCP client's name and version. */
  readonly client: () => string;
  /** Who holds the robot for a session's run: this MCP session and its client. */
  readonly by: () => RunBy;
  /** Puts a gate to the person at the client; undefined when the client cannot ask one. */
  readonly asker: () => AskPerson | undefined;
}

export class VerbSessions {
  private readonly open = new Map<string, Promise<Session>>();
  /** Sessions that ended with nobody told, by robot: the next verb's answer says how. */
  private readonly untold = new Map<string, RunReport>();

  constructor(private readonly options: SessionOptions) {}

  /**
   * One verb on `robot`, in its session (started by this call when none is open). A client that
   * cancels the call (`signal`) stops the session, as Ctrl-C stops a run: the body stops.
   */
  async verb(robot: RobotStatus, name: string, args: unknown, call: RequestId, signal?: AbortSignal): Promise<VerbReply> {
    let opening = this.open.get(robot.robot);
    const fresh = opening === undefined;
    if (opening === undefined) {
      opening = this.start(robot);
      this.open.set(robot.robot, opening);
      const mine = opening;
      mine.catch(() => (this.open.get(robot.robot) === mine ? this.open.delete(robot.robot) : undefined));
    }
    const session = await opening;
    // Refused here, not by the relay: a call sent beside the one under way must not become the call
    // a gate's question goes on (its stream closes with its refusal, and the gate would be shut unasked).
    if (session.busy === true) throw new RelayBusy();
    session.busy = true;
    session.via.call = call;
    const from = session.events.length;
    const cancel = (): void => session.handle.stop('the MCP client cancelling it');
    signal?.addEventListener('abort', cancel, { once: true });
    const step = await session.handle.submit(name, args).finally(() => {
      session.busy = false;
      signal?.removeEventListener('abort', cancel);
    });
    if (step !== undefined) session.observation = step.observation;
    const events = session.events.slice(from);
    const ended = step === undefined ? await session.handle.done : undefined;
    if (ended !== undefined) {
      session.told = true;
      if (this.untold.get(robot.robot)?.runId === ended.runId) this.untold.delete(robot.robot);
    }
    const previous = fresh ? this.untold.get(robot.robot) : undefined;
    if (fresh) this.untold.delete(robot.robot);
    const start = session.events.find((e) => e.type === 'start');
    return { run: session.handle.run, fresh, verbs: start?.type === 'start' ? start.verbs : [], events, ...(step !== undefined ? { step } : {}), ...(ended !== undefined ? { ended } : {}), ...(previous !== undefined ? { previous } : {}) };
  }

  /** A session of this connection's is open (or opening) on `robot`: the robot is its, busy for anyone else. */
  isOpen(robot: string): boolean {
    return this.open.has(robot);
  }

  /** What the sensors said after the last verb of the session open on `robot`, if one is. */
  async observation(robot: string): Promise<{ readonly observation: Observation; readonly runId: string } | undefined> {
    const session = await this.open.get(robot)?.catch(() => undefined);
    return session?.observation !== undefined ? { observation: session.observation, runId: session.handle.run.runId } : undefined;
  }

  /** Ends every open session (the client went): each run stops as Ctrl-C stops one. */
  async close(why: string): Promise<void> {
    const sessions = await Promise.all([...this.open.values()].map((s) => s.catch(() => undefined)));
    this.open.clear();
    for (const s of sessions) s?.handle.stop(why);
    await Promise.all(sessions.map((s) => s?.handle.done));
  }

  private async start(robot: RobotStatus): Promise<Session> {
    const duck = this.options.duckFor(robot);
    const events: TranscriptEvent[] = [];
    const via: Session['via'] = {};
    const gates = personGates(this.options.asker(), robot.robot, () => via.call);
    const handle = await this.options.backend.start({
      robot: robot.robot,
      duck: duck.duck,
      text: duck.text,
      drive: { client: this.options.client() },
      gates: gates.gates,
      by: this.options.by(),
      ...(gates.onGate !== undefined ? { onGate: gates.onGate } : {}),
      onEvent: (event) => {
        events.push(event);
        gates.seen(event);
      },
    });
    const opened = this.open.get(robot.robot);
    const session: Session = { handle, events, via };
    void handle.done.then((report) => {
      if (this.open.get(robot.robot) === opened) this.open.delete(robot.robot);
      // A verb's answer under way tells it (and takes it back from here); else the next session's first answer does.
      if (session.told !== true) this.untold.set(robot.robot, report);
    });
    return session;
  }
}
