/**
 * A transcript for people: one line an event, local times, frames drawn in ASCII on request.
 */
import { fitLine, oneLine } from '../cli/fit.js';
import { printable, type Output } from '../cli/output.js';
import { robotLabel } from '../runtime/fleet.js';
import type { TranscriptLine } from '../transcript/events.js';

/**
 * toLocaleTimeString([], { hour12: false }) builds a formatter on each call: 70,000 lines of a
 * long transcript spent most of `show`'s 18 s there. One formatter, made at the first line.
 */
let timeFormat: Intl.DateTimeFormat | undefined;
const clock = (iso: string): string => (timeFormat ??= new Intl.DateTimeFormat([], { hour: 'numeric', minute: 'numeric', second: 'numeric', hour12: false })).format(new Date(iso));
/** The day too, once, on the start line: a transcript is read days later. */
const day = (iso: string): string => new Date(iso).toLocaleDateString('sv-SE');

function describe(l: TranscriptLine, frames: boolean): string[] {
  switch (l.type) {
    case 'start':
      return [`start  ${l.duck} on ${robotLabel(l.robot ?? l.body, l.body)} · pilot ${l.provider} ${l.model} · seed ${l.seed}${l.dryRun ? ' · dry run' : ''} · verbs ${l.verbs.join(', ')}`];
    case 'prompt':
      return l.role === 'system' ? [`system prompt (${l.content.length} chars)`] : l.role === 'user' ? l.content.split('\n').map((s, i) => `${i === 0 ? 'to pilot ' : '         '}${s}`) : [];
    case 'response':
      return [`pilot  call ${l.call} (${l.ms} ms)${l.usage ? ` ${l.usage.inputTokens}+${l.usage.outputTokens} tokens` : ''}: ${l.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.args)})`).join(', ') || '(no verb)'}${l.text ? ` — "${l.text.slice(0, 120)}"` : ''}`];
    case 'tool_call':
    case 'request':
      return [];
    case 'refused':
      return [`refused ${l.name}: ${l.reason}`];
    case 'gate':
      return [`gate   ${l.label}: ${l.allowed ? 'allowed' : 'denied'} (${l.how})`];
    case 'verb_result': {
      // A snapshot's picture lives beside the transcript: its path, to open it.
      const picture = typeof l.data?.['picture_file'] === 'string' ? [`         picture ${l.data['picture_file']}`] : [];
      return [`step ${l.step ?? '-'}  ${l.label}: ${l.ok ? 'ok' : 'failed'} — ${l.summary}${l.invented ? ' [invented]' : ''}`, ...picture];
    }
    case 'frame':
      return frames && l.ascii !== undefined ? l.ascii.split('\n').map((s) => `       ${s}`) : [];
    case 'memory':
      return [`memory ${l.action} ${JSON.stringify(l.detail)}`];
    case 'budget':
      return [`budget ${l.budget}: ${l.used}/${l.limit}`];
    case 'body_link':
      return [`body   ${l.firmware} on ${l.board} via ${l.device} · boot ${l.boot}`];
    case 'body_stop':
      return [`body   told to stop${l.ok ? '' : `: failed (${l.error ?? '?'})`}`];
    case 'error':
      return [`error  ${l.message}`];
    case 'trouble':
      return [`body   ${l.kind}: ${l.message}`];
    case 'flock':
      return [`flock  ${l.member} ${l.what}${l.verb !== undefined ? ` ${l.verb}` : ''}${l.memberRun !== undefined ? ` ${l.memberRun}` : ''}${l.where !== undefined ? ` on ${l.where}` : ''}${l.outcome !== undefined ? ` ${l.outcome}` : ''}${l.reason !== undefined ? ` — ${l.reason}` : ''}`];
    case 'end':
      return [`end    ${l.outcome} — ${l.reason} · ${l.steps} step${l.steps === 1 ? '' : 's'}, ${l.llmCalls} call${l.llmCalls === 1 ? '' : 's'}, ${l.seconds} s${l.pictures !== undefined ? ` · ${l.pictures.shown} picture${l.pictures.shown === 1 ? '' : 's'}, ${l.pictures.bytes} bytes sent` : ''}`];
    default:
      return [`${(l as { type: string }).type}`];
  }
}

/**
 * Prints each event given it on its lines, the time first; on a terminal a long one wraps under
 * its text, whole words only. One line at a time: `show` streams a transcript through it.
 */
export function transcriptPrinter(io: Output, frames: boolean): (l: TranscriptLine) => void {
  return (l) => {
    if (l.type === 'start') io.line(io.dim(`run ${l.run} · ${day(l.t)}`));
    const time = clock(l.t);
    const indent = time.length + 1;
    for (const [i, text] of describe(l, frames).entries()) {
      const line = `${i === 0 ? io.dim(time) : ' '.repeat(time.length)} ${printable(text)}`;
      // A frame is a picture: cut at the edge rather than wrapped.
      io.line(l.type === 'frame' ? oneLine(line, io.width()) : fitLine(line, io.width(), indent));
    }
  };
}
