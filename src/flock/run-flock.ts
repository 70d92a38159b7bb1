/**
 * One flock run, composed: the flock's own transcript, its members opened, the plan's decisions
 * carried out (start a member's part, stop one, allow or deny a gated verb, start a quack), the
 * flock's clock, and the end. The members' runs are ordinary runs with transcripts of their own;
 * the flock's transcript holds the coordinator's decisions and links each member's run by id.
 *
 * Nothing a member does can hang the flock: a member stopped (by the plan, the flock's clock or
 * Ctrl-C) that has not ended within STOP_GRACE_MS is dropped, and the flock ends without it.
 */
import type { Duck } from '../ducks/duck.js';
import type { Gate, GateDecision } from '../safety/gate.js';
import type { Outcome, TranscriptEvent } from '../transcript/events.js';
import { TranscriptWriter, runIdFor } from '../transcript/writer.js';
import { VERSION } from '../version.js';
import type { Member, MemberStep } from './member.js';
import type { Decision, Plan, PlanInput } from './plan.js';
import type { FlockSpec } from './spec.js';

export const STOP_GRACE_MS = 5000;

export type FlockLine = Extract<TranscriptEvent, { type: 'flock' }>;

/** What the flock says as it goes: its transcript's lines, and each member's steps (for a terminal). */
export type FlockNews = { readonly kind: 'line'; readonly line: FlockLine } | ({ readonly kind: 'step'; readonly member: string } & MemberStep);

export interface FlockRequest {
  readonly duck: Duck & { readonly flock: FlockSpec };
  /** In the order of `duck.flock.members`, named alike. */
  readonly members: readonly Member[];
  readonly plan: Plan;
  /** What a member the plan stopped runs next. */
  readonly quackDuck: Duck;
  /** The first member's seed; each next member's is one more. */
  readonly seed: number;
  readonly transcriptsDir: string;
  /** A person's yes, for the verbs the duck's own `confirm:` lists. */
  readonly gate: Gate;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
  /** The pilot, as the members fly it, for the transcript's start line. */
  readonly pilot?: { readonly provider: string; readonly model: string };
  readonly onNews?: (news: FlockNews) => void;
  readonly stopGraceMs?: number;
}

export interface FlockMemberReport {
  readonly name: string;
  readonly where: string;
  /** Its runs' ids, in order: its part, then its quack. */
  readonly runs: readonly string[];
  /** How its last run ended, or why it was dropped. */
  readonly outcome?: Outcome;
  readonly dropped?: string;
}

/** A member's report as the flock fills it in. */
interface Tally {
  readonly name: string;
  where: string;
  readonly runs: string[];
  outcome?: Outcome;
  dropped?: string;
}

export interface FlockReport {
  readonly runId: string;
  readonly transcriptPath: string;
  readonly duck: string;
  readonly plan: string;
  readonly outcome: Outcome;
  readonly seconds: number;
  readonly dryRun: boolean;
  readonly members: readonly FlockMemberReport[];
}

/** The flock's clock: the duck's own, else a member's seconds for its part and a quack's for after. */
export function flockSeconds(duck: Duck & { readonly flock: FlockSpec }, quackDuck: Duck): number {
  return duck.flock.seconds ?? duck.budgets.seconds + quackDuck.budgets.seconds;
}

/** A member's part: the flock duck, told who it is and which part of the room is its. */
function partFor(duck: Duck, member: string, index: number, names: readonly string[]): Duck {
  const others = names.filter((n) => n !== member);
  const part = [
    '',
    '## Your part of the flock',
    `You are ${member}, member ${index + 1} of ${names.length}${others.length > 0 ? `; ${others.join(', ')} search at the same time` : ''}.`,
    `Search your part of the room first: part ${index + 1} of ${names.length}.`,
  ];
  return { ...duck, text: `${duck.text}\n${part.join('\n')}` };
}

