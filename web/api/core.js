// core.js — the facade's side of the contract with the WebAssembly core (core/bindings/calls.h).
//
// Every op of the core is one export, attnlab_<op>(call), whose argument is the heap address of a C
// struct. The core reports the layout of each struct (field names, types, byte offsets) and the codes
// of its enums (mask kinds, activations, norm placements, regression kernels) through
// attnlab_contract(); this file reads that once and writes each call by field name. A call that
// leaves out a field the core declares, or names one it does not, throws an Error naming both sides:
// the JS and the C++ can only disagree loudly (web/api/contract.test.js calls every entry point).

import { AttnLabError } from './validate.js';

const decoder = new TextDecoder();

export class ContractError extends Error {
  constructor(message) {
    super(`attnlab: web/api and the WebAssembly core disagree: ${message}`);
    this.name = 'ContractError';
  }
}

export class Core {
  /** @param module the Emscripten module */
  constructor(module) {
    this.module = module;
    const contract = JSON.parse(this.#string(module._attnlab_contract()));
    /** name → code, per enum: { maskKind: { none: 0, … }, activation, norm, kernel } */
    this.enums = contract.enums;
    this.calls = contract.calls;
    this.structs = contract.structs;
    for (const op of Object.keys(this.calls))
      if (typeof module['_attnlab_' + op] !== 'function') throw new ContractError(`the core declares the call ${op} but exports no attnlab_${op}`);
    // One block for the call being made (calls are synchronous: one at a time).
    const bytes = Math.max(...Object.values(this.calls).map((c) => c.bytes));
    this.callPtr = module._malloc(bytes);
    if (!this.callPtr) throw new Error('attnlab: could not get WebAssembly memory for a call');
    this.buffer = null;
  }

  // Views of the memory, made again after it grows (the old ArrayBuffer is then detached).
  #views() {
    const buf = this.module.HEAPU8.buffer;
    if (this.buffer !== buf) {
      this.buffer = buf;
      this.u32 = new Uint32Array(buf);
      this.i32 = new Int32Array(buf);
      this.f32 = new Float32Array(buf);
    }
  }

  /** Writes `values` (field name → number or boolean) as the struct `layout` at byte address `addr`. */
  write(name, layout, addr, values) {
    if (!layout) throw new ContractError(`the core declares no struct ${name}`);
    this.#views();
    const fields = layout.fields;
    let given = 0;
    for (const k in values) given++;
    if (given !== fields.length) {
      const declared = new Set(fields.map((f) => f[0]));
      const extra = Object.keys(values).filter((k) => !declared.has(k));
      const missing = fields.map((f) => f[0]).filter((k) => !(k in values));
      throw new ContractError(`${name}: ${extra.length ? `the facade writes ${extra.join(', ')}, which the core does not declare` : ''}${extra.length && missing.length ? '; ' : ''}${missing.length ? `the core declares ${missing.join(', ')}, which the facade does not write` : ''}`);
    }
    for (let i = 0; i < fields.length; i++) {
      const [field, type, offset] = fields[i];
      const v = values[field];
      if (v === undefined) throw new ContractError(`${name}: the core declares ${field}, which the facade does not write`);
      const at = (addr + offset) >> 2;
      if (type === 'f32') this.f32[at] = v;
      else if (type === 'i32') this.i32[at] = +v;
      else this.u32[at] = v;
    }
  }

  /** Runs attnlab_<op> on `values`; returns its status (0 = ok, else lastError() says why). */
  call(op, values) {
    this.write(op, this.calls[op], this.callPtr, values);
    return this.module['_attnlab_' + op](this.callPtr);
  }

  /** The code of `name` in the core's enum `kind` ('maskKind', 'activation', 'norm', 'kernel'). */
  code(kind, name) {
    const c = this.enums[kind]?.[name];
    if (c === undefined) throw new ContractError(`the core has no ${kind} '${name}'`);
    return c;
  }

  lastError() { return this.#string(this.module._attnlab_last_error()); }
  usesSimd128() { return this.module._attnlab_uses_simd128() !== 0; }
  heapInUse() { return this.module._attnlab_heap_in_use() >>> 0; }
  stackPointer() { return this.module._attnlab_stack_pointer() >>> 0; }
  /** Floats of workspace the streaming multi-head call needs (a double: huge counts arrive intact). */
  multiHeadWorkspace(tk, dModel, heads) { return this.module._attnlab_multihead_workspace(tk, dModel, heads); }

  // A NUL-terminated UTF-8 string in WebAssembly memory.
  #string(p) {
    const heap = this.module.HEAPU8;
    let end = p;
    while (heap[end] !== 0) end++;
    return decoder.decode(heap.subarray(p, end));
  }
}

// A call's status: non-zero becomes an AttnLabError with the core's message.
export function run(lab, status) {
  if (status !== 0) throw new AttnLabError(lab.core.lastError());
}

// The mask fields of a call (calls.h ATTNLAB_MASK_FIELDS) for a parsed mask; pm = its values' address.
export function maskFields(core, m, pm) {
  return { maskKind: core.code('maskKind', m.kind), window: m.window, causal: m.causal, mask: pm };
}
