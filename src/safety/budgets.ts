/**
 * The run's budgets, counted by the executor and the loop, never by the model: body steps,
 * provider calls and wall-clock seconds. Pure; the clock is injected. Time a person spends at a
 * confirmation gate is not the run's: the seconds budget is paused while a question is open.
 */
import { plural } from '../text/plural.js';
import type { Budgets } from '../ducks/duck.js';

export type BudgetName = 'steps' | 'llm_calls' | 'seconds';

export class BudgetTracker {
  private steps = 0;
  private llmCalls = 0;
  private readonly startedAt: number;
  /** Milliseconds spent paused, and when the open pause began. */
  private pausedMs = 0;
  private pausedAt: number | undefined;

  constructor(
    readonly limits: Budgets,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.startedAt = now();
  }

  get stepsUsed(): number {
    return this.steps;
  }

  get llmCallsUsed(): number {
    return this.llmCalls;
  }

  elapsedSeconds(): number {
    return this.chargedMs() / 1000;
  }

  /** Milliseconds until the seconds budget runs out (never negative). */
  msLeft(): number {
    return Math.max(0, this.limits.seconds * 1000 - this.chargedMs());
  }

  /** Stop charging seconds (a confirmation gate is open). Nested pauses count once. */
  pauseClock(): void {
    this.pausedAt ??= this.now();
  }

  resumeClock(): void {
    if (this.pausedAt === undefined) return;
    this.pausedMs += this.now() - this.pausedAt;
    this.pausedAt = undefined;
  }

  private chargedMs(): number {
    const open = this.pausedAt !== undefined ? this.now() - this.pausedAt : 0;
    return this.now() - this.startedAt - this.pausedMs - open;
  }

  canStep(): boolean {
    return this.steps < this.limits.steps;
  }

  chargeStep(): number {
    this.steps += 1;
    return this.steps;
  }

  canCallLlm(): boolean {
    return this.llmCalls < this.limits.llm_calls;
  }

  chargeLlm(): void {
    this.llmCalls += 1;
  }

  timeUp(): boolean {
    return this.msLeft() <= 0;
  }

  /**
   * The budget about to end the run, if one is: one step or one LLM call left, or the last 10 %
   * of the seconds. The pilot is then asked to save what is worth keeping (a memory flush).
   */
  nearlySpent(): BudgetName | undefined {
    if (this.limits.steps - this.steps <= 1) return 'steps';
    if (this.limits.llm_calls - this.llmCalls <= 1) return 'llm_calls';
    if (this.msLeft() <= this.limits.seconds * 100) return 'seconds';
    return undefined;
  }

  /** What a budget-end line says, e.g. `12 steps spent`. */
  describe(name: BudgetName): string {
    switch (name) {
      case 'steps':
        return `${this.limits.steps} step${this.limits.steps === 1 ? '' : 's'} spent`;
      case 'llm_calls':
        return `${this.limits.llm_calls} LLM call${this.limits.llm_calls === 1 ? '' : 's'} spent`;
      case 'seconds':
        return `${this.limits.seconds} s spent`;
    }
  }

  used(name: BudgetName): number {
    return name === 'steps' ? this.steps : name === 'llm_calls' ? this.llmCalls : Math.round(this.elapsedSeconds() * 10) / 10;
  }

  /** The line the pilot reads each step. */
  remaining(): string {
    return `budget left: ${plural(this.limits.steps - this.steps, 'step')}, ${plural(this.limits.llm_calls - this.llmCalls, 'call')}, ${Math.ceil(this.msLeft() / 1000)} s`;
  }
}
