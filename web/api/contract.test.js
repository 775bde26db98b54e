// The contract between the facade and the WebAssembly core (core/bindings/calls.h, web/api/core.js):
// every call the core declares is made by some entry point, writing exactly the fields the core
// declares; the enum names the facade accepts all have codes in the core; a facade out of step with
// the core fails with an error that names the call and the fields.
import { beforeAll, describe, expect, test } from 'vitest';
import { Model, createAttnLab } from './index.js';
import { ContractError } from './core.js';
import { ENTRY, NAMES } from '../../tests/unit/entry-points.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

// Runs fn with every struct the facade writes recorded (core.call writes through core.write):
// call or struct name → the field names written.
function recordCalls(fn) {
  const core = lab.core, seen = new Map();
  core.write = function (name, layout, addr, values) {
    seen.set(name, Object.keys(values).sort());
    return Object.getPrototypeOf(core).write.call(this, name, layout, addr, values);
  };
  try {
    fn();
  } finally {
    delete core.write;
  }
  return seen;
}

describe('contract', () => {
  test('every call and struct the core declares is written by the facade, with exactly its fields', () => {
    const seen = recordCalls(() => {
      for (const name of NAMES) {
        const r = lab[name](ENTRY[name].good());
        if (name === 'createMultiHeadAttention') {
          r.forward({ x: new Float32Array(12).fill(0.5), tq: 3 });
          r.dispose();
        }
        if (r instanceof Model) {  // createModel, loadModel: every model call
          const ids = [1, 2], targets = [2, 0];
          r.forward({ ids, targets });
          r.computeGradients({ ids, targets });
          r.trainStep({ ids, targets });
          r.generate({ prompt: ids, steps: 2 });
          r.setHeadMask(new Float32Array(r.config.layers * r.config.heads).fill(1));
          r.setHeadMask(null);
          r.setParameters(r.parameters());
          r.save({ optimizer: true });
          r.dispose();
        }
      }
      lab.multiHeadAttention({ ...ENTRY.multiHeadAttention.good(), intermediates: false });
    });
    const declared = { ...lab.core.calls, ...lab.core.structs };
    expect([...seen.keys()].sort()).toEqual(Object.keys(declared).sort());
    for (const [op, layout] of Object.entries(declared))
      expect(seen.get(op), op).toEqual(layout.fields.map((f) => f[0]).sort());
  });

  test('layouts: 4-byte fields of known types, distinct aligned offsets, no padding', () => {
    for (const [op, { bytes, fields }] of Object.entries({ ...lab.core.calls, ...lab.core.structs })) {
      expect(bytes, op).toBe(4 * fields.length);
      expect(new Set(fields.map((f) => f[0])).size, op).toBe(fields.length);
      expect(fields.map((f) => f[2]), op).toEqual(fields.map((_, i) => 4 * i));
      for (const [name, type] of fields) expect(['ptr', 'i32', 'f32'], `${op}.${name}`).toContain(type);
    }
  });

  test('every enum name the facade accepts has a code in the core, codes distinct', () => {
    const accepted = {
      maskKind: ['none', 'causal', 'window', 'additive'],
      activation: ['relu', 'gelu', 'gelu_tanh'],
      norm: ['post', 'pre'],
      kernel: ['gaussian', 'dot'],
    };
    expect(Object.keys(lab.core.enums).sort()).toEqual(Object.keys(accepted).sort());
    for (const [kind, names] of Object.entries(accepted)) {
      expect(Object.keys(lab.core.enums[kind]), kind).toEqual(names);
      const codes = names.map((n) => lab.core.code(kind, n));
      expect(new Set(codes).size, kind).toBe(names.length);
    }
    expect(() => lab.core.code('activation', 'swish')).toThrow(ContractError);
  });

  test('a call with a missing or an undeclared field throws, naming the call and the fields', () => {
    const { weightedSum } = lab.core.calls;
    const good = Object.fromEntries(weightedSum.fields.map(([name]) => [name, 0]));
    const { dv, ...missing } = good;
    expect(() => lab.core.call('weightedSum', missing)).toThrow(
      "web/api and the WebAssembly core disagree: weightedSum: the core declares dv, which the facade does not write");
    expect(() => lab.core.call('weightedSum', { ...missing, dV: 1 })).toThrow(/weightedSum: the core declares dv, which the facade does not write/);
    expect(() => lab.core.call('weightedSum', { ...good, extra: 1 })).toThrow(
      'weightedSum: the facade writes extra, which the core does not declare');
    expect(dv).toBe(0);
  });

  test('an enum code the core does not declare is refused by the core, not read as another', () => {
    const r = lab.core.call('activation', { kind: 99, x: 0, n: 0, output: 0 });
    expect(r).toBe(1);
    expect(lab.core.lastError()).toMatch(/^activation: internal error, activation code 99 is not one this core declares/);
  });
});

describe('deprecated names (removed in 0.3) still give the same arrays', () => {
  test('feedForward: hidden is pre (before the activation)', () => {
    const r = lab.feedForward(ENTRY.feedForward.good());
    expect(r.hidden).toBe(r.pre);
    const relu = r.pre.map((x) => Math.max(0, x));
    expect(Array.from(r.activated)).toEqual(Array.from(relu));
  });

  test('encoderBlock / decoderBlock: ffnHidden is ffnActivated (after the activation)', () => {
    for (const name of ['encoderBlock', 'decoderBlock']) {
      const r = lab[name](ENTRY[name].good());
      expect(r.ffnHidden, name).toBe(r.ffnActivated);
      expect(Array.from(r.ffnActivated), name).toEqual(Array.from(r.ffnPre.map((x) => Math.max(0, x))));
    }
  });
});
