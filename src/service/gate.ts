/**
 * The service's confirmation gate: nobody sits at the service's terminal, so a gate is a question
 * put on the bus (`run:gate` waiting) for whoever watches — a dashboard over MQTT, the terminal
 * that started the run over the control socket — and answered through answerGate(). Nobody
 * answering within the timeout is "not confirmed": a motor never moves on silence.
 */
import type { EventBus } from '../runtime/events.js';
import type { Gate, GateDecision, GateHow } from '../safety/gate.js';
import { readStepLine } from '../safety/gate-question.js';

export const DEFAULT_GATE_TIMEOUT_MS = 120_000;

export interface Question {
  readonly question: string;
  readonly verb: string;
  readonly since: string;
}

export class ServiceGate implements Gate {
  private open: (Question & { settle(decision: GateDecision): void }) | undefined;

  constructor(
    private readonly events: EventBus,
    private readonly robot: string,
    private readonly runId: () => string,
    private readonly timeoutMs: number = DEFAULT_GATE_TIMEOUT_MS,
  ) {}

  /** The question waiting for an answer, if one is. */
  get waiting(): Question | undefined {
    return this.open === undefined ? undefined : { question: this.open.question, verb: this.open.verb, since: this.open.since };
  }

  confirm(question: string, signal?: AbortSignal): Promise<GateDecision> {
    const { verb } = readStepLine(question);
    return new Promise<GateDecision>((resolve) => {
      if (signal?.aborted === true) return resolve({ allowed: false, how: 'aborted' });
      const timer = setTimeout(() => settle({ allowed: false, how: 'timeout' }), this.timeoutMs);
      const onAbort = (): void => settle({ allowed: false, how: 'aborted' });
      const settle = (decision: GateDecision): void => {
        if (this.open !== pending) return;
        this.open = undefined;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(decision);
      };
      const pending = { question, verb, since: new Date().toISOString(), settle };
      this.open = pending;
      signal?.addEventListener('abort', onAbort, { once: true });
      // The runtime announces the answer from the transcript (`answered`); the question is ours to say.
      this.events.emit('run:gate', { robot: this.robot, runId: this.runId(), question, verb, state: 'waiting' });
    });
  }

  /**
   * Answers the waiting question (`by`: who answered, for the transcript and the journal); false
   * when none waits, or it asks about another verb than `verb`.
   */
  answer(allowed: boolean, verb?: string, how: Extract<GateHow, 'tty' | 'person' | 'channel' | 'unasked'> = 'person', by?: string): boolean {
    const open = this.open;
    if (open === undefined || (verb !== undefined && verb !== open.verb)) return false;
    open.settle({ allowed, how, ...(by !== undefined ? { by } : {}) });
    return true;
  }
}
