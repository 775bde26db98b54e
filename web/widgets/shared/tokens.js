// Tokens typed by a student: the widgets that take a sentence (steps, block, cross) split it the same way.

/** At most this many tokens: the matrices stay readable on a slide. */
export const MAX_TOKENS = 8;

/** Words of a sentence (whitespace-separated), at most MAX_TOKENS, each at most 16 characters. */
export function parseTokens(text) {
  return String(text).split(/\s+/).filter(Boolean).slice(0, MAX_TOKENS).map((w) => w.slice(0, 16));
}
