/**
 * A flock member that is a robot of another Pi's `quackd serve`, reached through the broker they
 * share, with only what that service offers every MQTT client: `{"run": NAME, "seed": N}`,
 * `{"stop": true}` and `{"confirm": VERB, "answer": …}` on `<base>/<robot>/set`; `run_started`,
 * `step`, `gate` and `run_ended` on `<base>/<robot>/event`; its retained `state`, and its
 * `availability` and the service's `bridge/state` (the broker's last will when the service dies).
 * A robot that is, or goes, offline is lost to the flock, which goes on without it.
 *
 * The service runs ducks by name, so the member runs the flock duck by its name: a starter, or a
 * copy in that Pi's own ducks folder. Its step events carry the body's measurements, so the plan
 * sees a remote member's sighting as it sees a local one's.
 */
import { findBody } from '../bodies/index.js';
import { topicsFor } from '../mqtt/topics.js';
import { readStepLine, stepLine } from '../safety/gate-question.js';
import type { Outcome } from '../transcript/events.js';
import type { BrokerLink } from './broker-link.js';
import type { Member, MemberJob, MemberListener } from './member.js';
import { isRecord } from '../is-record.js';

/** How long a robot's retained state may take to arrive after subscribing, and the service to answer a command. */
const OPEN_TIMEOUT_MS = 3000;
const ANSWER_TIMEOUT_MS = 10_000;
/**
 * A broker shutting down sends its clients' last wills on its way out: an `offline` heard this
 * shortly before our own connection closes was the broker's going, not the service's.
 */
const WILL_GRACE_MS = 500;

type Json = Record<string, unknown>;

function parse(text: string): Json | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function outcomeOf(v: unknown): Outcome {
  const o = typeof v === 'object' && v !== null ? (v as Json) : {};
  const status = str(o['status']);
  const known = ['success', 'failure', 'budget', 'interrupted', 'error'] as const;
  return { status: known.find((k) => k === status) ?? 'error', reason: str(o['reason']) ?? 'the service did not say why' };
}

export class RemoteMember implements Member {
  private readonly topics;
  private listener: MemberListener | undefined;
  private unsubscribe: (() => void) | undefined;
  private key: string | undefined;
  private lostWhy: string | undefined;
  /** The run under way: its id once the service has answered, events heard before that, a stop asked for meanwhile. */
  private run: { id?: string; duck: string; early: Json[]; stop?: string; ended: boolean } | undefined;
  private brokerName = '';

  constructor(
    readonly name: string,
    private readonly base: string,
    private readonly robot: string,
    /** The shared connection, opened by the first remote member that needs it. */
    private readonly link: () => Promise<BrokerLink>,
  ) {
    this.topics = topicsFor(base);
  }

  where(): string {
    return `${this.base}/${this.robot}${this.brokerName !== '' ? ` on ${this.brokerName}` : ''}`;
  }

  seeded(): boolean {
    return this.key !== undefined && findBody(this.key)?.seeded === true;
  }