export async function runFlock(req: FlockRequest): Promise<FlockReport> {
  const { duck, plan } = req;
  const started = Date.now();
  const seconds = flockSeconds(duck, req.quackDuck);
  const grace = req.stopGraceMs ?? STOP_GRACE_MS;
  const transcript = TranscriptWriter.create(req.transcriptsDir, runIdFor(duck.name));
  const names = req.members.map((m) => m.name);
  const byName = new Map(req.members.map((m) => [m.name, m]));
  const reports = new Map<string, Tally>(req.members.map((m) => [m.name, { name: m.name, where: m.where(), runs: [] }]));
  /** Once the flock has ended, a member that reports late (one dropped for not stopping) is no longer news. */
  let over = false;
  const line = (l: Omit<FlockLine, 'type'>): void => {
    if (over) return;
    const event: FlockLine = { type: 'flock', ...l };
    transcript.write(event);
    req.onNews?.({ kind: 'line', line: event });
  };
  transcript.write({
    type: 'start',
    duck: duck.name,
    body: `flock of ${names.length}`,
    provider: 'coordinator',
    model: plan.name,
    dryRun: req.dryRun,
    seed: req.seed,
    budgets: { seconds },
    verbs: [...duck.verbs],
    confirm: [...duck.confirm],
    quackd: VERSION,
    node: process.version,
    pid: process.pid,
  });

  let finish: (outcome: Outcome) => void = () => undefined;
  const finished = new Promise<Outcome>((resolve) => (finish = resolve));
  const timers = new Set<NodeJS.Timeout>();
  const after = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  /** Each member's count of ended runs: a stop's grace checks whether one ended since. */
  const endings = new Map<string, number>();

  // Inputs are handled one at a time, in the order they came: a decision that stops a member may
  // make it report at once, and that report waits for the decisions before it to be carried out.
  const queue: PlanInput[] = [];
  let draining = false;
  const answers = new Map<string, (allowed: boolean) => void>();
  const feed = (input: PlanInput): void => {
    if (over && input.kind !== 'asks') return;
    queue.push(input);
    if (draining) return;
    draining = true;
    try {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) for (const d of plan.on(next)) carryOut(d);
    } finally {
      draining = false;
    }
  };

  const carryOut = (d: Decision): void => {
    const member = d.kind === 'end' ? undefined : byName.get(d.member);
    switch (d.kind) {
      case 'search': {
        const index = names.indexOf(d.member);
        member?.start({ duck: partFor(duck, d.member, index, names), seed: req.seed + index });
        break;
      }
      case 'finder':
        line({ what: 'finder', member: d.member, reason: d.why });
        break;
      case 'allow':
      case 'deny':
        line({ what: d.kind, member: d.member, verb: d.verb, ...(d.kind === 'deny' ? { reason: d.why } : {}) });
        answers.get(d.member)?.(d.kind === 'allow');
        break;
      case 'stop': {
        line({ what: 'stop', member: d.member, reason: d.why });
        member?.stop(d.why);
        const seen = endings.get(d.member) ?? 0;
        after(grace, () => {
          if ((endings.get(d.member) ?? 0) === seen) feed({ kind: 'lost', member: d.member, why: `did not end within ${grace / 1000} s of its stop` });
        });
        break;
      }
      case 'quack':
        line({ what: 'quack', member: d.member, duck: req.quackDuck.name });
        member?.start({ duck: req.quackDuck, seed: req.seed + names.indexOf(d.member) });
        break;
      case 'drop': {
        line({ what: 'drop', member: d.member, reason: d.why });
        const r = reports.get(d.member);
        if (r !== undefined) r.dropped = d.why;
        member?.stop(d.why);
        break;
      }
      case 'end':
        over = true;
        finish(d.outcome);
        break;
    }
  };

  // A person answers one question at a time, whichever member asks.
  let personTurn: Promise<unknown> = Promise.resolve();
  const askPerson = (question: string, signal?: AbortSignal): Promise<GateDecision> => {
    const turn = personTurn.then(() => req.gate.confirm(question, signal));
    personTurn = turn.catch(() => undefined);
    return turn;
  };

  const onStop = (): void => {
    const reason: unknown = req.signal.reason;
    feed({ kind: 'interrupted', why: reason instanceof Error && reason.message.startsWith('stopped by ') ? reason.message : 'stopped by Ctrl-C' });
  };
  // A flock nobody can account for afterwards stops, as a run does when its transcript fails.
  transcript.onFailure(() => feed({ kind: 'interrupted', why: 'stopped by a transcript that cannot be written' }));
  try {
    const opened = await Promise.all(
      req.members.map((m) =>
        m.open({
          started: ({ runId, duck: ran }) => {
            reports.get(m.name)?.runs.push(runId);
            line({ what: 'run', member: m.name, memberRun: runId, duck: ran });
          },
          step: (step) => {
            if (over) return;
            req.onNews?.({ kind: 'step', member: m.name, ...step });
            const what = plan.sighting(step);
            if (what !== undefined) feed({ kind: 'sighted', member: m.name, what });
          },
          ask: (verb, question, signal) => {
            const person = (): Promise<GateDecision> => askPerson(`${question} (${m.name})`, signal);
            if (!plan.gates.includes(verb)) return person();
            const answer = new Promise<boolean>((resolve) => answers.set(m.name, resolve));
            feed({ kind: 'asks', member: m.name, verb });
            return answer.then((allowed): GateDecision | Promise<GateDecision> => {
              // Denied: the member is being stopped, and its pilot reads that.
              if (!allowed) return { allowed: false, how: 'aborted' };
              return duck.flock.personConfirm.includes(verb) ? person() : { allowed: true, how: 'yes' };
            });
          },
          ended: (outcome, runId) => {
            endings.set(m.name, (endings.get(m.name) ?? 0) + 1);
            const r = reports.get(m.name);
            if (r !== undefined) r.outcome = outcome;
            line({ what: 'member_end', member: m.name, ...(runId !== undefined ? { memberRun: runId } : {}), outcome: outcome.status, reason: outcome.reason });
            feed({ kind: 'ended', member: m.name, outcome });
          },
          lost: (why) => feed({ kind: 'lost', member: m.name, why }),
        }),
      ),
    );
    for (const [i, m] of req.members.entries()) {
      const r = reports.get(m.name);
      if (r !== undefined) r.where = m.where();
      line({ what: 'member', member: m.name, where: m.where(), ...(m.seeded() ? { seed: req.seed + i } : {}) });
    }
    // Stopped while the members were being reached: none has started, so none needs stopping.
    if (req.signal.aborted) return await end({ status: 'interrupted', reason: 'stopped before any member started' });
    req.signal.addEventListener('abort', onStop, { once: true });
    after(seconds * 1000, () => feed({ kind: 'deadline', why: `the flock's ${seconds} s ran out` }));
    for (const d of plan.start()) {
      // A member that cannot be reached is out before it starts: the others go on.
      const why = d.kind === 'search' ? opened[names.indexOf(d.member)] : undefined;
      if (d.kind === 'search' && why !== undefined) feed({ kind: 'lost', member: d.member, why });
      else carryOut(d);
    }
    const outcome = await finished;
    return await end(outcome);
  } catch (err) {
    return await end({ status: 'error', reason: err instanceof Error ? err.message : String(err) });
  } finally {
    req.signal.removeEventListener('abort', onStop);
    for (const t of timers) clearTimeout(t);
    await Promise.all(req.members.map((m) => m.close().catch(() => undefined)));
  }

  async function end(outcome: Outcome): Promise<FlockReport> {
    const took = Math.round((Date.now() - started) / 10) / 100;
    transcript.write({ type: 'end', outcome: outcome.status, reason: outcome.reason, steps: 0, llmCalls: 0, seconds: took });
    await transcript.close();
    return { runId: transcript.runId, transcriptPath: transcript.path, duck: duck.name, plan: plan.name, outcome, seconds: took, dryRun: req.dryRun, members: [...reports.values()] };
  }
}
