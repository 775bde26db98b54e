// Cross-attention widget logic: toy word embeddings in which a word and its translation share a
// "concept" vector, so a target word's query finds its source word's key. Embeddings are inputs
// (like X in the notes); the attention itself is computed by the core.
import { gaussian, mulberry32 } from '../shared/rng.js';

// French / German words → the English concept they translate.
const CONCEPTS = {
  le: 'the', la: 'the', les: 'the', der: 'the', die: 'the', das: 'the', dem: 'the', den: 'the',
  chat: 'cat', katze: 'cat', chien: 'dog', hund: 'dog', assis: 'sat', sass: 'sat', saß: 'sat', sur: 'on', auf: 'on',
  tapis: 'mat', matte: 'mat', je: 'i', ich: 'i', joue: 'play', spiele: 'play', suis: 'am', bin: 'am',
  noir: 'black', schwarz: 'black', mange: 'eats', isst: 'eats', poisson: 'fish', fisch: 'fish', maison: 'house', haus: 'house',
  un: 'a', une: 'a', ein: 'a', eine: 'a', rouge: 'red', rot: 'red', grand: 'big', groß: 'big', et: 'and', und: 'and',
};

/** FNV-1a: a stable 32-bit seed from a string. */
export function hashString(s) {
  let h = 0x811c9dc5;
  for (const ch of s) { h ^= ch.codePointAt(0); h = Math.imul(h, 0x01000193) >>> 0; }
  return h;
}

export const conceptOf = (word) => { const w = word.toLowerCase(); return CONCEPTS[w] ?? w; };

/** The English concepts the toy dictionary knows (sorted), and the French / German words for each. */
export const DICTIONARY = Object.entries(CONCEPTS).reduce((acc, [w, c]) => ((acc[c] ??= []).push(w), acc), {});

/**
 * True when the toy dictionary knows `word` (an English concept or one of its translations). Any
 * other word gets a random vector of its own: its alignment means nothing.
 */
export const isKnown = (word) => Object.hasOwn(DICTIONARY, conceptOf(word));

/**
 * Embeddings [words·dim]: the concept's unit vector plus `noise` × a word-specific one, so "chat"
 * and "cat" are close but not equal.
 */
export function embed(words, dim, noise = 0.15) {
  const out = new Float32Array(words.length * dim);
  words.forEach((w, i) => {
    const c = gaussian(mulberry32(hashString(conceptOf(w)))), n = gaussian(mulberry32(hashString(`word:${w.toLowerCase()}`)));
    const row = Array.from({ length: dim }, () => c());
    const norm = Math.hypot(...row) || 1;
    for (let j = 0; j < dim; j++) out[i * dim + j] = row[j] / norm + noise * n() / Math.sqrt(dim);
  });
  return out;
}

/** s·I, [dim·dim]. */
export function scaledIdentity(dim, s = 1) {
  const m = new Float32Array(dim * dim);
  for (let i = 0; i < dim; i++) m[i * dim + i] = s;
  return m;
}
