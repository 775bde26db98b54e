// core.js — the facade's side of the Embind boundary (core/bindings/embind.cc).
//
// The core declares its boundary once, with Embind: every op is a function taking one call object
// whose fields are named as the facade names them (a field the facade does not send is an Embind
// error naming it), the C++ enums are Embind enums, the layer and the model are Embind classes.
// This file holds what the facade needs around that: the enum values by the names users write, the
// core's last error message, and the one cache of typed views over WebAssembly memory.

import { AttnLabError } from './validate.js';

export class ContractError extends Error {
  constructor(message) {
    super(`attnlab: web/api and the WebAssembly core disagree: ${message}`);
    this.name = 'ContractError';
  }
}

// What the facade calls; checked once when the module loads, so a build out of step with web/api
// fails at createAttnLab, not in the middle of a lecture.
const FUNCTIONS = ['attention', 'weightedSum', 'multiHeadAttention', 'multiHeadWorkspaceFloats', 'sinusoidal', 'rope',
  'alibi', 'layerNorm', 'rmsNorm', 'activation', 'feedForward', 'encoderBlock', 'decoderBlock', 'embedding',
  'outputHead', 'kernelRegression', 'lastError', 'usesSimd128', 'heapInUse', 'stackPointer'];
// The C++ enums under the names the facade's options use.
const ENUMS = { maskKind: 'MaskKind', activation: 'Activation', norm: 'NormPlacement', kernel: 'RegressionKernel' };

export class Core {
  /** @param module the Emscripten module (Embind's functions, enums and classes on it) */
  constructor(module) {
    this.module = module;
    for (const name of [...FUNCTIONS, ...Object.values(ENUMS), 'MultiHeadLayer', 'Model'])
      if (module[name] === undefined) throw new ContractError(`the core exports no ${name}`);
    /** kind → { name → Embind enum value }: { maskKind: { none, causal, … }, activation, norm, kernel } */
    this.enums = Object.fromEntries(Object.entries(ENUMS).map(([kind, type]) => [kind, enumValues(module[type])]));
    this.buffer = null;
  }

  /** The Embind enum value of `name` in `kind` ('maskKind', 'activation', 'norm', 'kernel'). */
  code(kind, name) {
    const c = this.enums[kind]?.[name];
    if (c === undefined) throw new ContractError(`the core has no ${kind} '${name}'`);
    return c;
  }

  /**
   * Typed views of the whole WebAssembly memory: { u8, i32, u32, f32, f64 }. Made again after the
   * memory grows (growth detaches the old ArrayBuffer, and a view of it reads as empty): every
   * caller asks for them after the last call that could grow memory, never keeps them across one.
   */
  heap() {
    const buf = this.module.HEAPU8.buffer;
    if (this.buffer !== buf) {
      this.buffer = buf;
      this.views = {
        u8: new Uint8Array(buf), i32: new Int32Array(buf), u32: new Uint32Array(buf),
        f32: new Float32Array(buf), f64: new Float64Array(buf),
      };
    }
    return this.views;
  }

  lastError() { return this.module.lastError(); }
  usesSimd128() { return this.module.usesSimd128(); }
  heapInUse() { return this.module.heapInUse() >>> 0; }
  stackPointer() { return this.module.stackPointer() >>> 0; }
  /** Floats of workspace the streaming multi-head call needs (a double: huge counts arrive intact). */
  multiHeadWorkspace(tk, dModel, heads) {
    // A pure function of its three sizes: the last answer is kept (a slider moved again asks the same).
    const w = this.#workspace;
    if (w.tk !== tk || w.dModel !== dModel || w.heads !== heads)
      this.#workspace = { tk, dModel, heads, floats: this.module.multiHeadWorkspaceFloats(tk, dModel, heads) };
    return this.#workspace.floats;
  }
  #workspace = { tk: -1, dModel: -1, heads: -1, floats: 0 };
}

// name → value of an Embind enum (its own keys: the values; 'values' maps codes back).
function enumValues(type) {
  return Object.fromEntries(Object.keys(type).filter((k) => k !== 'values' && k !== 'argCount').map((k) => [k, type[k]]));
}

// A call's status: non-zero becomes an AttnLabError with the core's message.
export function run(lab, status) {
  if (status !== 0) throw new AttnLabError(lab.core.lastError());
}

// The mask fields of a call for a parsed mask; pm = the address of its values.
export function maskFields(core, m, pm) {
  return { maskKind: core.code('maskKind', m.kind), window: m.window, causal: !!m.causal, mask: pm };
}
