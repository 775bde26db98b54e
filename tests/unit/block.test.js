// encoderBlock and decoderBlock: every intermediate is what its formula says, masks, batches. Vs
// torch.nn.TransformerEncoderLayer / TransformerDecoderLayer: golden.test.js; bad input: bad-input.test.js.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { decoderArgs, encoderArgs, golden } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const g = golden('blocks');

describe('encoder block', () => {
  test('every intermediate is what its formula says (exact float32 sums, LayerNorm, FFN)', () => {
    for (const c of g.encoder) {
      const r = lab.encoderBlock(encoderArgs(c));
      const w = c.weights, D = c.dModel;
      const add = (a, b) => Float32Array.from(a, (v, i) => Math.fround(v + b[i]));
      const ln = (x, i) => lab.layerNorm({ x, rows: c.t, dim: D, gamma: w[`ln${i}Gamma`], beta: w[`ln${i}Beta`], eps: c.eps });
      const attnIn = c.norm === 'post' ? c.x : r.norm1;
      const mha = lab.multiHeadAttention({ x: attnIn, tq: c.t, dModel: D, heads: c.heads, wq: w.wq, wk: w.wk, wv: w.wv, wo: w.wo, bq: w.bq, bk: w.bk, bv: w.bv, bo: w.bo, mask: c.mask });
      for (const [mine, theirs] of [['q', 'q'], ['k', 'k'], ['v', 'v'], ['attnWeights', 'weights'], ['attnHeads', 'heads'], ['attnOut', 'output']])
        expect(Array.from(r[mine]), `${c.name} ${mine}`).toEqual(Array.from(mha[theirs]));
      expect(Array.from(r.residual1)).toEqual(Array.from(add(c.x, r.attnOut)));
      if (c.norm === 'post') {
        expect(Array.from(r.norm1)).toEqual(Array.from(ln(r.residual1, 1)));
        expect(Array.from(r.residual2)).toEqual(Array.from(add(r.norm1, r.ffnOut)));
        expect(Array.from(r.norm2)).toEqual(Array.from(ln(r.residual2, 2)));
        expect(Array.from(r.output)).toEqual(Array.from(r.norm2));
      } else {
        expect(Array.from(r.norm1)).toEqual(Array.from(ln(c.x, 1)));
        expect(Array.from(r.norm2)).toEqual(Array.from(ln(r.residual1, 2)));
        expect(Array.from(r.residual2)).toEqual(Array.from(add(r.residual1, r.ffnOut)));
        expect(Array.from(r.output)).toEqual(Array.from(r.residual2));
      }
      const ffnIn = c.norm === 'post' ? r.norm1 : r.norm2;
      const f = lab.feedForward({ x: ffnIn, rows: c.t, dModel: D, dFF: c.dFF, w1: w.w1, b1: w.b1, w2: w.w2, b2: w.b2, activation: c.activation });
      expect(Array.from(r.ffnPre)).toEqual(Array.from(f.pre));
      expect(Array.from(r.ffnActivated)).toEqual(Array.from(f.activated));
      expect(Array.from(r.ffnOut)).toEqual(Array.from(f.output));
    }
  });

  test('a causal mask keeps token i from seeing tokens after it: changing the last token leaves the others', () => {
    const c = g.encoder.find((e) => e.mask === 'causal' && e.norm === 'pre');
    const a = lab.encoderBlock(encoderArgs(c));
    const x2 = Float32Array.from(c.x);
    for (let j = 0; j < c.dModel; j++) x2[(c.t - 1) * c.dModel + j] += 1;
    const b = lab.encoderBlock({ ...encoderArgs(c), x: x2 });
    const keep = (c.t - 1) * c.dModel;
    expect(Array.from(b.output.subarray(0, keep))).toEqual(Array.from(a.output.subarray(0, keep)));
    expect(Array.from(b.output.subarray(keep))).not.toEqual(Array.from(a.output.subarray(keep)));
  });
});

describe('decoder block', () => {
  test("the default self-attention mask is causal; mask: 'none' lets tokens look ahead", () => {
    const c = g.decoder[0];
    const causal = lab.decoderBlock({ ...decoderArgs(c), mask: 'causal' });
    expect(Array.from(lab.decoderBlock(decoderArgs(c)).output)).toEqual(Array.from(causal.output));
    const open = lab.decoderBlock({ ...decoderArgs(c), mask: 'none' });
    expect(open.selfWeights[1]).toBeGreaterThan(0);  // head 0, query 0, key 1
    expect(causal.selfWeights[1]).toBe(0);
  });
});

describe('batch (B, N, D): each sequence exactly as on its own', () => {
  test('encoder and decoder', () => {
    const [c1, c2] = [g.encoder[5], g.encoder.find((e, i) => i !== 5 && e.t === g.encoder[5].t && e.norm === g.encoder[5].norm)];
    const both = lab.encoderBlock({ ...encoderArgs(c1), x: [...c1.x, ...c2.x], batch: 2 });
    const one = lab.encoderBlock(encoderArgs(c1)), two = lab.encoderBlock({ ...encoderArgs(c1), x: c2.x });
    for (const k of Object.keys(one)) expect(Array.from(both[k]), k).toEqual([...one[k], ...two[k]]);
    const d = g.decoder[1], xs = [...d.x, ...d.x.map((v) => -v)], mem = [...d.memory, ...d.memory.map((v) => 2 * v)];
    const dboth = lab.decoderBlock({ ...decoderArgs(d), x: xs, memory: mem, batch: 2 });
    const d2 = lab.decoderBlock({ ...decoderArgs(d), x: d.x.map((v) => -v), memory: d.memory.map((v) => 2 * v) });
    for (const k of ['output', 'crossWeights', 'crossK', 'selfWeights'])
      expect(Array.from(dboth[k]), k).toEqual([...lab.decoderBlock(decoderArgs(d))[k], ...d2[k]]);
  });
});
