// tokenizer.js — the lecture's first step, "Tokenization", small enough to read in one go. Pure JS:
// tokenizing is string handling, not numerics, so it does not go through the WASM core.
//
//   'char'  one token per Unicode code point           vocabulary: the training text's characters
//   'word'  runs of non-space and runs of space        vocabulary: the training text's runs
//   'bpe'   byte-level byte-pair encoding (Sennrich et al.; GPT-2's byte base): start from the 256
//           bytes of UTF-8, repeatedly merge the most frequent adjacent pair in the training text
//
// 'char' and 'word' show the out-of-vocabulary problem: an unseen piece becomes id 0, '<unk>', and
// the round trip decode(encode(s)) === s holds only for strings made of known pieces. Byte-level BPE
// has no unknowns (every string is bytes), so every string round-trips.

import { AttnLabError, describe, fail, noUnknownKeys } from './validate.js';

const UNK = '<unk>';
const WORD_RE = /\s+|\S+/gu;
// BPE pre-tokenizer: a word with its leading spaces, or trailing/lone whitespace. Merges never cross
// these chunks, so "the" in " the" and "the" inside "other" are learned separately, as in GPT-2.
const CHUNK_RE = /\s*\S+|\s+/gu;

const utf8 = new TextEncoder();
// Replaces an invalid or incomplete sequence with U+FFFD; ignoreBOM: a leading U+FEFF is text, kept (the round trip).
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Builds a tokenizer from its training text. See web/api/index.d.ts (TokenizerArgs). */
export function createTokenizer(args) {
  const fn = 'createTokenizer';
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    fail(fn, `expected one options object, e.g. ${fn}({ kind: 'bpe', text }), got ${args === undefined ? 'missing' : typeof args}`);
  noUnknownKeys(fn, args, ['kind', 'text', 'vocabSize']);
  const kinds = ['char', 'word', 'bpe'];
  if (!kinds.includes(args.kind))
    fail(fn, `kind is ${describe(args.kind)}, expected one of 'char', 'word', 'bpe'`);  // describe: BigInt/Symbol-safe
  if (typeof args.text !== 'string')
    fail(fn, `text is ${args.text === undefined ? 'missing' : `a ${typeof args.text}`}, expected a string to learn the vocabulary from`);
  if (args.kind !== 'bpe') {
    if (args.vocabSize !== undefined) fail(fn, `vocabSize is for kind 'bpe', expected no vocabSize with kind '${args.kind}'`);
    return pieceTokenizer(args.kind, args.text);
  }
  const vocabSize = args.vocabSize === undefined ? 256 + 64 : args.vocabSize;
  if (!Number.isInteger(vocabSize) || vocabSize < 256 || vocabSize > 65536)
    fail(fn, `vocabSize is ${describe(vocabSize)}, expected an integer in [256, 65536] (256 bytes + merges)`);
  return bpeTokenizer(args.text, vocabSize);
}

function splitPieces(kind, s) {
  return kind === 'char' ? Array.from(s) : s.match(WORD_RE) ?? [];
}

// 'char' / 'word': id 0 is <unk>, then the training text's pieces in order of first appearance.
function pieceTokenizer(kind, text) {
  const pieces = [UNK];
  const index = new Map();
  for (const p of splitPieces(kind, text))
    if (!index.has(p)) { index.set(p, pieces.length); pieces.push(p); }
  return Object.freeze({
    kind,
    size: pieces.length,
    merges: Object.freeze([]),
    encode(s) {
      checkString('encode', s);
      return Int32Array.from(splitPieces(kind, s), (p) => index.get(p) ?? 0);
    },
    decode(ids) {
      return Array.from(checkIds('decode', ids, pieces.length), (id) => (id === 0 ? '\uFFFD' : pieces[id])).join('');
    },
    token(id) {
      return pieces[checkIds('token', [id], pieces.length)[0]];
    },
    pieces(s) {
      checkString('pieces', s);
      return splitPieces(kind, s).map((p) => (index.has(p) ? p : UNK));
    },
  });
}

