// The boundary between the facade and the WebAssembly core (core/bindings/embind.cc, web/api/core.js):
// Embind declares every call by field name, so a field the facade does not send is an error naming
// it; the enums the facade names are the core's; a build out of step with web/api fails when the module
// loads; a failed call leaves stack and heap as they were.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from './index.js';
import { Core, ContractError } from './core.js';
import { ENTRY } from '../../tests/unit/entry-points.js';

let lab, M;
beforeAll(async () => { lab = await createAttnLab(); M = lab.core.module; });

// A call with every field 0: the ops refuse its sizes, which is enough to reach the core.
const zeros = (names) => Object.fromEntries(names.map((n) => [n, 0]));

describe('contract', () => {
  test('a call without one of its fields throws before any C++ runs, naming the field', () => {
    const fields = ['weights', 'v', 'tq', 'tk', 'dv', 'output'];
    const before = lab.info();
    for (const f of fields) {
      const { [f]: _, ...missing } = zeros(fields);
      expect(() => M.weightedSum(missing), f).toThrow(`Missing field:  "${f}"`);
    }
    expect(lab.info().heapInUse).toBe(before.heapInUse);
    expect(lab.info().stackPointer).toBe(before.stackPointer);
    // Nested calls too (a block's or a feed-forward's weights). Embind 3.1.6 has already allocated the
    // outer call when the inner one throws and does not free it (56 bytes): only a facade that
    // leaves out a field can get here, and this test is what keeps it from doing so.
    expect(() => M.feedForward({ ...zeros(['x', 'rows', 'dModel', 'dFF', 'pre', 'activated', 'output']), activation: M.Activation.relu, w: zeros(['w1', 'b1', 'w2']) }))
      .toThrow('Missing field:  "b2"');
    // With every field, the call reaches the core, which refuses the sizes with its own message.
    expect(M.weightedSum(zeros(fields))).toBe(1);
    expect(lab.core.lastError()).toMatch(/^weightedSum: /);
  });

  test('the multi-head call\'s table of addresses must carry this core\'s length: a facade out of step is refused, not misread', () => {
    // The table (core/bindings/embind.cc, MultiHeadRunCall): its length, then 19 addresses.
    const p = M._malloc(4 * 20), u32 = lab.core.heap().u32, none = M.MaskKind.none;
    const before = lab.info();
    for (const length of [0, 18, 20, 1e6]) {
      u32.fill(0, p >>> 2, (p >>> 2) + 20);
      u32[p >>> 2] = length;
      expect(M.multiHeadAttention(8, 2, p, 1, 1, none, 0, false, 0, false, 10000, false), String(length)).toBe(1);
      expect(lab.core.lastError()).toBe('multiHeadAttention: the table of addresses is not this core\'s (web/api and the WebAssembly core are out of step)');
    }
    expect(M.multiHeadAttention(8, 2, 0, 1, 1, none, 0, false, 0, false, 10000, false)).toBe(1);
    expect(lab.core.lastError()).toMatch(/out of step/);
    // The right length reaches the op, which then refuses the missing arrays with its own message.
    u32[p >>> 2] = 19;
    expect(M.multiHeadAttention(8, 2, p, 1, 1, none, 0, false, 0, false, 10000, false)).toBe(1);
    expect(lab.core.lastError()).toMatch(/^multiHeadAttention: /);
    expect(lab.core.lastError()).not.toMatch(/out of step/);
    expect(lab.info().heapInUse).toBe(before.heapInUse);
    M._free(p);
  });

  test('every enum name the facade accepts is one of the core\'s enums, values distinct', () => {
    const accepted = {
      maskKind: ['none', 'causal', 'window', 'additive'],
      activation: ['relu', 'gelu', 'gelu_tanh'],
      norm: ['post', 'pre'],
      kernel: ['gaussian', 'dot'],
    };
    expect(Object.keys(lab.core.enums).sort()).toEqual(Object.keys(accepted).sort());
    for (const [kind, names] of Object.entries(accepted)) {
      expect(Object.keys(lab.core.enums[kind]), kind).toEqual(names);
      const codes = names.map((n) => lab.core.code(kind, n).value);
      expect(new Set(codes).size, kind).toBe(names.length);
    }
    expect(() => lab.core.code('activation', 'swish')).toThrow(ContractError);
  });

  test('a module that lacks a function or class the facade calls is refused when it loads', () => {
    const { layerNorm, ...without } = M;
    expect(() => new Core(without)).toThrow("attnlab: web/api and the WebAssembly core disagree: the core exports no layerNorm");
    const { Model, ...noModel } = M;
    expect(() => new Core(noModel)).toThrow(/the core exports no Model/);
  });

  test('a layer handle that was deleted is refused by Embind; the layer object says so in the API\'s words', () => {
    const layer = lab.createMultiHeadAttention(ENTRY.createMultiHeadAttention.good());
    const x = new Float32Array(12).fill(0.5);
    const r = layer.forward({ x, tq: 3 });
    expect(r.output.length).toBe(12);
    layer.dispose();
    layer.dispose();  // twice is fine
    expect(() => layer.forward({ x, tq: 3 })).toThrow('multiHeadAttention: this layer was disposed, expected a layer from createMultiHeadAttention that is still alive');
  });
});

describe('removed names (0.1.0: the deprecated aliases are gone)', () => {
  test('feedForward has no hidden; the blocks have no ffnHidden', () => {
    const r = lab.feedForward(ENTRY.feedForward.good());
    expect(Object.keys(r).sort()).toEqual(['activated', 'output', 'pre']);
    for (const name of ['encoderBlock', 'decoderBlock']) expect(lab[name](ENTRY[name].good()).ffnHidden, name).toBeUndefined();
  });
});
