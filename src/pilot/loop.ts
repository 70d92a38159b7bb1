/**
 * The deliberation loop: ask the provider, hand each tool call to the safety executor, tell the
 * pilot what happened and what the sensors say, until a declaration, a spent budget, Ctrl-C or
 * an error ends the run. The loop reads sensors but never moves the body: only the executor can.
 * Trouble the body reports by itself (a lost link; a fault while no verb runs) ends the run at
 * once, through the same cancellation as the deadline and Ctrl-C.
 */
import { BodyError, type Body, type BodyTrouble, type Observation, type VerbResult } from '../bodies/body.js';
import type { Duck } from '../ducks/duck.js';
import type { BudgetTracker, BudgetName } from '../safety/budgets.js';
import type { Executor } from '../safety/executor.js';
import type { Outcome, TranscriptEvent } from '../transcript/events.js';
import { flushNotice } from '../memory/render.js';
import { recall } from '../verbs/recall.js';
import { remember } from '../verbs/remember.js';
import { verbJsonSchema, type VerbRegistry } from '../verbs/registry.js';
import { buildSystemPrompt, formatObservation } from './prompt.js';
import type { PilotContext, PilotMessage, Provider, TokenUsage, ToolSpec } from './providers/provider.js';

export interface PilotLoopDeps {
  readonly duck: Duck;
  readonly provider: Provider;
  readonly executor: Executor;
  /** Read-only: the loop observes; it cannot perform. */
  readonly sensors: Pick<Body, 'key' | 'observe' | 'onTrouble'>;
  readonly budgets: BudgetTracker;
  readonly registry: VerbRegistry;
  readonly memoryBlock: string;
  readonly dryRun: boolean;
  readonly emit: (event: TranscriptEvent) => void;
  /** Aborted by Ctrl-C. */
  readonly signal: AbortSignal;
}

export interface LoopResult {
  readonly outcome: Outcome;
  /** `verb: result` lines of every verb carried out, for the episode. */
  readonly results: readonly string[];
  readonly usage: TokenUsage;
  readonly pictures: PicturesSent;
}

/**
 * Pictures the model was shown, and the bytes of them sent: the base64 in each request, so a
 * picture counts again in every later request that still carries it (a conversation is sent whole).
 */
export interface PicturesSent {
  readonly shown: number;
  readonly bytes: number;
}

/** The bytes of the pictures a request carries. */
function pictureBytes(messages: readonly PilotMessage[]): number {
  return messages.reduce((sum, m) => sum + (m.role === 'tool' && m.image !== undefined ? m.image.base64.length : 0), 0);
}

/**
 * Pictures a conversation keeps: each request sends the conversation whole, so every picture left
 * in it is paid for again in every later call. The newest few say what the robot sees now.
 */
export const PICTURES_KEPT = 3;

/** Drops all but the newest `keep` pictures from `messages`; their words stay, and say the picture went. */
function dropOldPictures(messages: PilotMessage[], keep: number): void {
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'tool' || m.image === undefined) continue;
    seen += 1;
    if (seen <= keep) continue;
    messages[i] = { role: 'tool', callId: m.callId, name: m.name, content: `${m.content} (its picture is no longer shown: newer ones are)` };
  }
}

class RunEnd extends Error {
  constructor(readonly outcome: Outcome) {
    super(outcome.reason);
  }
}

/** `stopped by SIGTERM` when the signal said so; Ctrl-C otherwise. */
function stopReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.message.startsWith('stopped by ') ? reason.message : 'stopped by Ctrl-C';
}

export function toolsFor(names: readonly string[], registry: VerbRegistry): ToolSpec[] {
  return names.flatMap((name) => {
    const verb = registry.get(name);
    return verb === undefined ? [] : [{ name, description: verb.description, inputSchema: verbJsonSchema(verb) }];
  });
}

