/**
 * Lines and tables fitted to a terminal (src/cli/fit.ts): no line wider than the terminal, words
 * broken between lines never (one wider than its line is cut short with `…`), and whole lines
 * into a pipe. Table cases first, then the same promises over random words and widths.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ellipsize, fitLine, fitTable, stripColor, visibleWidth } from '../../src/cli/fit.js';

const DIM = (s: string): string => `\u001b[2m${s}\u001b[22m`;

/** Every word of `out` is a word of `text` in order, or the start of one cut short with `…`; none is lost. */
function sameWords(out: string, text: string): void {
  const got = stripColor(out).split(/\s+/).filter((w) => w !== '');
  const want = stripColor(text).split(/\s+/).filter((w) => w !== '');
  assert.equal(got.length, want.length, `${JSON.stringify(out)} vs ${JSON.stringify(text)}`);
  for (const [i, w] of got.entries()) {
    const whole = want[i]!;
    assert.ok(w === whole || (w.endsWith('…') && whole.startsWith(w.slice(0, -1))), `"${w}" is not "${whole}"`);
  }
}

function fits(out: string | readonly string[], width: number): void {
  for (const l of typeof out === 'string' ? out.split('\n') : out) assert.ok(visibleWidth(l) <= width, `wider than ${width}: ${JSON.stringify(l)}`);
}

describe('fitLine', () => {
  it('breaks between words only, continuing under its column', () => {
    assert.equal(fitLine('aaa bbb ccc', 7, 2), 'aaa bbb\n  ccc');
    assert.equal(fitLine('aaa bbb ccc', undefined, 2), 'aaa bbb ccc');
    assert.equal(fitLine(`${DIM('aaa')} bbb`, 7), `${DIM('aaa')} bbb`);
  });

  it('cuts a word wider than its line short rather than let the terminal break it', () => {
    assert.equal(fitLine('aaa bbbbbbbbbbbb c', 6, 0), 'aaa\nbbbbb…\nc');
    assert.equal(fitLine('aaa bbbbbbbbbbbb c', undefined, 0), 'aaa bbbbbbbbbbbb c');
  });

  it('indents a continuation less when its column would leave too little room', () => {
    const out = fitLine(`${'x'.repeat(50)} one two three four five six seven`, 60, 50).split('\n');
    assert.equal(out[0], `${'x'.repeat(50)} one two`);
    assert.equal(out[1], '    three four five six seven');
  });
});

describe('ellipsize', () => {
  it('keeps the colour codes, so a colour opened is closed', () => {
    assert.equal(ellipsize(DIM('abcdef'), 4), `\u001b[2mabc…\u001b[22m`);
    assert.equal(ellipsize('abc', 3), 'abc');
  });
});

describe('fitTable', () => {
  const rows = [
    ['20261202-032759-find-and-kick', 'success', 'microduck:sim2d', 'The ball moved at least 0.3 m. (ball_displaced_m 0.7 ≥ 0.3)'],
    ['20261202-032638-hello-world', 'budget', 'den', 'I quacked hello.'],
  ];
  const columns = [{}, {}, { min: 8 }, { min: 30 }];

  it('aligns the columns into a pipe, one whole line a row', () => {
    assert.deepEqual(fitTable(rows, columns, undefined), [
      '20261202-032759-find-and-kick  success  microduck:sim2d  The ball moved at least 0.3 m. (ball_displaced_m 0.7 ≥ 0.3)',
      '20261202-032638-hello-world    budget   den              I quacked hello.',
    ]);
  });

  it('wraps the last column beside its row while it has room', () => {
    const out = fitTable(rows, [{}, {}, { min: 8 }, {}], 80);
    fits(out, 80);
    assert.equal(out[0], '20261202-032759-find-and-kick  success  microduck:sim2d  The ball moved at least');
    assert.match(out[1]!, /^ {57}0\.3 m\./);
  });

  it('puts the last column under its row when it would get too little room', () => {
    const out = fitTable(rows, columns, 60);
    fits(out, 60);
    assert.deepEqual(out.slice(0, 2), ['20261202-032759-find-and-kick  success  microduck:sim2d', '    The ball moved at least 0.3 m. (ball_displaced_m 0.7 ≥']);
    assert.equal(out[3], '20261202-032638-hello-world    budget   den');
  });

  it('cuts a column that may be cut, and only as far as its row needs', () => {
    const out = fitTable(rows, columns, 52);
    fits(out, 52);
    assert.equal(out[0], '20261202-032759-find-and-kick  success  microduck:s…');
    assert.equal(out.find((l) => l.startsWith('20261202-032638')), '20261202-032638-hello-world    budget   den');
  });

  it('paints a cell once it is fitted', () => {
    const out = fitTable([['a', 'b c d']], [{}, { paint: DIM }], 5);
    assert.deepEqual(out.map(stripColor), ['a', '    b', '    c', '    d']);
    assert.ok(out[1]!.includes(DIM('b')));
  });
});

describe('over random words and widths', () => {
  const word = fc.stringMatching(/^[a-zé≥°0-9().:;,-]{1,30}$/);
  const text = fc.array(word, { minLength: 1, maxLength: 30 }).map((ws) => ws.join(' '));

  it('fitLine: no line wider than the terminal, and every word there, whole or cut short', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 8, max: 120 }), fc.integer({ min: 0, max: 60 }), (t, width, indent) => {
        const out = fitLine(t, width, indent);
        fits(out, width);
        sameWords(out, t);
      }),
    );
  });

  it('fitTable: no line wider than the terminal, every cell there, and the first column never cut', () => {
    const row = fc.tuple(fc.stringMatching(/^[a-z0-9-]{1,30}$/), word, word, text);
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 5 }), fc.integer({ min: 32, max: 120 }), (rs, width) => {
        const out = fitTable(rs, [{}, { min: 4 }, { min: 4 }, {}], width);
        fits(out, width);
        sameWords(out.join('\n'), rs.map((r) => r.join(' ')).join(' '));
        for (const r of rs) assert.ok(out.some((l) => l.startsWith(`${r[0]} `) || l === r[0]), `${r[0]} is cut`);
      }),
    );
  });
});
