/**
 * The flock's coordinator: deterministic, a pure function of what it has heard so far. It runs no
 * deliberation loop and remembers nothing; each member flies its own pilot under its own budgets
 * and gates. It hears what members did (a sighting, a request for a gated verb, a run's end, a
 * member lost) and answers with decisions that run-flock.ts carries out (start, stop, allow, …).
 *
 * `first-finder-kicks`: every member searches at once; the first to see the ball (or, where
 * sightings cannot be read, the first to ask to kick) is the finder and the only one whose kick
 * is allowed; the others are stopped and then quack.
 */
import type { Outcome } from '../transcript/events.js';
import { PLAN_GATES, type PlanName } from './spec.js';

export type PlanInput =
  | { readonly kind: 'sighted'; readonly member: string; readonly what: string }
  /** A member's run asks for a verb the plan gates; answered by an allow or a deny. */
  | { readonly kind: 'asks'; readonly member: string; readonly verb: string }
  | { readonly kind: 'ended'; readonly member: string; readonly outcome: Outcome }
  /** Offline, unreachable, or stopped and never ended: it is out of the plan. */
  | { readonly kind: 'lost'; readonly member: string; readonly why: string }
  /** The flock's own clock ran out. */
  | { readonly kind: 'deadline'; readonly why: string }
  /** Ctrl-C, SIGTERM: everything stops, nobody quacks. */
  | { readonly kind: 'interrupted'; readonly why: string };

export type Decision =
  /** Start the member's part: the flock duck, with its seed and sector. */
  | { readonly kind: 'search'; readonly member: string }
  | { readonly kind: 'finder'; readonly member: string; readonly why: string }
  | { readonly kind: 'allow'; readonly member: string; readonly verb: string }
  | { readonly kind: 'deny'; readonly member: string; readonly verb: string; readonly why: string }
  | { readonly kind: 'stop'; readonly member: string; readonly why: string }
  /** Start the member's quack (QUACK_DUCK), now that its search has ended. */
  | { readonly kind: 'quack'; readonly member: string }
  | { readonly kind: 'drop'; readonly member: string; readonly why: string }
  | { readonly kind: 'end'; readonly outcome: Outcome };

export interface Plan {
  readonly name: PlanName;
  /** Verbs whose every use the plan answers. */
  readonly gates: readonly string[];
  /** What a member's step shows that the plan is looking for, in words; undefined when nothing. */
  sighting(step: { readonly summary: string; readonly data?: Readonly<Record<string, unknown>> }): string | undefined;
  start(): Decision[];
  on(input: PlanInput): Decision[];
}

type Phase = 'searching' | 'finder' | 'stopping' | 'quacking' | 'done' | 'dropped';

interface State {
  phase: Phase;
  /** Stopped because another found the ball: it quacks once its search has ended. */
  quackNext: boolean;
  last?: Outcome;
}

class FirstFinderKicks implements Plan {
  readonly name = 'first-finder-kicks';
  readonly gates = PLAN_GATES['first-finder-kicks'];
  private readonly members = new Map<string, State>();
  private finder: string | undefined;
  private finderOutcome: Outcome | undefined;
  /** The finder went out of reach: its outcome is the flock's words, not its run's. */
  private finderLost = false;
  private closing: { readonly kind: 'deadline' | 'interrupted'; readonly why: string } | undefined;
  private ended = false;

  constructor(names: readonly string[]) {
    for (const name of names) this.members.set(name, { phase: 'searching', quackNext: false });
  }

  /** The ball in view, by the body's own measurements (sim2d's and the twin's `ball_visible`). */
  sighting(step: { readonly summary: string; readonly data?: Readonly<Record<string, unknown>> }): string | undefined {
    return step.data?.['ball_visible'] === true ? step.summary : undefined;
  }

  start(): Decision[] {
    return [...this.members].flatMap(([member, s]): Decision[] => (s.phase === 'searching' ? [{ kind: 'search', member }] : []));
  }

  on(input: PlanInput): Decision[] {
    if (this.ended) return input.kind === 'asks' ? [{ kind: 'deny', member: input.member, verb: input.verb, why: 'the flock has ended' }] : [];
    const decisions = this.decide(input);
    return [...decisions, ...this.endIfSettled()];
  }

