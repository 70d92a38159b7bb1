/**
 * The safety executor: the only path from a model's tool call to a body. It enforces the
 * contract in code, never by prompt: the allowlist, argument schemas, the steps budget,
 * confirmation gates and dry run. Invariant: Body.perform is called from here and nowhere else.
 * A fault the body reports (noteFault) fails the verb in flight, and no success is believed after
 * one: quackd cannot vouch for a body that had to protect itself. A success is checked against a
 * reading the body takes when it is declared.
 */
import type { Body, Intent, VerbResult } from '../bodies/body.js';
import type { Duck } from '../ducks/duck.js';
import type { RunMemory } from '../pilot/run-memory.js';
import type { ToolCall } from '../pilot/providers/provider.js';
import type { TranscriptEvent } from '../transcript/events.js';
import { didYouMean } from '../text/suggest.js';
import { admitIntent } from '../verbs/intent.js';
import { DECLARE_VERBS, everyVerb, type VerbRegistry } from '../verbs/registry.js';
import type { BudgetTracker } from './budgets.js';
import type { Gate, GateDecision } from './gate.js';
import { stepLine } from './gate-question.js';
import { verifySuccess } from './success-check.js';

export type Execution =
  /** Never reached the body: unknown verb, not allowed, bad arguments, unverified success. */
  | { readonly kind: 'refused'; readonly verb: string; readonly reason: string }
  /** A confirmation gate said no. */
  | { readonly kind: 'denied'; readonly verb: string; readonly label: string; readonly reason: string }
  /** The steps budget is spent: the run ends. */
  | { readonly kind: 'budget'; readonly verb: string }
  | { readonly kind: 'declare'; readonly verdict: 'success' | 'failure'; readonly reason: string; readonly verified?: string }
  | { readonly kind: 'done'; readonly verb: string; readonly label: string; readonly step?: number; readonly result: VerbResult; readonly invented: boolean };

export interface ExecutorDeps {
  readonly duck: Duck;
  readonly registry: VerbRegistry;
  readonly body: Body;
  readonly gate: Gate;
  readonly budgets: BudgetTracker;
  readonly dryRun: boolean;
  readonly memory?: RunMemory;
  /** What takes a `snapshot` (src/run/run-snapshots.ts): present when the body has a camera. */
  readonly snapshots?: Snapshots;
  readonly runId: string;
  readonly emit: (event: TranscriptEvent) => void;
}

/** Takes a picture with the body's camera; never moves anything. */
export interface Snapshots {
  take(signal?: AbortSignal): Promise<VerbResult>;
}

/** Why a gate stayed shut, as the pilot reads it; anything else is a person's no. */
const DENIED_BECAUSE: Partial<Record<GateDecision['how'], string>> = {
  'no-tty': 'needs confirmation; no terminal to ask (--yes to allow)',
  aborted: 'not confirmed: the run was stopped',
  timeout: 'not confirmed: nobody answered in time',
  unasked: 'not confirmed: the question could not be put to the person',
};

export class Executor {
  private readonly allowed: ReadonlySet<string>;
  private readonly confirm: ReadonlySet<string>;
  /** A body verb is in flight (Body.perform has not returned). */
  private performing = false;
  private faultInVerb: string | undefined;
  private firstFault: string | undefined;
  /** The pilot was told the run is about to end: what it remembers now is a flush note. */
  private flushing = false;

  constructor(private readonly deps: ExecutorDeps) {
    const memoryVerbs = deps.memory?.verbs.map((v) => v.name) ?? [];
    // `remember` or `recall` in a duck's list means nothing without memory: the memory decides.
    // `snapshot` likewise means nothing without a camera: the body's eyes decide.
    const bodyVerbs = deps.duck.verbs.filter((v) => everyVerb.get(v)?.kind !== 'memory' && (everyVerb.get(v)?.kind !== 'sense' || deps.snapshots !== undefined));
    this.allowed = new Set([...bodyVerbs, ...DECLARE_VERBS, ...memoryVerbs]);
    this.confirm = new Set(deps.duck.confirm);
  }

