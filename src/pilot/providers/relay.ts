/**
 * The relay pilot: a run whose pilot sits outside the process, one call at a time (an MCP client's
 * robot_verb, in serve-mcp itself or over the control socket). Each call is handed to the loop as
 * this provider's next response, and the loop's next request carries what became of it (the line
 * the loop tells a pilot, the sensors, the budgets left), which answers the caller. The loop, the
 * executor, its allowlist, budgets and gates are the run's own: the relay only passes text on.
 */
import type { Observation } from '../../bodies/body.js';
import type { PilotRequest, PilotResponse, Provider, ToolCall } from './provider.js';

/** What became of one relayed call, as the loop tells a pilot. */
export interface RelayStep {
  /** `ok — walked 1.00 m …`, `refused — not in this duck's verbs`, `denied — …`. */
  readonly result: string;
  /** The sensors after it. */
  readonly observation: Observation;
  /** `budget left: 4 steps, 9 calls, 250 s`. */
  readonly budget: string;
}

/** A second call while one is still under way: a pilot calls one verb at a time. */
export class RelayBusy extends Error {
  override readonly name = 'RelayBusy';
  constructor() {
    super('one verb at a time: the last one is still under way');
  }
}

interface Pending {
  readonly call: ToolCall;
  delivered: boolean;
  readonly resolve: (step: RelayStep | undefined) => void;
}

const abortReason = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));

/** The tool line for `callId` in the loop's history, and the last lines the loop said after it. */
function stepOf(request: PilotRequest, callId: string): RelayStep {
  const tool = request.messages.findLast((m) => m.role === 'tool' && m.callId === callId);
  const said = request.messages.at(-1);
  const lines = said?.role === 'user' ? said.content.split('\n') : [];
  return { result: tool?.role === 'tool' ? tool.content : '', observation: request.context.observation, budget: lines.at(-1) ?? '' };
}

export class RelayPilot implements Provider {
  readonly name = 'mcp';
  private loop: ((response: PilotResponse) => void) | undefined;
  private pending: Pending | undefined;
  private ended = false;
  private calls = 0;
  private seen: Observation | undefined;

  /** `model`: who pilots, e.g. the MCP client's name (`claude-ai 0.1.0`); the transcript names it. */
  constructor(readonly model: string) {}

  /** What the sensors said when the loop last asked (at the start, and after every call). */
  get observation(): Observation | undefined {
    return this.seen;
  }

  next(request: PilotRequest, signal: AbortSignal): Promise<PilotResponse> {
    this.seen = request.context.observation;
    const pending = this.pending;
    if (pending?.delivered === true) {
      this.pending = undefined;
      pending.resolve(stepOf(request, pending.call.id));
    }
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(abortReason(signal));
      const onAbort = (): void => {
        this.loop = undefined;
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.loop = (response) => {
        signal.removeEventListener('abort', onAbort);
        this.loop = undefined;
        resolve(response);
      };
      if (this.pending?.delivered === false) this.deliver();
    });
  }

  /**
   * Hands one call to the run. Resolves with what became of it, or undefined when the run ended
   * instead (a declaration, a spent budget, a stop): the run's report says how. Rejects with
   * RelayBusy while an earlier call is under way.
   */
  submit(name: string, args: unknown): Promise<RelayStep | undefined> {
    if (this.ended) return Promise.resolve(undefined);
    if (this.pending !== undefined) return Promise.reject(new RelayBusy());
    this.calls += 1;
    return new Promise((resolve) => {
      this.pending = { call: { id: `relay-${this.calls}`, name, args }, delivered: false, resolve };
      if (this.loop !== undefined) this.deliver();
    });
  }

  /** The run ended: a call still waiting is answered with undefined, and later ones at once. */
  end(): void {
    this.ended = true;
    this.pending?.resolve(undefined);
    this.pending = undefined;
  }

  private deliver(): void {
    const pending = this.pending;
    const loop = this.loop;
    if (pending === undefined || loop === undefined) return;
    pending.delivered = true;
    loop({ text: '', toolCalls: [pending.call] });
  }
}