  private decide(input: PlanInput): Decision[] {
    switch (input.kind) {
      case 'sighted': {
        const s = this.members.get(input.member);
        if (s?.phase !== 'searching' || this.finder !== undefined || this.closing !== undefined) return [];
        return this.claim(input.member, `saw the ball (${input.what})`);
      }
      case 'asks': {
        const s = this.members.get(input.member);
        const deny = (why: string): Decision[] => [{ kind: 'deny', member: input.member, verb: input.verb, why }];
        if (s === undefined) return deny('it is not a member of this flock');
        if (this.closing !== undefined) return deny(`the flock is stopping: ${this.closing.why}`);
        if (this.finder === input.member) return [{ kind: 'allow', member: input.member, verb: input.verb }];
        if (this.finder === undefined && s.phase === 'searching') return [...this.claim(input.member, `asked to ${input.verb} first`), { kind: 'allow', member: input.member, verb: input.verb }];
        return deny(this.finder !== undefined ? `${this.finder} found the ball first` : 'it is being stopped');
      }
      case 'ended': {
        const s = this.members.get(input.member);
        if (s === undefined || s.phase === 'done' || s.phase === 'dropped') return [];
        s.last = input.outcome;
        if (s.phase === 'finder') this.finderOutcome = input.outcome;
        if (s.phase === 'stopping' && s.quackNext && this.closing === undefined) {
          s.phase = 'quacking';
          s.quackNext = false;
          return [{ kind: 'quack', member: input.member }];
        }
        s.phase = 'done';
        return [];
      }
      case 'lost': {
        const s = this.members.get(input.member);
        if (s === undefined || s.phase === 'done' || s.phase === 'dropped') return [];
        if (s.phase === 'finder') {
          this.finderOutcome = { status: 'error', reason: `${input.member} found the ball, then was lost: ${input.why}` };
          this.finderLost = true;
        }
        s.phase = 'dropped';
        s.last = { status: 'error', reason: input.why };
        return [{ kind: 'drop', member: input.member, why: input.why }];
      }
      case 'deadline':
      case 'interrupted': {
        if (this.closing !== undefined) return [];
        this.closing = { kind: input.kind, why: input.why };
        const decisions: Decision[] = [];
        for (const [member, s] of this.members) {
          s.quackNext = false;
          if (s.phase === 'searching' || s.phase === 'finder' || s.phase === 'quacking') {
            if (s.phase !== 'finder') s.phase = 'stopping';
            // `stopped by Ctrl-C` is the outcome's wording; a member's stop says what stopped it.
            decisions.push({ kind: 'stop', member, why: input.why.replace(/^stopped by /, '') });
          }
        }
        return decisions;
      }
    }
  }

  /** `member` is the finder: the others still searching are stopped, to quack after. */
  private claim(member: string, why: string): Decision[] {
    this.finder = member;
    const decisions: Decision[] = [{ kind: 'finder', member, why }];
    const s = this.members.get(member);
    if (s !== undefined) s.phase = 'finder';
    for (const [other, o] of this.members) {
      if (other === member || o.phase !== 'searching') continue;
      o.phase = 'stopping';
      o.quackNext = true;
      decisions.push({ kind: 'stop', member: other, why: `${member} found the ball first` });
    }
    return decisions;
  }

  private endIfSettled(): Decision[] {
    const states = [...this.members.values()];
    if (!states.every((s) => s.phase === 'done' || s.phase === 'dropped')) return [];
    this.ended = true;
    return [{ kind: 'end', outcome: this.outcome(states) }];
  }

  private outcome(states: readonly State[]): Outcome {
    if (this.closing?.kind === 'interrupted') return { status: 'interrupted', reason: this.closing.why };
    const found = this.finder;
    const result = this.finderOutcome;
    if (found !== undefined && result !== undefined) {
      if (result.status === 'success') return { status: 'success', reason: `${found} found the ball and kicked it: ${result.reason}` };
      if (this.closing?.kind === 'deadline') return { status: 'budget', reason: `${this.closing.why} before ${found} was done` };
      return this.finderLost ? result : { status: result.status, reason: `${found} found the ball; its run: ${result.reason}` };
    }
    if (this.closing?.kind === 'deadline') return { status: 'budget', reason: `${this.closing.why}; nobody found the ball` };
    // Nobody could even search (every one failed to start, or was lost): that is trouble, not a miss.
    if (states.every((s) => s.last?.status === 'error')) {
      return { status: 'error', reason: `no member could search: ${[...this.members].map(([m, s]) => `${m}: ${s.last?.reason ?? '?'}`).join('; ')}` };
    }
    return { status: 'failure', reason: 'nobody found the ball' };
  }
}

export function planFor(name: PlanName, members: readonly string[]): Plan {
  switch (name) {
    case 'first-finder-kicks':
      return new FirstFinderKicks(members);
  }
}