// Byte-level BPE. Training is the textbook loop over chunk frequencies (fine for lecture-sized
// text): count adjacent pairs, merge the most frequent (ties: the smallest pair of ids),
// until vocabSize or no pair occurs twice.
function bpeTokenizer(text, vocabSize) {
  const bytes = Array.from({ length: 256 }, (_, b) => Uint8Array.of(b));  // id → its bytes
  const merges = [];
  const rank = new Map();  // "a,b" → merged id
  const counts = new Map();
  for (const c of text.match(CHUNK_RE) ?? []) counts.set(c, (counts.get(c) ?? 0) + 1);
  const words = [...counts].map(([c, n]) => ({ ids: Array.from(utf8.encode(c)), n }));
  while (bytes.length < vocabSize) {
    const pairs = new Map();
    for (const w of words)
      for (let i = 0; i + 1 < w.ids.length; i++) {
        const key = w.ids[i] * 65536 + w.ids[i + 1];
        pairs.set(key, (pairs.get(key) ?? 0) + w.n);
      }
    let best = -1, bestCount = 1;
    for (const [key, n] of pairs) if (n > bestCount || (n === bestCount && best >= 0 && key < best)) { best = key; bestCount = n; }
    if (best < 0) break;  // no pair occurs twice: nothing left worth merging
    const a = Math.floor(best / 65536), b = best % 65536, id = bytes.length;
    const joined = new Uint8Array(bytes[a].length + bytes[b].length);
    joined.set(bytes[a]); joined.set(bytes[b], bytes[a].length);
    bytes.push(joined);
    merges.push(Object.freeze([a, b]));
    rank.set(best, id);
    for (const w of words) w.ids = mergePair(w.ids, a, b, id);
  }

  // Encoding replays the merges in the order they were learned (lowest new id first), per chunk.
  const encodeChunk = (chunk) => {
    let ids = Array.from(utf8.encode(chunk));
    for (;;) {
      let bestId = Infinity, at = -1;
      for (let i = 0; i + 1 < ids.length; i++) {
        const id = rank.get(ids[i] * 65536 + ids[i + 1]);
        if (id !== undefined && id < bestId) { bestId = id; at = i; }
      }
      if (at < 0) return ids;
      const [a, b] = merges[bestId - 256];
      ids = mergePair(ids, a, b, bestId);
    }
  };
  const encodeAll = (s) => (s.match(CHUNK_RE) ?? []).flatMap(encodeChunk);
  const decodeBytes = (ids) => {
    const parts = ids.map((id) => bytes[id]);
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) { out.set(p, o); o += p.length; }
    return utf8Decoder.decode(out);
  };
  return Object.freeze({
    kind: 'bpe',
    size: bytes.length,
    merges: Object.freeze(merges),
    encode(s) {
      checkString('encode', s);
      return Int32Array.from(encodeAll(s));
    },
    decode(ids) {
      return decodeBytes(Array.from(checkIds('decode', ids, bytes.length)));
    },
    token(id) {
      return decodeBytes([checkIds('token', [id], bytes.length)[0]]);
    },
    pieces(s) {
      checkString('pieces', s);
      return encodeAll(s).map((id) => decodeBytes([id]));
    },
  });
}

function mergePair(ids, a, b, id) {
  const out = [];
  for (let i = 0; i < ids.length; i++) {
    if (i + 1 < ids.length && ids[i] === a && ids[i + 1] === b) { out.push(id); i++; } else out.push(ids[i]);
  }
  return out;
}

function checkString(method, s) {
  if (typeof s !== 'string') throw new AttnLabError(`tokenizer.${method}: s is ${s === undefined ? 'missing' : `a ${typeof s}`}, expected a string`);
}

function checkIds(method, ids, size) {
  if (ids === null || ids === undefined || typeof ids.length !== 'number' || typeof ids === 'string')
    throw new AttnLabError(`tokenizer.${method}: ids is ${ids === undefined ? 'missing' : typeof ids}, expected an array of token ids`);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= size)
      throw new AttnLabError(`tokenizer.${method}: ids[${i}] is ${describe(id)}, expected an integer in [0, size = ${size})`);
  }
  return ids;
}
