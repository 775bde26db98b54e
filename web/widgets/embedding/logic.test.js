// The tied output layer's hidden state: it predicts the word after its context (not the context's last
// word, which the last word's own embedding would favour), computed through the core's output head.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from '../../api/index.js';
import { uniformMatrix } from '../shared/rng.js';
import { CONTEXTS, D, SENTENCE, V, VOCAB, W_SEED, WEIGHT_DECAY, argmax, contextText, nextWordState } from './logic.js';

let lab;
const W = uniformMatrix(W_SEED, V * D);
beforeAll(async () => { lab = await createAttnLab(); });

describe('the hidden state that predicts the next word', () => {
  test('every context: the top prediction is the next word of the sentence, never the context’s last word', () => {
    for (let pos = 0; pos < CONTEXTS; pos++) {
      const r = nextWordState(lab, W, pos);
      const top = argmax(r.probs);
      expect(VOCAB[top], contextText(pos)).toBe(VOCAB[SENTENCE[pos + 1]]);
      expect(top, contextText(pos)).not.toBe(SENTENCE[pos]);
      // a clear prediction, not a certainty (the weight decay keeps h finite)
      expect(r.probs[top]).toBeGreaterThan(0.6);
      expect(r.probs[top]).toBeLessThan(0.95);
    }
  });

  test('"the cat" predicts "sat"; the embedding of "cat" used as h would not', () => {
    const r = nextWordState(lab, W, 1);
    expect(VOCAB[argmax(r.probs)]).toBe('sat');
    const own = lab.outputHead({ h: W.slice(D, 2 * D), rows: 1, table: W, vocab: V, dModel: D });
    expect(VOCAB[argmax(own.probs)]).not.toBe('sat');
  });

  test('h is the minimiser: the gradient of −log p(next) + (λ/2)‖h‖² vanishes, and the core’s logits are h·Wᵀ', () => {
    for (let pos = 0; pos < CONTEXTS; pos++) {
      const r = nextWordState(lab, W, pos);
      expect(r.gradNorm).toBeLessThan(1e-5);
      const g = Array.from(r.h, (x) => WEIGHT_DECAY * x);
      for (let j = 0; j < V; j++) for (let d = 0; d < D; d++) g[d] += (r.probs[j] - (j === r.next ? 1 : 0)) * W[j * D + d];
      expect(Math.hypot(...g)).toBeLessThan(1e-4);  // recomputed from the float32 h
      for (let j = 0; j < V; j++) {
        let dot = 0;
        for (let d = 0; d < D; d++) dot += r.h[d] * W[j * D + d];
        expect(r.logits[j]).toBeCloseTo(dot, 5);
      }
    }
  });

  test('a lower weight decay gives a sharper prediction of the same word', () => {
    const a = nextWordState(lab, W, 2, { lambda: 0.05 }), b = nextWordState(lab, W, 2);
    expect(argmax(a.probs)).toBe(argmax(b.probs));
    expect(a.probs[a.next]).toBeGreaterThan(b.probs[b.next]);
  });
});
