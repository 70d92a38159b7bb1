/** printable(): what a model, a device or a file wrote can neither drive the terminal nor forge what is shown. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printable } from '../../src/cli/output.js';

describe('printable', () => {
  it('escapes C0 and C1 controls as \\xNN', () => {
    assert.equal(printable('a\u001b[31mb\u0007\r\n\t\u007f\u0085\u009b'), 'a\\x1b[31mb\\x07\\x0d\\x0a\\x09\\x7f\\x85\\x9b');
  });

  it('escapes bidi overrides, isolates and marks as \\u{NNNN}', () => {
    const bidi = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
    for (const c of bidi) assert.equal(printable(`x${c}y`), `x\\u{${c.codePointAt(0)!.toString(16)}}y`);
    assert.equal(printable('file\u202egpj.exe'), 'file\\u{202e}gpj.exe');
  });

  it('escapes zero-width and other invisible characters, separators and lone surrogates', () => {
    // Shown, not dropped: each as the escape a person can read back (U+00AD, below U+0100, as \xNN).
    const invisible: [string, string][] = [
      ['\u200b', '\\u{200b}'], ['\u200c', '\\u{200c}'], ['\u200d', '\\u{200d}'], ['\u2060', '\\u{2060}'], ['\u2061', '\\u{2061}'],
      ['\u2062', '\\u{2062}'], ['\u2063', '\\u{2063}'], ['\u2064', '\\u{2064}'], ['\ufeff', '\\u{feff}'], ['\u180e', '\\u{180e}'],
      ['\u00ad', '\\xad'], ['\u034f', '\\u{34f}'], ['\u3164', '\\u{3164}'], ['\u2028', '\\u{2028}'], ['\u2029', '\\u{2029}'],
      ['\ud800', '\\u{d800}'], ['\udfff', '\\u{dfff}'],
    ];
    for (const [c, shown] of invisible) assert.equal(printable(`a${c}b`), `a${shown}b`, `U+${c.codePointAt(0)!.toString(16)}`);
    assert.equal(printable('a\u2028b\u2029c'), 'a\\u{2028}b\\u{2029}c');
    assert.equal(printable('\ufeffhi'), '\\u{feff}hi');
    assert.equal(printable('x\ud800'), 'x\\u{d800}');
  });

  it('escapes tag characters, an invisible copy of ASCII, outside a flag', () => {
    const hidden = [...'run'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    assert.equal(printable(`ok${hidden}`), 'ok\\u{e0072}\\u{e0075}\\u{e006e}');
  });

  it('keeps ordinary text whole: accents, CJK, RTL letters, emoji and their sequences', () => {
    const text = [
      'café naïve Ærøskøbing',
      '日本語の文 한국어',
      'שלום مرحبا',
      '🙂 ❤️ 👍🏽',
      '👩‍💻 🧑🏽‍💻 👨‍👩‍👧 ❤️‍🔥 🏳️‍🌈 🏴‍☠️ 👁️‍🗨️',
      '🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}', // Scotland's flag
      'a\ufe0e', // one variation selector after its character
    ];
    for (const t of text) assert.equal(printable(t), t);
  });

  it('escapes a joiner that joins no emoji, and a run of variation selectors', () => {
    assert.equal(printable('ab\u200dcd'), 'ab\\u{200d}cd');
    assert.equal(printable('👩\u200d'), '👩\\u{200d}');
    assert.equal(printable('x\ufe0f\ufe0f\ufe0f'), 'x\ufe0f\\u{fe0f}\\u{fe0f}');
  });

  it('is idempotent and leaves backslashes alone', () => {
    for (const t of ['C:\\temp\\x1b', 'a\u202eb\u0007', '👩‍💻\u200b']) assert.equal(printable(printable(t)), printable(t));
    assert.equal(printable('C:\\temp'), 'C:\\temp');
  });
});
