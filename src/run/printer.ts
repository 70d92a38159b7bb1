/**
 * The terminal view of a run: a header, one line a step, one outcome line. It only listens to
 * the run's events; it decides nothing.
 */
import { printable, type Output } from '../cli/output.js';
import type { Duck } from '../ducks/duck.js';
import type { TranscriptEvent } from '../transcript/events.js';
import type { RunReport } from './start-run.js';

const LABEL_WIDTH = 18;

export function printHeader(io: Output, duck: Duck, robot: string, pilot: string, dryRun: boolean): void {
  const { steps, llm_calls, seconds } = duck.budgets;
  const dry = dryRun ? ' · dry run' : '';
  io.line(`${io.bold(duck.name)} on ${robot} · pilot ${pilot} · budget ${steps} steps, ${llm_calls} calls, ${seconds} s${dry}`);
}

/**
 * On a terminal, a model that takes more than a second gets a transient `… waiting for the
 * pilot (4 s)` line, erased when anything else is printed. Pipes never see it.
 */
function pilotWait(io: Output): { start(): void; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  let shown = false;
  const clear = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    if (shown) io.out.write('\r\u001b[2K');
    shown = false;
  };
  return {
    start: () => {
      if (!io.interactive) return;
      clear();
      const since = Date.now();
      timer = setInterval(() => {
        shown = true;
        io.out.write(`\r\u001b[2K${io.dim(`     … waiting for the pilot (${Math.round((Date.now() - since) / 1000)} s)`)}`);
      }, 1000);
      timer.unref();
    },
    clear,
  };
}

/** Returns the event listener that prints step lines. */
export function stepPrinter(io: Output): (event: TranscriptEvent) => void {
  let nextStep = 1;
  const wait = pilotWait(io);
  // Pad before colouring (escape codes have width 0), and show model text only as printable().
  const plain = (x: string): string => x;
  const row = (n: string, text: string, result: string, paint: { text?: (x: string) => string; result?: (x: string) => string } = {}): void =>
    io.line(`${n.padStart(3)}  ${(paint.text ?? plain)(printable(text).padEnd(LABEL_WIDTH))} ${(paint.result ?? plain)(printable(result))}`);
  return (e) => {
    if (e.type === 'request') return wait.start();
    wait.clear();
    switch (e.type) {
      case 'tool_call':
        nextStep = e.step;
        break;
      case 'response':
        // A pilot that answers in prose only still shows up, so a person sees why nothing moves.
        if (e.toolCalls.length === 0) row('', 'pilot', `(no verb called${e.text.trim() !== '' ? `: "${clip(e.text.trim(), 60)}"` : ''})`, { result: io.yellow });
        break;
      case 'verb_result':
        row(e.step === undefined ? '' : String(e.step), e.label, e.summary, e.ok ? {} : { result: io.yellow });
        break;
      case 'refused':
        row(String(nextStep), e.name, `(refused: ${e.reason})`, { result: io.yellow });
        break;
      case 'gate':
        if (!e.allowed) row(String(nextStep), e.label, GATE_DENIED[e.how], { result: io.yellow });
        break;
      case 'budget':
        row('', 'budget', `${e.budget} ${e.used}/${e.limit}`, { text: io.dim, result: io.dim });
        break;
      default:
        // Errors are said once, on the outcome line.
        break;
    }
  };
}

const GATE_DENIED: Readonly<Record<'tty' | 'yes' | 'no-tty' | 'aborted', string>> = {
  tty: '(denied by you)',
  yes: '(denied)',
  'no-tty': '(denied: needs confirmation; no terminal to ask, --yes to allow)',
  aborted: '(not confirmed: the run was stopped)',
};

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function printOutcome(io: Output, report: RunReport): void {
  const { outcome } = report;
  const good = outcome.status === 'success';
  const mark = good ? io.green(io.ok) : io.red(io.fail);
  const word = outcome.status === 'budget' ? 'failure' : outcome.status;
  const dry = report.dryRun ? ' (dry run: nothing saved)' : '';
  const stats = `${plural(report.steps, 'step')}, ${plural(report.llmCalls, 'call')}, ${report.seconds.toFixed(1)} s`;
  const tokens = report.usage.inputTokens + report.usage.outputTokens > 0 ? `, ${report.usage.inputTokens}+${report.usage.outputTokens} tokens` : '';
  io.line(`${mark} ${word}${dry} — ${printable(outcome.reason)} · ${stats}${tokens} · transcript ${report.runId}`);
}
