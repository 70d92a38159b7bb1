/**
 * The terminal view of a run: a header, one line a step, one outcome line. It only listens to
 * the run's events; it decides nothing.
 */
import { ellipsize, fitLine, oneLine, visibleWidth } from '../cli/fit.js';
import { printable, type Output } from '../cli/output.js';
import { plural } from '../text/plural.js';
import type { Duck } from '../ducks/duck.js';
import type { TranscriptEvent } from '../transcript/events.js';
import type { RunReport } from '../run/start-run.js';
import type { GateHow } from '../safety/gate.js';

const LABEL_WIDTH = 18;
/** Where a step's result starts: a wrapped result continues under it. */
const RESULT_COLUMN = 3 + 2 + LABEL_WIDTH + 1;

/** `robot`: as robotLabel (src/runtime/fleet.ts) shows it, `duck (microduck:mujoco)`, so a key that means a configured robot says which. */
export function printHeader(io: Output, duck: Pick<Duck, 'name' | 'budgets'>, robot: string, pilot: string, dryRun: boolean): void {
  const { steps, llm_calls, seconds } = duck.budgets;
  const dry = dryRun ? ' · dry run' : '';
  io.line(fitLine(`${io.bold(duck.name)} on ${robot} · pilot ${pilot} · budget ${plural(steps, 'step')}, ${plural(llm_calls, 'call')}, ${seconds} s${dry}`, io.width(), 2));
}

