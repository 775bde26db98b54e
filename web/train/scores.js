// scores.js — numbers that say what a trained head does, from its attention map and the tokens: the
// circuit of Olsson et al. 2022 ("In-context learning and induction heads") — a previous-token head in
// layer 0 and an induction head in layer 1 — and the loss split that shows the repeat being predicted.
// Pure JS: these are reductions of arrays the model already returned (model.forward), nothing to
// compute in the core.
//
// att: one head's softmax weights, Float32Array [batch·t·t] (row-major: row i is query i's weights
// over keys 0 … t−1; causal, so att[i, j] = 0 for j > i). ids: the input tokens [batch·t].
// Each score is a mean of attention weights, so it lies in [0, 1]; 1 means the head puts all of its
// weight where the score looks.

import { describe as show, fail } from '../api/validate.js';

function checkAtt(fn, att, t, batch) {
  if (!Number.isInteger(t) || t < 1) fail(fn, `t is ${show(t)}, expected a positive integer`);
  if (!Number.isInteger(batch) || batch < 1) fail(fn, `batch is ${show(batch)}, expected a positive integer`);
  if (!att || typeof att.length !== 'number' || att.length !== batch * t * t)
    fail(fn, `att has ${att?.length ?? 'no'} values, expected batch·t·t = ${batch * t * t}`);
}

function checkRows(fn, name, a, n, expr) {
  if (!a || typeof a.length !== 'number' || a.length !== n) fail(fn, `${name} has ${a?.length ?? 'no'} values, expected ${expr} = ${n}`);
}

// Previous-token score: the mean over rows and positions i ≥ 1 of att[i, i − 1]. A head that always
// attends to the token just before scores 1; uniform causal attention scores mean(1/(i+1)).
// positions: an optional mask [batch·t] (1 = score this position), e.g. an induction batch's `first`:
// the positions whose "previous token" an induction head's keys read. Returns NaN when it selects no
// position i ≥ 1.
export function previousTokenScore(att, t, batch = 1, positions) {
  const fn = 'previousTokenScore';
  checkAtt(fn, att, t, batch);
  if (t < 2) fail(fn, `t is ${t}, expected t ≥ 2 (position 0 has no previous token)`);
  if (positions !== undefined) checkRows(fn, 'positions', positions, batch * t, 'batch·t');
  let sum = 0, n = 0;
  for (let b = 0; b < batch; b++)
    for (let i = 1; i < t; i++) {
      if (positions && !positions[b * t + i]) continue;
      sum += att[(b * t + i) * t + i - 1];
      n++;
    }
  return n === 0 ? NaN : sum / n;
}

// Induction score: at each position i whose token occurred before (ids[j] = ids[i], j < i), the weight
// the head puts on the positions just after those earlier occurrences, Σ_{j<i, ids[j]=ids[i]} att[i, j+1]
// (each key counted once), averaged over such positions. That is the head that looks up "what came
// after this token last time" — with one earlier occurrence, att[i, j + 1].
// options.positions: a mask [batch·t] (1 = score this position), e.g. a task batch's `repeated`, to
// score only the repeated half; positions without an earlier occurrence are skipped either way.
// Returns NaN when no position qualifies.
export function inductionScore(att, ids, t, options = {}) {
  const fn = 'inductionScore';
  const { batch = 1, positions } = options;
  checkAtt(fn, att, t, batch);
  checkRows(fn, 'ids', ids, batch * t, 'batch·t');
  if (positions !== undefined) checkRows(fn, 'positions', positions, batch * t, 'batch·t');
  const counted = new Uint8Array(t);
  let sum = 0, n = 0;
  for (let b = 0; b < batch; b++) {
    const row = b * t;
    for (let i = 1; i < t; i++) {
      if (positions && !positions[row + i]) continue;
      counted.fill(0);
      let found = false, s = 0;
      for (let j = 0; j < i; j++) {
        if (ids[row + j] !== ids[row + i] || counted[j + 1]) continue;
        counted[j + 1] = 1;  // j + 1 ≤ i: the key right after the earlier occurrence
        s += att[(row + i) * t + j + 1];
        found = true;
      }
      if (found) { sum += s; n++; }
    }
  }
  return n === 0 ? NaN : sum / n;
}

