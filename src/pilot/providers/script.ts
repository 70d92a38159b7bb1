/**
 * The script pilot (--provider script): plays a duck whose numbered strategy lines are verb calls
 * (src/ducks/script.ts), one line a reply, in order, so a demo or a motion check runs on a real
 * duck with no model. A line whose verb did not do what it said (failed, refused, or denied at a
 * gate) ends the run with declare_failure naming that line; after the last line it declares
 * success, and quackd then checks the duck's success_when as for any pilot. It decides nothing
 * from what it observes: what it plays is what the person wrote.
 */
import { readScriptText, type ScriptCall } from '../../ducks/script.js';
import type { PilotMessage, PilotRequest, PilotResponse, Provider } from './provider.js';

/** A tool result as the loop words it: `ok — walked 1.00 m`, `failed — …`, `refused — …`, `denied — …`. */
function outcomeOf(messages: readonly PilotMessage[], callId: string): string | undefined {
  const m = messages.findLast((x) => x.role === 'tool' && x.callId === callId);
  return m?.role === 'tool' ? m.content : undefined;
}

class ScriptPilot implements Provider {
  readonly name = 'script';
  readonly model = 'strategy';
  private lines: readonly ScriptCall[] | undefined;
  private played = 0;
  private replies = 0;

  next(request: PilotRequest, signal: AbortSignal): Promise<PilotResponse> {
    if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    // Checked when the duck was (readScript): read again here from the text the pilot is given.
    this.lines ??= readScriptText(request.context.task, request.tools.map((t) => t.name), request.context.duck);
    this.replies += 1;
    const id = `script-${this.replies}`;
    const reply = (name: string, args: Record<string, unknown>): Promise<PilotResponse> => Promise.resolve({ text: '', toolCalls: [{ id, name, args }] });
    const last = this.lines[this.played - 1];
    if (last !== undefined) {
      // Split at the first dash only: a result may carry its own (`walked 0.9 s: failed — fell`), and the reason is all of it.
      const outcome = outcomeOf(request.messages, `script-${this.replies - 1}`) ?? 'no result';
      const dash = outcome.indexOf(' — ');
      const [how, what] = dash < 0 ? [outcome, ''] : [outcome.slice(0, dash), outcome.slice(dash + 3)];
      if (how !== 'ok') return reply('declare_failure', { reason: `step ${this.played} (${last.text}) ${how === 'failed' ? 'failed' : `was ${how}`}: ${what}`.slice(0, 500) });
    }
    const line = this.lines[this.played];
    if (line === undefined) return reply('declare_success', { reason: this.lines.length === 1 ? `did ${this.lines[0]!.text}` : `played the ${this.lines.length} lines of the script` });
    this.played += 1;
    return reply(line.verb, { ...line.args });
  }
}

export function createScriptProvider(): Provider {
  return new ScriptPilot();
}