  /** From now on a note the pilot saves is a flush note (the loop told it the run is ending). */
  markFlush(): void {
    this.flushing = true;
  }

  /** The verbs the pilot is offered, in a stable order. */
  allowedVerbs(): string[] {
    return [...this.allowed];
  }

  /**
   * The body reported a fault by itself. `verb`: it came while a verb was in flight, and that
   * verb fails; `idle`: no verb was running, and the caller decides (the loop ends the run).
   */
  noteFault(message: string): 'verb' | 'idle' {
    this.firstFault ??= message;
    if (!this.performing) return 'idle';
    this.faultInVerb ??= message;
    return 'verb';
  }

  private refuse(verb: string, reason: string): Execution {
    this.deps.emit({ type: 'refused', name: verb, reason });
    return { kind: 'refused', verb, reason };
  }

  async execute(call: ToolCall, signal?: AbortSignal): Promise<Execution> {
    const { registry, emit } = this.deps;
    emit({ type: 'tool_call', step: this.deps.budgets.stepsUsed + 1, id: call.id, name: call.name, args: call.args });
    if (call.error !== undefined) return this.refuse(call.name, `invalid call: ${call.error}`);
    // A memory verb while memory is off is not "unknown": say why it is missing.
    if (everyVerb.get(call.name)?.kind === 'memory' && this.deps.memory === undefined) return this.refuse(call.name, 'memory is off for this run');
    if (everyVerb.get(call.name)?.kind === 'sense' && this.deps.snapshots === undefined) return this.refuse(call.name, `${this.deps.body.key} has no camera here (a camera: setting in the robot's config gives it one)`);
    const verb = registry.get(call.name);
    if (verb === undefined) return this.refuse(call.name, `unknown verb${didYouMean(call.name, [...this.allowed])}`);
    if (!this.allowed.has(verb.name)) return this.refuse(verb.name, `not in this duck's verbs`);
    const parsed = verb.input.safeParse(call.args ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue !== undefined && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      return this.refuse(verb.name, `invalid arguments: ${where}${issue?.message ?? 'rejected'}`);
    }
    const args = parsed.data as Record<string, unknown>;
    const label = verb.label(args);

    if (verb.kind === 'declare') return this.declare(verb.name, String(args['reason'] ?? ''));
    if (verb.kind === 'memory') return this.remember(verb.name, label, args);
    if (verb.kind === 'sense') return this.sense(verb.name, label, signal);

    // The body gets the verb's own typed arguments; a `body` verb no body performs is a registry
    // mistake, refused before it can spend a step.
    const intent = admitIntent(verb, args);
    if (intent === undefined) return this.refuse(verb.name, `${verb.name} is not a verb a body performs`);
    if (!this.deps.budgets.canStep()) return { kind: 'budget', verb: verb.name };
    // A verb whose arguments make it a stop (torque off) passes its gate unasked, as a stop does.
    const denied = verb.stops?.(args) === true ? undefined : await this.ask(verb.name, label, stepLine(label, this.deps.budgets.stepsUsed + 1), signal);
    if (denied !== undefined) return denied;
    const step = this.deps.budgets.chargeStep();
    const result: VerbResult = this.deps.dryRun ? { ok: true, summary: `(dry run: not sent) ${label}` } : await this.perform(intent, signal);
    emit({ type: 'verb_result', step, verb: verb.name, label, ok: result.ok, summary: result.summary, ...(result.data ? { data: { ...result.data } } : {}), invented: this.deps.dryRun });
    const frame = this.deps.body.frame();
    emit({ type: 'frame', step, state: { ...frame.state }, ...(frame.ascii !== undefined ? { ascii: frame.ascii } : {}) });
    return { kind: 'done', verb: verb.name, label, step, result, invented: this.deps.dryRun };
  }

