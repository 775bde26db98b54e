// Memory: failing calls (JS- and C++-side) interleaved with good ones leave heap, stack and results as
// they were; good interactive calls keep memory flat.
import { beforeAll, describe, expect, test } from 'vitest';
import { AttnLabError, Model, MultiHeadAttentionLayer, createAttnLab } from 'attnlab';
import { ENTRY, NAMES, dec, enc, ramp, smallAttention, smallMultiHead, tinyCheckpoint, withNaN } from './entry-points.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

describe('after failures the module is intact', () => {
  test('10,000 failing calls interleaved with good ones: same results, no heap or stack growth', () => {
    const ref = lab.attention(smallAttention());
    const m0 = lab.multiHeadAttention(smallMultiHead());
    const before = lab.info();
    const bad = [
      () => lab.attention({ ...smallAttention(), k: [1, 0, 0, NaN, 1, 1] }),                       // fails in C++
      () => lab.attention({ ...smallAttention(), mask: new Float32Array([0, 0, 0, 0, NaN, 0, 0, 0, 0]) }),
      () => lab.multiHeadAttention({ ...smallMultiHead(), wv: new Float32Array(16).fill(NaN) }),
      () => lab.attention({ ...smallAttention(), q: [1] }),                                        // fails in JS
      () => lab.positionalEncoding({ kind: 'sinusoidal', length: 3, dModel: 2, base: NaN }),
    ];
    for (let i = 0; i < 10000; i++) {
      expect(bad[i % bad.length]).toThrow();
      if (i % 100 === 0) {
        expect(Array.from(lab.attention(smallAttention()).output)).toEqual(Array.from(ref.output));
      }
    }
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.stackPointer).toBe(before.stackPointer);
    expect(Array.from(lab.multiHeadAttention(smallMultiHead()).output)).toEqual(Array.from(m0.output));
  });

  test('20,000 good interactive calls keep memory flat', () => {
    lab.multiHeadAttention(smallMultiHead());
    const before = lab.info();
    for (let i = 0; i < 20000; i++) lab.multiHeadAttention(smallMultiHead());
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.heapBytes).toBe(before.heapBytes);
  });

  test('100,000 failing calls (every entry point, JS- and C++-side failures) interleaved with good ones', () => {
    const refA = lab.attention(ENTRY.attention.good()).output;
    const refM = lab.multiHeadAttention(ENTRY.multiHeadAttention.good()).output;
    const refE = lab.encoderBlock(ENTRY.encoderBlock.good()).output;
    // The output-only path allocates its workspace on its first call and keeps it: call it once first.
    lab.multiHeadAttention({ ...ENTRY.multiHeadAttention.good(), intermediates: false });
    const before = lab.info();
    const nanAt = (a) => Float32Array.from(a, (x, i) => (i === 1 ? NaN : x));
    // Failures found by the C++ checks (values, overflow) and by the JS checks (shapes, options).
    const bad = [
      ['attention', { ...ENTRY.attention.good(), k: nanAt(ENTRY.attention.good().k) }],
      ['attention', { q: [1e30, 1e30], k: [1e30, -1e30], v: [1], tq: 1, tk: 1, dk: 2, dv: 1 }],
      ['multiHeadAttention', { ...ENTRY.multiHeadAttention.good(), wv: nanAt(ramp(16)) }],
      ['multiHeadAttention', { ...ENTRY.multiHeadAttention.good(), wv: nanAt(ramp(16)), intermediates: false }],
      ['feedForward', { ...ENTRY.feedForward.good(), w2: nanAt(ramp(24)) }],
      ['layerNorm', { ...ENTRY.layerNorm.good(), x: nanAt(ramp(8)) }],
      ['kernelRegression', { ...ENTRY.kernelRegression.good(), ys: nanAt(ramp(5)) }],
      ['outputHead', { ...ENTRY.outputHead.good(), h: nanAt(ramp(8)) }],
      ['rope', { ...ENTRY.rope.good(), x: nanAt(ramp(8)) }],
      ['positionalEncoding', { kind: 'sinusoidal', length: 3, dModel: 2, base: 0.5 }],
      ['attention', { ...ENTRY.attention.good(), q: [1] }],
      ['embedding', { ...ENTRY.embedding.good(), ids: [7] }],
      ['alibi', { heads: 64, tq: 4096 }],
      ['createModel', { ...ENTRY.createModel.good(), heads: 3 }],                 // the core's config check
      ['createModel', { ...ENTRY.createModel.good(), vocab: 0 }],
      ['loadModel', tinyCheckpoint().slice(0, 100)],                               // the core's reader
      ['loadModel', tinyCheckpoint({ metadata: { format: 'pt' } })],
      ['loadModel', tinyCheckpoint({ value: (i) => (i === 3 ? Infinity : 0) })],
      ['loadModel', 42],
    ];
    // The blocks' JS layer costs ~10x a single op per call: they fail every 50th call (2,000 times).
    const heavy = [
      ['encoderBlock', { ...ENTRY.encoderBlock.good(), x: nanAt(ramp(8)) }],
      ['decoderBlock', { ...ENTRY.decoderBlock.good(), memory: nanAt(ramp(12)) }],
    ];
    let failures = 0;
    for (let i = 0; i < 100000; i++) {
      const [fn, args] = i % 50 === 0 ? heavy[(i / 50) % 2] : bad[i % bad.length];
      try {
        lab[fn](args);
      } catch (e) {
        if (e instanceof AttnLabError && e.message.startsWith(fn + ': ')) failures++;
      }
      if (i % 5000 === 0) expect(lab.attention(ENTRY.attention.good()).output).toEqual(refA);
    }
    expect(failures).toBe(100000);
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.stackPointer).toBe(before.stackPointer);
    expect(lab.attention(ENTRY.attention.good()).output).toEqual(refA);
    expect(lab.multiHeadAttention(ENTRY.multiHeadAttention.good()).output).toEqual(refM);
    expect(lab.encoderBlock(ENTRY.encoderBlock.good()).output).toEqual(refE);
  });

  test('20,000 good interactive calls across the entry points keep memory flat', () => {
    // A layer (createMultiHeadAttention) and a model (createModel, loadModel) own their memory until
    // dispose(): disposed here.
    const call = (fn) => { const r = lab[fn](ENTRY[fn].good()); if (r instanceof MultiHeadAttentionLayer || r instanceof Model) r.dispose(); };
    for (const fn of NAMES) call(fn);
    const before = lab.info();
    for (let i = 0; i < 20000; i++) call(NAMES[i % NAMES.length]);
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.heapBytes).toBe(before.heapBytes);
    expect(after.stackPointer).toBe(before.stackPointer);
  });

  test('failing and good block calls leave heap and stack as they were', () => {
    const good = lab.encoderBlock(enc()).output;
    lab.decoderBlock(dec());
    const before = lab.info();
    for (let i = 0; i < 500; i++) {
      expect(() => lab.encoderBlock({ ...enc(), x: withNaN(12, i % 12) })).toThrow();
      expect(() => lab.decoderBlock({ ...dec(), memory: withNaN(8, i % 8) })).toThrow();
      lab.decoderBlock(dec());
    }
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.stackPointer).toBe(before.stackPointer);
    expect(Array.from(lab.encoderBlock(enc()).output)).toEqual(Array.from(good));
  });
});
