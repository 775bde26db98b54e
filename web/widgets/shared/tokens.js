// Tokens typed by a student: the widgets that take a sentence (steps, block, cross) split it the same way.
// Lengths are counted in characters as a reader sees them (grapheme clusters: an emoji, a flag, a letter
// with its accent is one), never in UTF-16 units, so a cut never leaves half a surrogate pair or a
// dangling joiner in a field, a label or a link.

/** At most this many tokens: the matrices stay readable on a slide. */
export const MAX_TOKENS = 8;
/** At most this many characters per token. */
export const MAX_TOKEN_CHARS = 16;
/** The longest sentence the widgets keep: MAX_TOKENS words of MAX_TOKEN_CHARS, one space between. */
export const MAX_SENTENCE_CHARS = MAX_TOKENS * (MAX_TOKEN_CHARS + 1) - 1;

// Made on first use, not when the page loads this module: building it loads the engine's break rules
// (~0.15 s of main-thread CPU with the CPU throttled 4x, before the page's first numbers).
let segmenter;
const graphemeSegmenter = () => (segmenter ??= typeof Intl !== 'undefined' && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null);

/** The characters of `s` as a reader counts them (grapheme clusters; code points where Intl.Segmenter is missing). */
export function graphemes(s) {
  const text = String(s ?? ''), seg = graphemeSegmenter();
  return seg ? Array.from(seg.segment(text), (g) => g.segment) : Array.from(text);
}

/** How many characters `s` has (graphemes). */
export const charCount = (s) => graphemes(s).length;

/** The first `n` characters of `s` (whole graphemes: never half an emoji). */
export function cutChars(s, n) {
  const text = String(s ?? '');
  if (text.length <= n) return text;  // n UTF-16 units hold at most n graphemes: nothing to cut
  return graphemes(text).slice(0, n).join('');
}

/** Words of a sentence (whitespace-separated), at most MAX_TOKENS, each at most MAX_TOKEN_CHARS characters. */
export function parseTokens(text) {
  return String(text).split(/\s+/).filter(Boolean).slice(0, MAX_TOKENS).map((w) => cutChars(w, MAX_TOKEN_CHARS));
}
