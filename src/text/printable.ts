/** Showing text a model, a device or a file wrote, safely, on any screen or log. */

/**
 * What printable() escapes: C0/C1 controls (escape sequences, carriage returns, newlines); format
 * and default-ignorable characters, which are invisible or reorder what follows (bidi overrides
 * and isolates U+202A–U+202E and U+2066–U+2069, zero-width U+200B–U+200F, U+2060–U+2064,
 * U+FEFF, U+061C, U+180E, tag characters, Hangul fillers, soft hyphen …); line and paragraph
 * separators U+2028/U+2029; lone surrogates. The first three alternatives are the exceptions,
 * matched first so that they stay whole: a zero-width joiner between two emoji (👩‍💻 is one
 * picture; escaping it would split it in two), one variation selector right after the
 * character it modifies (❤️, not a run of them, which is how data is hidden), and the tag
 * characters of a subdivision flag (🏴 + tags + cancel tag). Tag characters elsewhere are
 * escaped: they are an invisible copy of ASCII that a model reads and a person does not. A
 * joiner or non-joiner inside a word (Persian, some Indic scripts) is escaped too: the word then
 * shows a `\u{200c}`, the price of two notes never looking alike while differing.
 */
const UNSAFE =
  /(\p{Extended_Pictographic}(?:\p{Emoji_Modifier}|\uFE0F)?\u200D(?=\p{Extended_Pictographic}))|((?<![\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}])[\uFE00-\uFE0F\u{E0100}-\u{E01EF}])|(\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F})|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * Text a model, a device or a file wrote, made safe to print: it can neither forge a line, nor
 * drive the terminal, nor reorder or hide what is shown (see UNSAFE). Each unsafe character is
 * shown in JavaScript's own escape notation: `\xNN` below U+0100 (`\x1b`, `\x0a`), `\u{NNNN}`
 * above (`\u{202e}`, `\u{e0041}`), lowercase hex. Other non-ASCII text (accents, CJK, emoji)
 * prints as it is. A backslash is not escaped, so printable() of printable() changes nothing.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c: string, joiner?: string, selector?: string, flag?: string) => {
    if (joiner !== undefined || selector !== undefined || flag !== undefined) return c;
    const code = c.codePointAt(0) ?? 0;
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}