  async open(listener: MemberListener): Promise<string | undefined> {
    this.listener = listener;
    let broker: BrokerLink;
    try {
      broker = await this.link();
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    this.brokerName = broker.name;
    const t = this.topics;
    let state: Json | undefined;
    let heard: () => void = () => undefined;
    const stateHeard = new Promise<void>((resolve) => (heard = resolve));
    const offline = new Map<string, boolean>();
    this.unsubscribe = await broker.subscribe([t.bridgeState, t.robotAvailability(this.robot), t.robotState(this.robot), t.robotEvent(this.robot), t.robotSetResponse(this.robot)], (topic, payload) => {
      if (topic === t.bridgeState || topic === t.robotAvailability(this.robot)) {
        offline.set(topic, payload === 'offline');
        if (payload === 'offline' && state !== undefined) {
          const why = `${this.base}/${this.robot} went offline (${topic === t.bridgeState ? 'its quackd serve' : 'its availability'})`;
          setTimeout(() => this.lose(why), WILL_GRACE_MS);
        }
      } else if (topic === t.robotState(this.robot)) {
        state ??= parse(payload);
        heard();
      } else if (topic === t.robotEvent(this.robot)) {
        const event = parse(payload);
        if (event !== undefined) this.heard(event);
      }
    });
    broker.onClose((why) => this.lose(why));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([stateHeard, new Promise<void>((resolve) => (timer = setTimeout(resolve, OPEN_TIMEOUT_MS)))]);
    clearTimeout(timer);
    if (state === undefined) return `no quackd serve publishes ${this.base}/${this.robot} on ${broker.name} (is it running, with that robot and mqtt.base_topic ${this.base}?)`;
    this.key = str(state['key']);
    if (state['activity'] === 'offline' || [...offline.values()].some((off) => off)) return `${this.base}/${this.robot} is offline`;
    return undefined;
  }

  start(job: MemberJob): void {
    if (this.lostWhy !== undefined) return;
    const run: NonNullable<RemoteMember['run']> = { duck: job.duck.name, early: [], ended: false };
    this.run = run;
    const seed = job.seed !== undefined && this.seeded() ? { seed: job.seed } : {};
    void this.link()
      .then((broker) => broker.request(this.topics.robotSet(this.robot), this.topics.robotSetResponse(this.robot), { run: job.duck.name, ...seed }, ANSWER_TIMEOUT_MS))
      .then(
        (answer) => {
          if (this.run !== run || this.lostWhy !== undefined) return;
          const data = typeof answer['data'] === 'object' && answer['data'] !== null ? (answer['data'] as Json) : {};
          const id = str(data['runId']);
          if (answer['status'] !== 'ok' || id === undefined) {
            run.ended = true;
            this.listener?.ended({ status: 'error', reason: `${this.base}/${this.robot} refused the run: ${str(answer['error']) ?? 'no run id in its answer'}` });
            return;
          }
          run.id = id;
          this.listener?.started({ runId: id, duck: run.duck });
          if (run.stop !== undefined) this.sendStop();
          for (const e of run.early.splice(0)) this.heard(e);
        },
        (err: unknown) => this.lose(`${this.base}/${this.robot} did not take the run: ${err instanceof Error ? err.message : String(err)}`),
      );
  }

  stop(why: string): void {
    const run = this.run;
    if (run === undefined || run.ended) return;
    const first = run.stop === undefined;
    run.stop = why;
    // At once, not when the service names the run (its steps go on meanwhile): published after the
    // run request on the same connection, the service hears it after the request, and a run
    // stopped since it was asked for ends before its first step. Sent again with the run's id.
    if (first) this.sendStop();
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    return Promise.resolve();
  }

  private sendStop(): void {
    void this.link().then((broker) => broker.publish(this.topics.robotSet(this.robot), { stop: true }));
  }

  /** An event on the robot's topic: ours when it names our run (held until the service has said which that is). */
  private heard(event: Json): void {
    const run = this.run;
    const listener = this.listener;
    if (run === undefined || listener === undefined || run.ended || this.lostWhy !== undefined) return;
    if (run.id === undefined) {
      run.early.push(event);
      return;
    }
    if (event['runId'] !== run.id) return;
    switch (event['type']) {
      case 'step':
        listener.step({ ...(typeof event['step'] === 'number' ? { step: event['step'] } : {}), label: str(event['label']) ?? '', ok: event['ok'] === true, summary: str(event['summary']) ?? '', ...(isRecord(event['data']) ? { data: event['data'] } : {}) });
        break;
      case 'gate': {
        const verb = str(event['verb']);
        if (event['state'] !== 'waiting' || verb === undefined) break;
        // MQTT hands the question as data (question, step); the coordinator's terminal asks the step line.
        const asked = readStepLine(str(event['question']) ?? verb);
        const step = typeof event['step'] === 'number' ? event['step'] : asked.step;
        void listener.ask(verb, stepLine(asked.question, step)).then((d) => {
          if (this.run === run && !run.ended) void this.link().then((broker) => broker.publish(this.topics.robotSet(this.robot), { confirm: verb, answer: d.allowed }));
        });
        break;
      }
      case 'run_ended':
        run.ended = true;
        listener.ended(outcomeOf(event['outcome']), run.id);
        break;
    }
  }

  private lose(why: string): void {
    if (this.lostWhy !== undefined) return;
    this.lostWhy = why;
    this.listener?.lost(why);
  }
}
