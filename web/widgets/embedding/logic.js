// The embedding and tied-output-layer slides' example: a five-word vocabulary, one seeded embedding
// table W [V, D] shared by both widgets (tying), and the hidden state the output layer reads.
//
// The output layer predicts the NEXT word. Its input h is the decoder's state after a context such as
// "the cat", not the embedding of the last word ("cat"·Wᵀ is largest for "cat" itself: the embedding
// predicts the word it already is). What a trained decoder's state does is make the next word likely;
// here that state is computed: the h that minimises −log p(next | h) + (λ/2)‖h‖² with p = softmax(h·Wᵀ)
// (lab.outputHead), by gradient descent. The loss is strictly convex (λ > 0): one minimiser, found to
// |∇| < 1e-5 whatever the start.

/** The vocabulary and the sentence the contexts are prefixes of: "the cat sat on the mat". */
export const VOCAB = ['the', 'cat', 'sat', 'on', 'mat'];
export const SENTENCE = [0, 1, 2, 3, 0, 4];
export const V = VOCAB.length, D = 4;

/** W [V·D], values in [−1, 1) with one decimal; seed 90: every row can be made the clear top prediction. */
export const W_SEED = 90;

/** λ of the weight decay on h: keeps h finite (without it p(next) → 1 as ‖h‖ → ∞), p(next) ≈ 0.75–0.82. */
export const WEIGHT_DECAY = 0.2;

/** The contexts: "the", "the cat", …, "the cat sat on the" (each ends at a position < the last). */
export const CONTEXTS = SENTENCE.length - 1;

/** The context ending at `pos` as text, e.g. 1 → "the cat". */
export const contextText = (pos) => SENTENCE.slice(0, pos + 1).map((i) => VOCAB[i]).join(' ');

/**
 * The hidden state after the context ending at `pos` (0 … CONTEXTS−1) that predicts the word after it:
 * argmin_h −log softmax(h·Wᵀ)[next] + (λ/2)‖h‖², by gradient descent with the core's output head.
 * Returns { h [D], logits [V], probs [V], next (its vocabulary id), steps, gradNorm }.
 */
export function nextWordState(lab, table, pos, { lambda = WEIGHT_DECAY, lr = 0.5, tol = 1e-5, maxSteps = 2000 } = {}) {
  const next = SENTENCE[pos + 1];
  const h = new Float64Array(D);
  let r, gradNorm = Infinity, steps = 0;
  for (;; steps++) {
    r = lab.outputHead({ h, rows: 1, table, vocab: V, dModel: D });
    // ∇ = Σ_j (p_j − [j = next]) W_j + λ h
    const g = Array.from(h, (x) => lambda * x);
    for (let j = 0; j < V; j++) {
      const c = r.probs[j] - (j === next ? 1 : 0);
      for (let d = 0; d < D; d++) g[d] += c * table[j * D + d];
    }
    gradNorm = Math.hypot(...g);
    if (gradNorm < tol || steps >= maxSteps) break;
    for (let d = 0; d < D; d++) h[d] -= lr * g[d];
  }
  return { h: Float32Array.from(h), logits: r.logits, probs: r.probs, next, steps, gradNorm };
}

/** The index of the largest entry. */
export const argmax = (a) => Array.from(a).reduce((best, x, i, arr) => (x > arr[best] ? i : best), 0);