export async function runPilot(deps: PilotLoopDeps): Promise<LoopResult> {
  const { duck, provider, executor, sensors, budgets, emit, signal } = deps;
  const tools = toolsFor(executor.allowedVerbs(), deps.registry);
  const system = buildSystemPrompt(duck, sensors.key, tools, deps.memoryBlock);
  const results: string[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  const pictures = { shown: 0, bytes: 0 };
  const messages: PilotMessage[] = [];
  const deadline = new AbortController();
  // Re-armed rather than fixed: a confirmation gate pauses the seconds budget.
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    timer = setTimeout(() => (budgets.timeUp() ? deadline.abort(new Error('seconds budget spent')) : arm()), Math.max(1, budgets.msLeft()));
  };
  arm();
  const trouble = new AbortController();
  const onTrouble = (t: BodyTrouble): void => {
    emit({ type: 'trouble', kind: t.kind, message: t.message });
    // A fault during a verb fails that verb (the executor says so to the pilot); any other ends the run.
    if (t.kind === 'fault' && executor.noteFault(t.message) === 'verb') return;
    // A fall between verbs ends no run by itself: the verbs after it are refused while the duck
    // is down (a person may stand it up), and no success is accepted after it.
    if (t.kind === 'fell') return void executor.noteFault(t.message);
    if (!trouble.signal.aborted) trouble.abort(new BodyError(t.message));
  };
  const stopWatching = sensors.onTrouble?.(onTrouble);
  const both = AbortSignal.any([signal, deadline.signal, trouble.signal]);

  const budgetEnd = (name: BudgetName): RunEnd => {
    emit({ type: 'budget', budget: name, used: budgets.used(name), limit: name === 'steps' ? duck.budgets.steps : name === 'llm_calls' ? duck.budgets.llm_calls : duck.budgets.seconds });
    return new RunEnd({ status: 'budget', reason: `budget: ${budgets.describe(name)}` });
  };
  const checkStop = (): void => {
    if (signal.aborted) throw new RunEnd({ status: 'interrupted', reason: stopReason(signal) });
    if (trouble.signal.aborted) throw trouble.signal.reason instanceof Error ? trouble.signal.reason : new BodyError(String(trouble.signal.reason));
    if (budgets.timeUp() || deadline.signal.aborted) throw budgetEnd('seconds');
  };
  const say = (content: string): void => {
    messages.push({ role: 'user', content });
    emit({ type: 'prompt', role: 'user', content });
  };
  // The memory flush: once, when a budget is about to end the run and the pilot can remember.
  let flushed = !tools.some((t) => t.name === remember.name);
  const flushLines = (): string[] => {
    const low = flushed ? undefined : budgets.nearlySpent();
    if (low === undefined) return [];
    flushed = true;
    executor.markFlush();
    const left = low === 'steps' ? budgets.limits.steps - budgets.stepsUsed : low === 'llm_calls' ? budgets.limits.llm_calls - budgets.llmCallsUsed : Math.ceil(budgets.msLeft() / 1000);
    return [flushNotice(low === 'steps' ? `${left} step${left === 1 ? '' : 's'} left` : low === 'llm_calls' ? `${left} reply left` : `${left} s left`)];
  };

  emit({ type: 'prompt', role: 'system', content: system });
  try {
    let observation: Observation = await sensors.observe();
    let lastResults: PilotContext['lastResults'] = [];
    say(formatObservation(['The run begins.', ...flushLines()], observation.summary, budgets.remaining()));
    for (;;) {
      checkStop();
      if (!budgets.canCallLlm()) throw budgetEnd('llm_calls');
      const started = performance.now();
      const sending = pictureBytes(messages);
      pictures.bytes += sending;
      emit({ type: 'request', call: budgets.llmCallsUsed + 1, messages: messages.length, tools: tools.length, ...(sending > 0 ? { pictureBytes: sending } : {}) });
      const context: PilotContext = { observation, lastResults, dryRun: deps.dryRun, duck: duck.name, task: duck.text };
      let response;
      try {
        response = await provider.next({ system, messages, tools, context }, both);
      } catch (err) {
        checkStop();
        throw err;
      } finally {
        budgets.chargeLlm();
      }
      if (response.usage !== undefined) {
        usage.inputTokens += response.usage.inputTokens;
        usage.outputTokens += response.usage.outputTokens;
      }
      emit({
        type: 'response',
        call: budgets.llmCallsUsed,
        text: response.text,
        toolCalls: response.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args, ...(c.error !== undefined ? { error: c.error } : {}) })),
        ...(response.usage !== undefined ? { usage: response.usage } : {}),
        ms: Math.round(performance.now() - started),
      });
      messages.push({ role: 'assistant', text: response.text, toolCalls: response.toolCalls });
      const lines: string[] = [];
      const done: { verb: string; result: VerbResult; invented: boolean }[] = [];
      if (response.toolCalls.length === 0) lines.push('error: you called no verb; answer with a tool call (declare_failure if you are stuck)');
      for (const call of response.toolCalls) {
        checkStop();
        const ex = await executor.execute(call, both);
        let content: string;
        switch (ex.kind) {
          case 'refused':
            content = `refused — ${ex.reason}`;
            break;
          case 'denied':
            content = `denied — ${ex.reason}`;
            break;
          case 'budget':
            throw budgetEnd('steps');
          case 'declare':
            throw new RunEnd({ status: ex.verdict, reason: ex.verified !== undefined ? `${ex.reason} (${ex.verified})` : ex.reason });
          case 'done':
            content = `${ex.result.ok ? 'ok' : 'failed'} — ${ex.result.summary}`;
            done.push({ verb: ex.verb, result: ex.result, invented: ex.invented });
            // What the pilot recalled is memory already, not a fact of this run's episode.
            if (ex.verb !== recall.name) results.push(`${ex.verb}: ${ex.result.summary}`);
            break;
        }
        lines.push(`last verb ${call.name}: ${content}`);
        const picture = ex.kind === 'done' ? ex.result.picture : undefined;
        if (picture !== undefined && provider.seesImages !== true) content += ' (a picture was taken too; this pilot reads words only)';
        const shown = picture !== undefined && provider.seesImages === true;
        if (shown) pictures.shown += 1;
        if (shown) dropOldPictures(messages, PICTURES_KEPT - 1);
        messages.push({ role: 'tool', callId: call.id, name: call.name, content, ...(shown ? { image: picture } : {}) });
        emit({ type: 'prompt', role: 'tool', name: call.name, content });
      }
      checkStop();
      observation = await sensors.observe();
      lastResults = done;
      say(formatObservation([...lines, ...flushLines()], observation.summary, budgets.remaining()));
    }
  } catch (err) {
    if (err instanceof RunEnd) return { outcome: err.outcome, results, usage, pictures };
    throw err;
  } finally {
    clearTimeout(timer);
    stopWatching?.();
  }
}
