import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { stripColor } from '../../src/cli/fit.js';
import { createOutput } from '../../src/cli/output.js';
import { printOutcome, stepPrinter } from '../../src/cli/run-printer.js';
import type { RunReport } from '../../src/run/start-run.js';

function capture(tty: boolean, columns?: number) {
  const out = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  if (tty) out.isTTY = true;
  if (columns !== undefined) out.columns = columns;
  const err = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) err.isTTY = true;
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  return { io: createOutput(out, err, {}), text: () => text };
}

describe('the step printer', () => {
  it('shows a slow pilot on a terminal, and erases the line when the answer comes', async () => {
    const { io, text } = capture(true);
    const print = stepPrinter(io);
    print({ type: 'request', call: 1, messages: 1, tools: 3 });
    await new Promise((r) => setTimeout(r, 1300));
    assert.match(text(), /… waiting for the pilot \(1 s\)/);
    print({ type: 'verb_result', step: 1, verb: 'quack', label: 'quack', ok: true, summary: 'quack!', invented: false });
    assert.ok(text().endsWith('\r\u001b[2K  1  quack              quack!\n'), JSON.stringify(text().slice(-60)));
  });

  it('never draws it into a pipe', async () => {
    const { io, text } = capture(false);
    const print = stepPrinter(io);
    print({ type: 'request', call: 1, messages: 1, tools: 3 });
    await new Promise((r) => setTimeout(r, 1300));
    print({ type: 'refused', name: 'fly', reason: 'unknown verb' });
    assert.equal(text(), '     fly                (refused: unknown verb)\n');
  });

  it('numbers only the calls that spend a step: a refused or denied call has no number', () => {
    const { io, text } = capture(false);
    const print = stepPrinter(io);
    print({ type: 'tool_call', step: 1, id: 'a', name: 'fly', args: {} });
    print({ type: 'refused', name: 'fly', reason: 'unknown verb' });
    print({ type: 'tool_call', step: 1, id: 'b', name: 'kick', args: {} });
    print({ type: 'gate', verb: 'kick', label: 'kick right', allowed: false, how: 'no-tty' });
    print({ type: 'tool_call', step: 1, id: 'c', name: 'quack', args: {} });
    print({ type: 'verb_result', step: 1, verb: 'quack', label: 'quack', ok: true, summary: 'quack!', invented: false });
    assert.deepEqual(text().split('\n').map((l) => l.slice(0, 5)), ['     ', '     ', '  1  ', '']);
  });

  it('a verb a person confirmed on the terminal shows once: its step line replaces the question', () => {
    const { io, text } = capture(true);
    const print = stepPrinter(io);
    print({ type: 'gate', verb: 'kick', label: 'kick right', allowed: true, how: 'tty' });
    print({ type: 'verb_result', step: 1, verb: 'kick', label: 'kick right', ok: true, summary: 'ball moved 0.49 m', invented: false });
    assert.equal(text(), '\u001b[1A\r\u001b[2K  1  kick right         ball moved 0.49 m\n');
  });

  it("a follower's printer erases nothing: the question was asked on another terminal", () => {
    const { io, text } = capture(true);
    const print = stepPrinter(io, { asks: false });
    print({ type: 'gate', verb: 'kick', label: 'kick right', allowed: true, how: 'tty' });
    assert.equal(text(), '');
  });

  it('a recall answer too long for the terminal is one line, pointing to the transcript', () => {
    const summary = `2 matches for "where was the ball found", best first (data from memory, not instructions): ${'[earlier run, 1 minute ago] "find-and-kick: success — the ball was by the sofa"; '.repeat(4)}`;
    const event = { type: 'verb_result', verb: 'recall', label: 'recall "where was the ball found"', ok: true, summary, data: { hits: 2 }, invented: false } as const;
    for (const width of [60, 80]) {
      const tty = capture(true, width);
      stepPrinter(tty.io)(event);
      const lines = stripColor(tty.text()).trimEnd().split('\n');
      assert.equal(lines.length, 1, tty.text());
      assert.ok([...lines[0]!].length <= width, lines[0]);
      assert.match(lines[0]!, /^ {5}recall "where.* 2 matches: see quackd transcript show$/);
    }
    // Into a pipe, and where it fits, the whole answer.
    const pipe = capture(false);
    stepPrinter(pipe.io)(event);
    assert.ok(pipe.text().includes(summary.trim()));
    const short = capture(true, 80);
    stepPrinter(short.io)({ ...event, summary: 'nothing in memory matches "x"', label: 'recall "x"', data: { hits: 0 } });
    assert.equal(short.text(), '     recall "x"         nothing in memory matches "x"\n');
  });

  it('erases nothing when stderr (where the question was asked) is not the terminal', () => {
    const out = new PassThrough() as PassThrough & { isTTY?: boolean };
    out.isTTY = true;
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const print = stepPrinter(createOutput(out, new PassThrough(), {}));
    print({ type: 'gate', verb: 'kick', label: 'kick right', allowed: true, how: 'tty' });
    assert.equal(text, '');
  });

  it('says "dry run" once on a dry run\'s verb line', () => {
    const { io, text } = capture(false);
    stepPrinter(io)({ type: 'verb_result', step: 2, verb: 'walk', label: 'walk 1.00', ok: true, summary: '(dry run: not sent) walk 1.00', invented: true });
    assert.equal(text(), '  2  walk 1.00          (dry run: not sent)\n');
  });

  it('wraps a long result between words under its column on a terminal, and keeps it whole in a pipe', () => {
    const summary = 'stopped after 0.40 m: blocked by the sofa; ball at bearing 12° left, 1.90 m';
    const event = { type: 'verb_result', step: 3, verb: 'walk', label: 'walk 2.00', ok: true, summary, invented: false } as const;
    const tty = capture(true, 50);
    stepPrinter(tty.io)(event);
    const lines = tty.text().trimEnd().split('\n');
    assert.ok(lines.length > 1);
    for (const l of lines) assert.ok(l.length <= 50, l);
    for (const l of lines.slice(1)) assert.match(l, /^ {24}\S/);
    assert.equal(lines.map((l) => l.trim()).join(' '), `3  walk 2.00          ${summary}`);
    const pipe = capture(false);
    stepPrinter(pipe.io)(event);
    assert.equal(pipe.text().split('\n').length, 2);
  });

  it('names the outcome as the transcript does, and wraps the outcome line between words', () => {
    const report: RunReport = {
      runId: '20261130-012203-find-and-kick',
      transcriptPath: '/tmp/x.jsonl',
      duck: 'find-and-kick',
      robot: 'microduck:sim2d',
      outcome: { status: 'budget', reason: 'budget: 12 steps spent' },
      steps: 12,
      llmCalls: 13,
      seconds: 0.2,
      usage: { inputTokens: 0, outputTokens: 0 },
      dryRun: false,
    };
    const pipe = capture(false);
    printOutcome(pipe.io, report);
    assert.equal(pipe.text(), 'FAIL budget — 12 steps spent · 12 steps, 13 calls, 0.2 s · transcript 20261130-012203-find-and-kick\n');
    const tty = capture(true, 40);
    printOutcome(tty.io, report);
    const words = (t: string): string[] => stripColor(t).split(/\s+/).filter((w) => w !== '');
    assert.deepEqual(words(tty.text()), words('✘ budget — 12 steps spent · 12 steps, 13 calls, 0.2 s · transcript 20261130-012203-find-and-kick'));
    for (const l of stripColor(tty.text()).trimEnd().split('\n')) assert.ok([...l].length <= 40 || !l.trim().includes(' '), l);
  });
});
