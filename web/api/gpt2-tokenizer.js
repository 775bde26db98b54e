// gpt2-tokenizer.js — GPT-2's own tokens: the byte-level BPE that OpenAI's GPT-2 was trained with
// (tiktoken's name for it: r50k_base; 50,000 merges over 256 bytes, plus '<|endoftext|>' = 50256).
// A thin wrapper around the gpt-tokenizer package (MIT, no dependencies): the package splits and merges,
// this file gives it the shape of attnlab's tokenizers (createTokenizer in tokenizer.js) and its messages.
//
//   const gpt2 = await createGpt2Tokenizer();
//   gpt2.encode('Hello world')      → Int32Array [15496, 995]
//   gpt2.pieces(' Hello world')     → [' Hello', ' world']   (GPT-2's 'ĠHello', 'Ġworld': Ġ is a space)
//
// The vocabulary (≈ 0.6 MB of JS) is loaded on the first call, by a dynamic import: a page or worker that
// never asks for GPT-2 tokens never downloads it, and bundlers put it in a chunk of its own.
//
// What this file does itself, and why (both are string handling, no numerics):
// - '<|endoftext|>' in the text becomes id 50256, as Hugging Face's GPT2Tokenizer does (the package's
//   encode throws on it by default, and its allowedSpecial option finds the token only at the start
//   of the text in 4.0.0). Everything between is encoded by the package.
// - decode/token/pieces turn ids into bytes through the package's id → text table and decode the UTF-8
//   here: the package's decode keeps an incomplete UTF-8 sequence in a decoder shared by every call, so
//   it would come out at the start of the next decode (4.0.0).

import { AttnLabError, describe } from './validate.js';

const SIZE = 50257;
const END_OF_TEXT = '<|endoftext|>';
const END_OF_TEXT_ID = 50256;

const utf8 = /* @__PURE__ */ new TextEncoder();  // pure: a bundle that never calls createGpt2Tokenizer drops them
// Not streaming: an incomplete sequence becomes U+FFFD. ignoreBOM keeps a U+FEFF that starts the bytes
// (by default TextDecoder drops it: '\uFEFFa' would come back as 'a').
const utf8Decoder = /* @__PURE__ */ new TextDecoder('utf-8', { ignoreBOM: true });

let loading = null;  // one load per page or worker, shared by every call

/** GPT-2's tokenizer (r50k_base). Async: the first call loads the vocabulary. See index.d.ts (Gpt2Tokenizer). */
export function createGpt2Tokenizer() {
  loading ??= Promise.all([
    import('gpt-tokenizer/encoding/r50k_base'),
    import('gpt-tokenizer/bpeRanks/r50k_base'),
  ]).then(([encoding, ranks]) => gpt2Tokenizer(encoding.default, ranks.default), (e) => {
    loading = null;  // a failed download can be retried
    throw new AttnLabError(`createGpt2Tokenizer: could not load GPT-2's vocabulary (the gpt-tokenizer package): ${e?.message ?? e}`);
  });
  return loading;
}

// encoding: the package's r50k_base API (encode); table: its id → token text (a string when the token's
// bytes are valid UTF-8, else the bytes as numbers), ids 0 … 50255.
function gpt2Tokenizer(encoding, table) {
  if (table.length !== END_OF_TEXT_ID || encoding.vocabularySize !== SIZE)
    throw new AttnLabError(`createGpt2Tokenizer: the gpt-tokenizer package has ${table.length} tokens + ${encoding.vocabularySize - table.length} special, expected GPT-2's 50256 + 1`);
  const bytesCache = new Array(SIZE);
  const bytesOf = (id) => (bytesCache[id] ??= id === END_OF_TEXT_ID ? utf8.encode(END_OF_TEXT)
    : typeof table[id] === 'string' ? utf8.encode(table[id]) : Uint8Array.from(table[id]));

  const encodeAll = (s) => {
    const ids = [];
    s.split(END_OF_TEXT).forEach((part, i) => {
      if (i > 0) ids.push(END_OF_TEXT_ID);
      if (part) for (const id of encoding.encode(part)) ids.push(id);
    });
    return ids;
  };
  const joinBytes = (ids) => {
    let n = 0;
    for (const id of ids) n += bytesOf(id).length;
    const out = new Uint8Array(n);
    let o = 0;
    for (const id of ids) { out.set(bytesOf(id), o); o += bytesOf(id).length; }
    return out;
  };

  return Object.freeze({
    kind: 'gpt2',
    size: SIZE,
    encode(s) {
      checkString('encode', s);
      return Int32Array.from(encodeAll(s));
    },
    decode(ids) {
      return utf8Decoder.decode(joinBytes(checkIds('decode', ids)));
    },
    token(id) {
      return utf8Decoder.decode(bytesOf(checkIds('token', [id])[0]));
    },
    // One piece per token. A character whose UTF-8 bytes are spread over several tokens (an emoji, most
    // CJK) is given whole to the token that completes it; the tokens before hold '' (token(id) shows
    // their bytes as U+FFFD). So pieces(s).join('') === s for every well-formed string.
    pieces(s) {
      checkString('pieces', s);
      const ids = encodeAll(s), bytes = joinBytes(ids), out = [];
      let from = 0, end = 0;
      for (const id of ids) {
        end += bytesOf(id).length;
        let cut = end;
        while (cut > from && cut < bytes.length && (bytes[cut] & 0xc0) === 0x80) cut--;  // back to a character's start
        out.push(utf8Decoder.decode(bytes.subarray(from, cut)));
        from = cut;
      }
      return out;
    },
  });
}

function checkString(method, s) {
  if (typeof s !== 'string') throw new AttnLabError(`gpt2Tokenizer.${method}: s is ${s === undefined ? 'missing' : s === null ? 'null' : `a ${typeof s}`}, expected a string`);
}

function checkIds(method, ids) {
  if (ids === null || ids === undefined || typeof ids.length !== 'number' || typeof ids === 'string')
    throw new AttnLabError(`gpt2Tokenizer.${method}: ids is ${ids === undefined ? 'missing' : typeof ids}, expected an array of token ids`);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= SIZE)
      throw new AttnLabError(`gpt2Tokenizer.${method}: ids[${i}] is ${describe(id)}, expected an integer in [0, size = ${SIZE})`);
  }
  return ids;
}