/** Warnings about the run's robot under its header (`warning: walk: home_pose: …`); under --json, on stderr. */
export function printWarnings(io: Output, warnings: readonly string[], json: boolean): void {
  for (const w of warnings) {
    if (json) io.err.write(`quackd: warning: ${printable(w)}\n`);
    else io.line(fitLine(io.yellow(`warning: ${printable(w)}`), io.width(), 9));
  }
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

/**
 * Returns the event listener that prints step lines. `asks`: this terminal asked the run's gates
 * (a follower's did not: a question answered elsewhere leaves its own lines alone).
 */
export function stepPrinter(io: Output, { asks = true }: { asks?: boolean } = {}): (event: TranscriptEvent) => void {
  const wait = pilotWait(io);
  // Pad before colouring (escape codes have width 0), and show model text only as printable().
  const plain = (x: string): string => x;
  const cells = (n: string, text: string, result: string, paint: { text?: (x: string) => string; result?: (x: string) => string } = {}): string =>
    `${n.padStart(3)}  ${(paint.text ?? plain)(printable(text).padEnd(LABEL_WIDTH))} ${(paint.result ?? plain)(printable(result))}`;
  const row = (...args: Parameters<typeof cells>): void => io.line(fitLine(cells(...args), io.width(), RESULT_COLUMN));
  return (e) => {
    if (e.type === 'request') return wait.start();
    wait.clear();
    switch (e.type) {
      case 'response':
        // A pilot that answers in prose only still shows up, so a person sees why nothing moves.
        if (e.toolCalls.length === 0) row('', 'pilot', `(no verb called${e.text.trim() !== '' ? `: "${clip(e.text.trim(), 60)}"` : ''})`, { result: io.yellow });
        break;
      case 'verb_result': {
        const n = e.step === undefined ? '' : String(e.step);
        const result = dryRunOnce(e.label, e.summary, e.invented);
        const paint = e.ok ? {} : { result: io.yellow };
        const width = io.width();
        // What memory answered is data for the pilot, often many lines long: on a terminal too
        // narrow for it, one line that says how much and where to read it.
        const hits = e.data?.['hits'];
        if (e.verb === 'recall' && typeof hits === 'number' && width !== undefined && visibleWidth(cells(n, e.label, result)) > width) {
          io.line(rowInOneLine(n, e.label, hits === 0 ? 'nothing matches' : `${plural(hits, 'match', 'matches')}: see quackd transcript show`, width));
        } else row(n, e.label, result, paint);
        break;
      }
      case 'refused':
        // A refused call spends no step, so it gets no step number.
        row('', e.name, `(refused: ${e.reason})`, { result: io.yellow });
        break;
      case 'gate':
        if (!e.allowed) row('', e.label, GATE_DENIED[e.how], { result: io.yellow });
        // The question (`  5  kick right — confirm? [y/N] y`, asked on stderr) is on screen
        // already; the step line that follows takes its place, so the verb shows once. Only when
        // both streams are this terminal: else the line above is not the question.
        else if (asks && e.how === 'tty' && io.interactive && (io.err as { isTTY?: boolean }).isTTY === true) io.out.write('\u001b[1A\r\u001b[2K');
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

const GATE_DENIED: Readonly<Record<GateHow, string>> = {
  tty: '(denied by you)',
  yes: '(denied)',
  'no-tty': '(denied: needs confirmation; no terminal to ask, --yes to allow)',
  aborted: '(not confirmed: the run was stopped)',
  person: '(denied)',
  channel: '(denied over MQTT)',
  timeout: '(not confirmed: nobody answered in time)',
  unasked: '(not confirmed: the question could not be put to the person)',
};

/** A step's line in `width` columns: its label cut short, not its result, when one must give way. */
function rowInOneLine(n: string, label: string, result: string, width: number): string {
  const lead = `${n.padStart(3)}  `;
  const room = Math.max(10, width - lead.length - 1 - result.length);
  return oneLine(`${lead}${ellipsize(printable(label), room).padEnd(Math.min(LABEL_WIDTH, room))} ${result}`, width);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * An invented result reads `(dry run: not sent) kick right`; the label column says `kick right`
 * already, so the line says it once: `kick right   (dry run: not sent)`.
 */
function dryRunOnce(label: string, summary: string, invented: boolean): string {
  return invented && summary.endsWith(` ${label}`) ? summary.slice(0, -label.length - 1) : summary;
}

export function printOutcome(io: Output, report: Pick<RunReport, 'outcome' | 'dryRun' | 'steps' | 'llmCalls' | 'seconds' | 'usage' | 'runId' | 'pictures'>): void {
  const { outcome } = report;
  const good = outcome.status === 'success';
  const mark = good ? io.green(io.ok) : io.red(io.fail);
  // The transcript's word for the outcome (`budget`, not `failure`): the screen, --json, the
  // transcript file and `transcript list` all name it alike. A reason that starts with that word
  // (`budget: 12 steps spent`) does not say it twice.
  const word = outcome.status;
  const reason = outcome.reason.startsWith(`${word}: `) ? outcome.reason.slice(word.length + 2) : outcome.reason;
  const dry = report.dryRun ? ' (dry run: nothing saved)' : '';
  const stats = `${plural(report.steps, 'step')}, ${plural(report.llmCalls, 'call')}, ${report.seconds.toFixed(1)} s`;
  const tokens = report.usage.inputTokens + report.usage.outputTokens > 0 ? `, ${report.usage.inputTokens}+${report.usage.outputTokens} tokens` : '';
  // Pictures cost a model's context: how many it was shown and the bytes sent, every request counted.
  const pictures = report.pictures !== undefined ? `, ${plural(report.pictures.shown, 'picture')} (${(report.pictures.bytes / 1000).toFixed(1)} kB sent)` : '';
  io.line(fitLine(`${mark} ${word}${dry} — ${printable(reason)} · ${stats}${tokens}${pictures} · transcript ${report.runId}`, io.width(), 2));
}

/**
 * In the outcome's place, a run whose transcript has no end line: `transcript list` calls it
 * unfinished. `going`: its process still runs, so it is not (yet) a failure.
 */
export function printUnfinished(io: Output, runId: string, why: string, json: boolean, going = false): void {
  if (json) io.err.write(`quackd: ${runId}: unfinished — ${why}\n`);
  else io.line(fitLine(`${going ? '…' : io.red(io.fail)} unfinished — ${why} · transcript ${runId}`, io.width(), 2));
}
