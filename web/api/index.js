// attnlab — the public JavaScript API over the WebAssembly core.
//
//   import { createAttnLab } from 'attnlab';
//   const lab = await createAttnLab();
//   const { weights, output } = lab.attention({ q, k, v, tq: 3, tk: 3, dk: 2, dv: 2 });
//
// Matrices are flat row-major Float32Arrays; a projection maps a row x to x·W, so W is [in, out].
// Every call validates its arguments and throws an Error naming the function, the argument and what
// was expected. Results are fresh copies, safe to keep. Calls are synchronous once the module is made.
//
// Memory: inputs are copied into one reusable WASM heap block (the arena), the core computes there,
// results are copied out. Nothing is allocated per call once the arena is big enough, and a failed
// call leaves the heap as it was (the C++ core reports errors by status, never by exception).

import createAttnLabCore from './wasm/attnlab-core.mjs';
import { Arena } from './arena.js';
import { Core } from './core.js';
import { AttnLabError } from './validate.js';
import { createTokenizer } from './tokenizer.js';
import { OPS as attentionOps } from './attention.js';
import { OPS as multiHeadOps, MultiHeadAttentionLayer } from './multihead.js';
import { OPS as positionalOps } from './positional.js';
import { OPS as blockOps } from './blocks.js';
import { OPS as embeddingOps } from './embedding.js';
import { OPS as modelOps, Model } from './model.js';

export { AttnLabError, createTokenizer, MultiHeadAttentionLayer, Model };
export { MAX_CALL_BYTES } from './arena.js';
export { createGpt2Tokenizer } from './gpt2-tokenizer.js';  // GPT-2's tokens; the vocabulary loads on first call

// The smallest module with a v128 instruction: if it validates, this engine has WASM SIMD.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/** True when this JavaScript engine runs WebAssembly with SIMD128 (attnlab needs it). */
export function supportsWasmSimd() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

function isNode() {
  return typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';
}

/**
 * Loads the WebAssembly core and returns the API. In Node the .wasm is read from disk next to this
 * file; in a browser (Vite) it is fetched from the URL the bundler gives it. Pass `wasmBinary`
 * (an ArrayBuffer/Uint8Array) to supply it yourself.
 */
export async function createAttnLab(options = {}) {
  if (!supportsWasmSimd())
    throw new AttnLabError(
      'createAttnLab: this browser or runtime has no WebAssembly SIMD (needed by attnlab); use a current Chrome, Edge, Firefox, Safari ≥ 16.4 or Node ≥ 16.4');
  const wasmUrl = new URL('./wasm/attnlab-core.wasm', import.meta.url);
  const moduleArgs = {};
  if (options.wasmBinary) moduleArgs.wasmBinary = options.wasmBinary;
  else if (isNode()) {
    const fsName = 'node:fs/promises';  // hidden from bundlers: never loaded in a browser
    const { readFile } = await import(/* @vite-ignore */ fsName);
    moduleArgs.wasmBinary = await readFile(wasmUrl);
  } else moduleArgs.locateFile = () => wasmUrl.href;
  const module = await createAttnLabCore(moduleArgs);
  return new AttnLab(new Core(module));
}

// The API: every op is a function op(lab, args) in the file of its family (attention.js, multihead.js,
// positional.js, blocks.js, embedding.js, model.js), which lists it in its OPS; each becomes a method
// here (installed below), so adding an op to a family file adds the method. Types: index.d.ts.
export class AttnLab {
  /** @param core the WebAssembly core (internal; web/api/core.js) */
  constructor(core) {
    this.core = core;
    this.arena = new Arena(core);
  }

  /** A tokenizer ('char', 'word' or byte-level 'bpe'); the same as createTokenizer (pure JS: strings
   *  and Unicode are JavaScript's home ground, no numerics). */
  tokenizer(args) {
    return createTokenizer(args);
  }

  /** What the module runs on, and its memory use (for leak checks). */
  info() {
    return {
      simd128: this.core.usesSimd128(),
      heapBytes: this.core.module.HEAPU8.length,
      heapInUse: this.core.heapInUse(),
      arenaBytes: this.arena.bytes,
      stackPointer: this.core.stackPointer(),
    };
  }

  /** Frees the reusable heap block; the object stays usable (the next call allocates again). */
  dispose() {
    this.arena.free();
  }
}

for (const ops of [attentionOps, multiHeadOps, positionalOps, blockOps, embeddingOps, modelOps]) {
  for (const [name, op] of Object.entries(ops)) {
    if (name in AttnLab.prototype) throw new Error(`attnlab: two ops are named ${name}`);
    // A named method (stack traces and the console show lab.attention, not an anonymous function).
    const method = { [name](args, options) { return arguments.length > 1 ? op(this, args, options) : op(this, args); } }[name];
    Object.defineProperty(AttnLab.prototype, name, { value: method, writable: true, configurable: true });
  }
}
