/**
 * The fake pilot: scripted and deterministic. It plays find-and-kick from the structured
 * observations (scan, aim, walk up going round what blocks it, kick, check: fake-ball.ts) when the task is about a ball,
 * a lookout (look all round, report, declare: fake-lookout.ts) when the task is a lookout's,
 * a duck whose numbered lines are all verb calls (patrol) as the script pilot plays it, line by
 * line, and otherwise says hello (quack, declare). When its task says to recall (and memory offers
 * `recall`), its first reply also searches memory, with the query the task gives in quotes.
 * When told the run is about to end (the memory flush), it remembers what it last observed.
 * It is the demo and the test pilot; it writes no other notes and does not act on what it recalls.
 */
import { logger } from '../../log.js';
import { readScriptText } from '../../ducks/script.js';
import { BallGame } from './fake-ball.js';
import { playLookout } from './fake-lookout.js';
import type { PilotContext, PilotRequest, PilotResponse, Provider, ToolCall } from './provider.js';
import { createScriptProvider } from './script.js';

/** Whether every numbered line of the task is a call of the offered verbs (src/ducks/script.ts). */
function isScriptTask(request: PilotRequest): boolean {
  try {
    readScriptText(request.context.task, request.tools.map((t) => t.name), request.context.duck);
    return true;
  } catch {
    return false;
  }
}

class FakeProvider implements Provider {
  readonly name = 'fake';
  readonly model = 'scripted';
  private calls = 0;
  private readonly ballGame = new BallGame();
  private dryPlan = 0;
  private recalled = false;
  private flushed = false;
  /** Decided at the first call: the duck is a script, played as the script pilot plays it. */
  private script: Provider | null | undefined;

  next(request: PilotRequest, signal: AbortSignal): Promise<PilotResponse> {
    if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    this.script ??= isScriptTask(request) ? createScriptProvider() : null;
    if (this.script !== null) return this.script.next(request, signal);
    const offered = new Set(request.tools.map((t) => t.name));
    logger('pilot').debug({ provider: 'fake', call: this.calls + 1, messages: request.messages.length, tools: offered.size }, 'provider call');
    // A scripted pilot cannot change its plan: when its last call was refused or denied, it stops
    // and says why rather than ask again until a budget runs out.
    const refusal = lastRefusal(request);
    if (refusal !== undefined) {
      this.calls += 1;
      return Promise.resolve({ text: '', toolCalls: [{ id: `fake-${this.calls}`, name: 'declare_failure', args: { reason: `I cannot go on: ${refusal}` } }] });
    }
    // The ball game when the task is about a ball and the verbs allow it; a lookout when the task
    // is one and the verbs can scan and report; otherwise a hello.
    const ballGame = offered.has('search_scan') && offered.has('kick') && /\b(ball|kick)/i.test(request.context.task);
    const lookout = offered.has('look_around') && offered.has('report') && /\blookout\b|\bwhat is where\b/i.test(request.context.task);
    const call = ballGame ? this.playBall(request.context, offered) : lookout ? playLookout(request.context, offered) : this.playHello(request.context, offered);
    this.calls += 1;
    const calls = [...this.recallFirst(request.context.task, offered), ...this.flush(request, offered), call].map((c, i) => ({ id: `fake-${this.calls}${i > 0 ? `-${i}` : ''}`, name: c.name, args: c.args }));
    return Promise.resolve({ text: '', toolCalls: calls });
  }

  /** Once, when the observation says the run is about to end: what it last saw, for the next run. */
  private flush(request: PilotRequest, offered: ReadonlySet<string>): Omit<ToolCall, 'id'>[] {
    const last = request.messages.at(-1);
    if (this.flushed || !offered.has('remember') || last?.role !== 'user' || !/^memory: the run is about to end/m.test(last.content)) return [];
    this.flushed = true;
    const seen = request.context.observation.summary.replace(/\s+/g, ' ').trim();
    return [{ name: 'remember', args: { text: `${request.context.duck} ran out of budget; last observed: ${seen}`.slice(0, 280) } }];
  }

  /** `recall {query: "where was the ball found"}` once, beside the first move, when the task asks for it. */
  private recallFirst(task: string, offered: ReadonlySet<string>): Omit<ToolCall, 'id'>[] {
    if (this.recalled || !offered.has('recall') || !/\brecall\b/i.test(task)) return [];
    this.recalled = true;
    const query = /\brecall\b[^"\n]*"([^"\n]+)"/i.exec(task)?.[1] ?? task.split('\n').find((l) => l.trim() !== '' && !l.startsWith('#'))?.trim() ?? 'what do I know';
    return [{ name: 'recall', args: { query: query.slice(0, 200) } }];
  }

  private playHello(ctx: PilotContext, offered: ReadonlySet<string>): Omit<ToolCall, 'id'> {
    if (!offered.has('quack')) return { name: 'declare_failure', args: { reason: 'quack is not among my verbs, so I cannot say hello.' } };
    const quacked = ctx.lastResults.some((r) => r.verb === 'quack');
    return quacked ? { name: 'declare_success', args: { reason: 'I quacked hello.' } } : { name: 'quack', args: {} };
  }

  private playBall(ctx: PilotContext, offered: ReadonlySet<string>): Omit<ToolCall, 'id'> {
    if (ctx.dryRun) return this.playBallBlind();
    return this.ballGame.next(ctx, offered);
  }

  /** Under --dry-run nothing is observed, so it walks through the plan once and declares. */
  private playBallBlind(): Omit<ToolCall, 'id'> {
    const plan: Omit<ToolCall, 'id'>[] = [
      { name: 'search_scan', args: {} },
      { name: 'walk', args: { metres: 1 } },
      { name: 'kick', args: { foot: 'right' } },
      { name: 'declare_success', args: { reason: 'Dry run: the plan went through once.' } },
    ];
    const step = plan[Math.min(this.dryPlan, plan.length - 1)]!;
    this.dryPlan += 1;
    return step;
  }
}

/** `walk was denied: …` when the observation says the previous call was refused or denied. */
function lastRefusal(request: PilotRequest): string | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return undefined;
  const m = /^last verb (\S+): (refused|denied) — (.*)$/m.exec(last.content);
  return m === null ? undefined : `${m[1]} was ${m[2]}: ${m[3]}`;
}

export function createFakeProvider(): Provider {
  return new FakeProvider();
}