  /** The duck's confirmation gate on `verb`, when it has one: the denial, or undefined to go on. */
  private async ask(verb: string, label: string, question: string, signal?: AbortSignal): Promise<Execution | undefined> {
    if (!this.confirm.has(verb)) return undefined;
    // A person reading the question is not the run's time: the seconds budget waits too.
    this.deps.budgets.pauseClock();
    let decision;
    try {
      decision = await this.deps.gate.confirm(question, signal);
    } finally {
      this.deps.budgets.resumeClock();
    }
    this.deps.emit({ type: 'gate', verb, label, allowed: decision.allowed, how: decision.how, ...(decision.by !== undefined ? { by: decision.by } : {}) });
    if (decision.allowed) return undefined;
    return { kind: 'denied', verb, label, reason: DENIED_BECAUSE[decision.how] ?? 'a person said no' };
  }

  /**
   * A sense verb (`snapshot`): read, never moved, so not a step and real under dry run too; a
   * gate on it still asks (a camera in a home is a person's to allow).
   */
  private async sense(name: string, label: string, signal?: AbortSignal): Promise<Execution> {
    const snapshots = this.deps.snapshots;
    if (snapshots === undefined) return this.refuse(name, 'no camera'); // refused in execute() already
    const denied = await this.ask(name, label, stepLine(label), signal);
    if (denied !== undefined) return denied;
    const result = await snapshots.take(signal);
    this.deps.emit({ type: 'verb_result', verb: name, label, ok: result.ok, summary: result.summary, ...(result.data ? { data: { ...result.data } } : {}), invented: false });
    return { kind: 'done', verb: name, label, result, invented: false };
  }

  /** Body.perform, failed when the body reported a fault while it ran. */
  private async perform(intent: Intent, signal?: AbortSignal): Promise<VerbResult> {
    this.performing = true;
    this.faultInVerb = undefined;
    let result: VerbResult;
    try {
      result = await this.deps.body.perform(intent, signal);
    } finally {
      this.performing = false;
    }
    const fault = this.faultInVerb;
    this.faultInVerb = undefined;
    if (fault === undefined) return result;
    return { ok: false, summary: `${fault} (while ${intent.verb} ran: ${result.summary})`, data: { ...result.data, fault } };
  }

  private async declare(name: string, reason: string): Promise<Execution> {
    if (name === 'declare_failure') return { kind: 'declare', verdict: 'failure', reason };
    const checks = this.deps.duck.successWhen;
    if (this.firstFault === undefined && !this.deps.dryRun && checks.length > 0) {
      // The claim is about the body now, not when the pilot last looked (it may have thought for
      // seconds, and a firmware that streams no state leaves metrics as old as that look).
      await this.deps.body.observe();
    }
    // A fault cannot be undone by a later verb: the run ends, and not as a success.
    if (this.firstFault !== undefined) return { kind: 'declare', verdict: 'failure', reason: `success not accepted after ${this.firstFault} (the pilot said: ${reason})` };
    if (this.deps.dryRun) return { kind: 'declare', verdict: 'success', reason, verified: 'dry run: not verified' };
    // Nothing to check it against (an ad-hoc --goal, a duck without success_when): say so.
    if (checks.length === 0) return { kind: 'declare', verdict: 'success', reason, verified: 'unverified: nothing measured it' };
    const v = verifySuccess(checks, this.deps.body.metrics());
    if (!v.ok) return this.refuse(name, `not accepted: ${v.detail}`);
    return { kind: 'declare', verdict: 'success', reason, verified: v.detail };
  }

  private async remember(name: string, label: string, args: Record<string, unknown>): Promise<Execution> {
    const memory = this.deps.memory;
    if (memory === undefined) return this.refuse(name, 'memory is off for this run');
    const { result, events } = await memory.handle(name, args, { runId: this.deps.runId, dryRun: this.deps.dryRun, ...(this.flushing ? { flush: true } : {}) });
    for (const e of events) this.deps.emit({ type: 'memory', action: e.action, detail: e.detail });
    this.deps.emit({ type: 'verb_result', verb: name, label, ok: result.ok, summary: result.summary, ...(result.data ? { data: { ...result.data } } : {}), invented: this.deps.dryRun });
    return { kind: 'done', verb: name, label, result, invented: this.deps.dryRun };
  }
}
