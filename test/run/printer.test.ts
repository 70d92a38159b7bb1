import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { createOutput } from '../../src/cli/output.js';
import { stepPrinter } from '../../src/run/printer.js';

function capture(tty: boolean) {
  const out = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) out.isTTY = true;
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  return { io: createOutput(out, new PassThrough()), text: () => text };
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
    assert.equal(text(), '  1  fly                (refused: unknown verb)\n');
  });
});
