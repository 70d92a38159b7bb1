/**
 * The terminal view of a run: a header, one line a step, one outcome line. It only listens to
 * the run's events; it decides nothing.
 */
import type { Output } from '../cli/output.js';
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
  const row = (n: string, text: string, result: string): void => io.line(`${n.padStart(3)}  ${text.padEnd(LABEL_WIDTH)} ${result}`);
  return (e) => {
    if (e.type === 'request') return wait.start();
    wait.clear();
    switch (e.type) {
      case 'tool_call':
        nextStep = e.step;
        break;
      case 'verb_result':
        row(e.step === undefined ? '' : String(e.step), e.label, e.ok ? e.summary : io.yellow(e.summary));
        break;
      case 'refused':
        row(String(nextStep), e.name, io.yellow(`(refused: ${e.reason})`));
        break;
      case 'gate':
        if (!e.allowed) row(String(nextStep), e.label, io.yellow(e.how === 'no-tty' ? '(denied: needs confirmation; no terminal to ask, --yes to allow)' : '(denied by you)'));
        break;
      case 'budget':
        row('', io.dim('budget'), io.dim(`${e.budget} ${e.used}/${e.limit}`));
        break;
      case 'error':
        row('', io.red('error'), io.red(e.message));
        break;
      default:
        break;
    }
  };
}

export function printOutcome(io: Output, report: RunReport): void {
  const { outcome } = report;
  const good = outcome.status === 'success';
  const mark = good ? io.green(io.ok) : io.red(io.fail);
  const word = outcome.status === 'budget' ? 'failure' : outcome.status;
  const dry = report.dryRun ? ' (dry run: nothing saved)' : '';
  const stats = `${report.steps} steps, ${report.llmCalls} calls, ${report.seconds.toFixed(1)} s`;
  const tokens = report.usage.inputTokens + report.usage.outputTokens > 0 ? `, ${report.usage.inputTokens}+${report.usage.outputTokens} tokens` : '';
  io.line(`${mark} ${word}${dry} — ${outcome.reason} · ${stats}${tokens} · transcript ${report.runId}`);
}