// Anti-diagonal score (the reverse task, n digits, t = 2n): the mean over rows and over the reversed
// half's positions i ∈ [n, 2n) only (the first half is random input: nothing to read there) of
// att[i, 2n − 1 − i + shift] — the head that reads the input backwards scores 1.
// shift 0: the key is the digit to copy next itself (a layer-0 head can only read it there);
// shift 1: the key just after it, the anti-diagonal one to the right. A head in layer 1 or later reads
// that one as often: a previous-token head of layer 0 has copied each digit into the position after it,
// so the same stripe one column right carries the same digit. reverseHeadScore takes the better of the two.
export function reverseScore(att, t, batch = 1, { shift = 0 } = {}) {
  const fn = 'reverseScore';
  checkAtt(fn, att, t, batch);
  if (t % 2 !== 0) fail(fn, `t is ${t}, expected an even t = 2·length`);
  if (shift !== 0 && shift !== 1) fail(fn, `shift is ${show(shift)}, expected 0 or 1`);
  const n = t / 2;
  let sum = 0;
  for (let b = 0; b < batch; b++)
    for (let i = n; i < t; i++) sum += att[(b * t + i) * t + (t - 1 - i + shift)];
  return sum / (batch * n);
}

// The anti-diagonal score of a head in `layer`: reverseScore's shift 0, and from layer 1 on the larger of
// shift 0 and shift 1 (the digit read where a layer-0 previous-token head has moved it).
export function reverseHeadScore(att, t, batch = 1, layer = 0) {
  const s0 = reverseScore(att, t, batch);
  return layer >= 1 ? Math.max(s0, reverseScore(att, t, batch, { shift: 1 })) : s0;
}

// The loss on the first half (unpredictable targets) against the repeated half (predictable by
// induction): the means of tokenLosses over the two masks of an induction batch. Before induction
// forms both are near ln(#tokens); after it, repeatedLoss falls towards 0, so ratio =
// repeatedLoss / firstHalfLoss goes from ~1 to ~0.
export function lossSplit(tokenLosses, { first, repeated }) {
  const fn = 'lossSplit';
  if (!tokenLosses || typeof tokenLosses.length !== 'number') fail(fn, `tokenLosses is ${show(tokenLosses)}, expected a Float32Array`);
  checkRows(fn, 'first', first, tokenLosses.length, 'tokenLosses.length');
  checkRows(fn, 'repeated', repeated, tokenLosses.length, 'tokenLosses.length');
  let f = 0, nf = 0, r = 0, nr = 0;
  for (let i = 0; i < tokenLosses.length; i++) {
    if (first[i]) { f += tokenLosses[i]; nf++; }
    if (repeated[i]) { r += tokenLosses[i]; nr++; }
  }
  const firstHalfLoss = nf ? f / nf : NaN, repeatedLoss = nr ? r / nr : NaN;
  return { firstHalfLoss, repeatedLoss, ratio: repeatedLoss / firstHalfLoss };
}

// Every head of a forward pass (model.forward({ ids, batch, attention: true })): an array by layer of
// arrays by head of { prev, induction }. options.positions as for inductionScore.
export function headScores(forwardResult, ids, options = {}) {
  const fn = 'headScores';
  if (!forwardResult || !Array.isArray(forwardResult.attention))
    fail(fn, 'forwardResult has no attention, expected the result of model.forward({ …, attention: true })');
  const { batch = 1, t } = forwardResult;
  checkRows(fn, 'ids', ids, batch * t, 'batch·t');
  return forwardResult.attention.map((heads) => heads.map((att) => ({
    prev: previousTokenScore(att, t, batch),
    induction: inductionScore(att, ids, t, { batch, positions: options.positions }),
  })));
}
