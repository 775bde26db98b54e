// <attn-train> logic: the task and model presets, which snapshot and head each slide stage shows, the
// head mask for ablation, and the plot series. Pure functions (no DOM, no core): every number they
// pass on comes from the trainer (its progress events, snapshots and inspect results); they only pick,
// order and label.

/** The tasks web/train/tasks.js defines (createTrainer's `task`). */
export const TASKS = [
  { id: 'induction', label: 'induction (repeat a random sequence)' },
  { id: 'names', label: 'names (next letter)' },
  { id: 'reverse', label: 'reverse a sequence' },
];

/**
 * Model size presets: createTrainer's `model` (vocab and context come from the task) and the training
 * settings that go with it. Their labels name the model only, never a task or a head it is expected to
 * form (every task trains every preset). Two layers are the smallest model that can form an induction
 * head (a previous-token head in layer 0 whose output a layer-1 head's keys read); one layer cannot:
 * ROLE_LAYERS says so and the widget names no head of it "induction head".
 */
export const SIZES = [
  {
    // The pretrained run's model (tools/pretrain_induction.cc): σ = 0.25 at initialisation lets the
    // attention-only model leave the plateau (createModel's 0.02 stays on it for thousands of steps).
    // Live without the shipped snapshots, a quicker recipe than the pretrained run's (batch 16, lr 1e-3:
    // ~1,600 steps): batch 4, lr 3e-3 after 200 warm-up steps, clip 1 reaches a held-out repeat/first loss
    // ratio < 0.15 in 1,200–1,350 steps, ~0.5 s of training in Node (seeds 0, 1). Beside the snapshots,
    // <attn-train> trains a run like theirs instead (their seed, batch, optimizer: attn-train.js #ensureRun).
    id: 'attn2', label: '2-layer attention-only',
    model: { layers: 2, heads: 2, dModel: 32, attentionOnly: true, layerNorm: false, initStd: 0.25 },
    optimizer: { lr: 3e-3, weightDecay: 0, maxGradNorm: 1, warmupSteps: 200 },
    batch: 4, steps: 3000,
  },
  {
    id: 'mlp2', label: '2-layer with MLP + LayerNorm',
    model: { layers: 2, heads: 4, dModel: 64, dFF: 256, attentionOnly: false, layerNorm: true },
    optimizer: { lr: 1e-3, weightDecay: 0.01, maxGradNorm: 1, warmupSteps: 50 },
    batch: 16, steps: 3000,
  },
  {
    id: 'attn1', label: '1-layer attention-only',
    model: { layers: 1, heads: 2, dModel: 32, attentionOnly: true, layerNorm: false, initStd: 0.25 },
    optimizer: { lr: 3e-3, weightDecay: 0, maxGradNorm: 1, warmupSteps: 200 },
    batch: 4, steps: 3000,
  },
];

export const sizeById = (id) => SIZES.find((s) => s.id === id) ?? SIZES[0];

/**
 * True when preset `sizeId` is the model the pretrained snapshots were trained with (`config`: their
 * index.json's; before it is known, SIZES[0], the preset made for them): the snapshots are shown only
 * for that model, never under another model's name.
 */
export function fitsPretrained(sizeId, config = null) {
  const m = sizeById(sizeId).model;
  if (!SIZES.some((s) => s.id === sizeId)) return false;
  if (!config) return sizeId === SIZES[0].id;
  return m.layers === config.layers && m.heads === config.heads && m.dModel === config.dModel && !!m.attentionOnly === !!config.attentionOnly;
}

/** createTrainer's options for a task and size preset (seed: the model's initialisation). */
export function trainerOptions(task, sizeId, { seed = 0, worker } = {}) {
  const s = sizeById(sizeId);
  const o = {
    task, model: { ...s.model, seed }, optimizer: { ...s.optimizer }, batch: s.batch,
    evalEvery: 25, snapshotEvery: 100,
  };
  if (worker !== undefined) o.worker = worker;
  return o;
}

/**
 * Training speeds (steps a second) for a live run: slow enough by default to watch the loss fall and the
 * stripes appear — the pretrained run's phase change (repeated/first-half loss 0.84 → 0.06) spans steps
 * 750–1,700, ~24 s at 40 steps a second — and "as fast as possible" one choice away. `rate` is
 * createTrainer's start({ rate }).
 */
export const SPEEDS = Object.freeze([
  { id: '10', label: '10 steps/s', rate: 10 },
  { id: '20', label: '20 steps/s', rate: 20 },
  { id: '40', label: '40 steps/s', rate: 40 },
  { id: '100', label: '100 steps/s', rate: 100 },
  { id: '250', label: '250 steps/s', rate: 250 },
  { id: 'max', label: 'as fast as possible', rate: Infinity },
]);
export const DEFAULT_SPEED = '40';
/** The rate (steps a second, Infinity: no limit) of speed `id` (unknown: the default's). */
export const rateOf = (id) => (SPEEDS.find((s) => s.id === String(id)) ?? SPEEDS.find((s) => s.id === DEFAULT_SPEED)).rate;

/** The score kinds plotted per task: each head's previous-token score and the task's own head score. */
export const SCORE_KINDS = { induction: ['prev', 'induction'], names: ['prev', 'induction'], reverse: ['prev', 'reverse'] };

/** The slide stages (the `stage` attribute). */
export const STAGES = ['untrained', 'loss falls', 'previous-token head', 'induction head'];

/** "L0H1": layer 0, head 1 (both counted from 0, as interpretability papers do). */
export const headName = (layer, head) => `L${layer}H${head}`;

/** Shape of a snapshot's `heads` ([layer][head]): { layers, heads }. */
export function headShape(heads) {
  return { layers: heads?.length ?? 0, heads: heads?.[0]?.length ?? 0 };
}

/**
 * The head mask createTrainer's inspect takes: [layers·heads], 1 keep, 0 ablate; `ablated` holds flat
 * indices layer·heads + head. Indices outside the model are ignored. null when nothing is ablated.
 */
export function headMask(ablated, layers, heads) {
  const n = layers * heads, list = (ablated ?? []).filter((i) => Number.isInteger(i) && i >= 0 && i < n);
  if (!list.length) return null;
  const mask = new Array(n).fill(1);
  for (const i of list) mask[i] = 0;
  return mask;
}

/** `ablated` with head `i` switched (a sorted list without duplicates). */
export function toggleHead(ablated, i) {
  const set = new Set(ablated ?? []);
  if (set.has(i)) set.delete(i); else set.add(i);
  return [...set].sort((a, b) => a - b);
}

/**
 * The head with the largest `kind` score ('prev' | 'induction') among the layers `from`…`to`
 * (inclusive) of `heads` ([layer][head] { prev, induction }): { layer, head, score }, or null.
 */
export function bestHead(heads, kind, from = 0, to = Infinity) {
  let best = null;
  (heads ?? []).forEach((row, l) => {
    if (l < from || l > to) return;
    row.forEach((h, j) => {
      const s = h?.[kind];
      if (Number.isFinite(s) && (!best || s > best.score)) best = { layer: l, head: j, score: s };
    });
  });
  return best;
}

/**
 * A head is called by a role ('prev' previous-token, 'induction', 'reverse' anti-diagonal) only when its
 * score for that role reaches the role's threshold (ROLE_THRESHOLDS, stated in the legend) and it sits
 * in a layer where the role is possible. Induction and anti-diagonal: 0.5 (half of the head's weight
 * where the role looks). Previous-token: 0.25, twice what uniform causal attention scores on the
 * induction task (0.12) — its score averages over every position, the repeated half too, where layer
 * 0's head of the induction circuit also looks elsewhere: the pretrained run's reaches 0.27 at step 1,300
 * (the slides' stage 2) and peaks at 0.34, and switching it off still breaks the induction head.
 */
export const ROLE_THRESHOLD = 0.5;
export const ROLE_THRESHOLDS = Object.freeze({ prev: 0.25, induction: ROLE_THRESHOLD, reverse: ROLE_THRESHOLD });
const thresholdOf = (kind) => ROLE_THRESHOLDS[kind] ?? ROLE_THRESHOLD;

/**
 * The layers [from, to] where a head can have each role: a previous-token head is layer 0's (the partner
 * an induction head reads); an induction head needs a previous-token head in an earlier layer, so it sits
 * in layer 1 or later (a 1-layer model has none); an anti-diagonal head reads positions: any layer.
 */
export const ROLE_LAYERS = Object.freeze({ prev: [0, 0], induction: [1, Infinity], reverse: [0, Infinity] });

/** True when a model of `layers` layers can have a head with role `kind`. */
export const rolePossible = (kind, layers) => {
  const [from] = ROLE_LAYERS[kind] ?? [0];
  return layers > from;
};

/**
 * The head that has role `kind` in `heads` (a snapshot's scores, [layer][head]): the best-scoring head
 * of the layers where the role is possible, if its score reaches `threshold`; else null.
 */
export function roleHead(heads, kind, threshold = thresholdOf(kind)) {
  const [from, to] = ROLE_LAYERS[kind] ?? [0, Infinity];
  const b = bestHead(heads, kind, from, to);
  return b && b.score >= threshold ? b : null;
}

/** Role names as the widget writes them. */
export const ROLE_TEXT = Object.freeze({ prev: 'previous-token head', induction: 'induction head', reverse: 'anti-diagonal head' });

/**
 * What the scores say about role `kind` (a legend's line): { head: { layer, head, score } | null, text }.
 * Found: "L1H0 is an induction head (score 0.91 ≥ 0.5)"; impossible in this model: why; else the best
 * candidate's score under the threshold.
 */
export function roleNote(heads, kind, threshold = thresholdOf(kind)) {
  const { layers } = headShape(heads);
  const role = ROLE_TEXT[kind] ?? kind, f = (x) => x.toFixed(2);
  if (!layers) return { head: null, text: '' };
  if (!rolePossible(kind, layers))
    return { head: null, text: `no ${role} possible: it needs a previous-token head in an earlier layer, and this model has ${layers} layer${layers > 1 ? 's' : ''}` };
  const head = roleHead(heads, kind, threshold);
  const article = /^[aeiou]/.test(role) ? 'an' : 'a';
  if (head) return { head, text: `${headName(head.layer, head.head)} is ${article} ${role} (score ${f(head.score)} ≥ ${threshold})` };
  const [from, to] = ROLE_LAYERS[kind] ?? [0, Infinity];
  const b = bestHead(heads, kind, from, to);
  return { head: null, text: b ? `no ${role} yet: the best, ${headName(b.layer, b.head)}, scores ${f(b.score)} (a head is called one from ${threshold})` : `no ${role}` };
}

/** The roles `ablate` understands: the score each looks at (in the layers ROLE_LAYERS allows). */
export const HEAD_ROLES = Object.freeze({
  induction: { kind: 'induction' },
  'previous-token': { kind: 'prev' },
  reverse: { kind: 'reverse' },
});

/**
 * The `ablate` attribute → flat head indices (layer·heads + head), sorted: a list (spaces or commas) of
 * head names (`L1H0`) and roles (HEAD_ROLES: `induction` — the head with the best induction score from
 * layer 1 on; `previous-token` — layer 0's best previous-token head; `reverse`; a model that cannot
 * have the role, a 1-layer model's induction head, is an error), the roles found in
 * `heads` (the scores of the snapshot shown), so a deck names what a head does, not where one run put it.
 *   → { ablated, error } (error: '' or what is wrong, naming the attribute)
 */
export function resolveHeads(spec, heads) {
  const { layers, heads: H } = headShape(heads);
  const out = new Set();
  for (const word of String(spec ?? '').split(/[\s,]+/).filter(Boolean)) {
    const named = /^L(\d+)H(\d+)$/.exec(word);
    if (named) {
      const [l, h] = [Number(named[1]), Number(named[2])];
      if (!layers) continue;  // scores not there yet: resolved again when they are
      if (l >= layers || h >= H) return { ablated: [], error: `ablate names ${word}, expected a head of this model (L0H0 … L${layers - 1}H${H - 1})` };
      out.add(l * H + h);
      continue;
    }
    const role = HEAD_ROLES[word];
    if (!role) return { ablated: [], error: `ablate holds "${word}", expected head names (L1H0) or roles: ${Object.keys(HEAD_ROLES).join(', ')}` };
    if (!layers) continue;
    if (!rolePossible(role.kind, layers)) return { ablated: [], error: `ablate holds "${word}", but a ${layers}-layer model has no ${ROLE_TEXT[role.kind]} (it needs a previous-token head in an earlier layer)` };
    const [from, to] = ROLE_LAYERS[role.kind];
    const b = bestHead(heads, role.kind, from, to);
    if (b) out.add(b.layer * H + b.head);
  }
  return { ablated: [...out].sort((a, b) => a - b), error: '' };
}

/**
 * What slide stage `stage` shows, from a list of snapshots ({ step, evalLoss, heads }, in step order):
 *   0 untrained: the first snapshot;
 *   1 loss falls: the first snapshot whose held-out loss is at most halfway from the first to the last;
 *   2 previous-token head: the first snapshot where layer 0's best previous-token score reaches 80 % of
 *     the highest it ever reaches — that head highlighted if it is one (roleHead: score ≥ ROLE_THRESHOLD);
 *   3 induction head: the last snapshot, its induction head highlighted (roleHead: layers ≥ 1, score ≥
 *     ROLE_THRESHOLD; none in a one-layer model); with `final: 'reverse'` (the reverse task) its
 *     anti-diagonal head.
 * Returns { index, focus: { layer, head, kind } | null, emphasis: 'maps' | 'loss' | 'prev' | 'induction' | 'reverse',
 * found }, found (stages 2 and 3): whether the stage's head exists (a stage strip lights it only then);
 * or null when there is no snapshot.
 */
export function stageView(snapshots, stage, { final = 'induction' } = {}) {
  const n = snapshots?.length ?? 0;
  if (!n) return null;
  const s = Math.max(0, Math.min(3, stage ?? 3));
  if (s === 0) return { index: 0, focus: null, emphasis: 'maps' };
  if (s === 1) {
    const first = snapshots[0].evalLoss, last = snapshots[n - 1].evalLoss;
    let index = n - 1;
    if (Number.isFinite(first) && Number.isFinite(last)) {
      const half = (first + last) / 2;
      const k = snapshots.findIndex((x) => Number.isFinite(x.evalLoss) && x.evalLoss <= half);
      if (k >= 0) index = k;
    }
    return { index, focus: null, emphasis: 'loss' };
  }
  if (s === 2) {
    const best = snapshots.map((x) => bestHead(x.heads, 'prev', 0, 0));
    const top = Math.max(...best.map((b) => b?.score ?? -Infinity));
    let index = n - 1;
    if (Number.isFinite(top)) {
      const k = best.findIndex((b) => b && b.score >= 0.8 * top);
      if (k >= 0) index = k;
    }
    const b = roleHead(snapshots[index].heads, 'prev');
    return { index, focus: b ? { layer: b.layer, head: b.head, kind: 'prev' } : null, emphasis: 'prev', found: !!b };
  }
  const b = roleHead(snapshots[n - 1].heads, final);
  return { index: n - 1, focus: b ? { layer: b.layer, head: b.head, kind: final } : null, emphasis: final, found: !!b };
}

/**
 * The stage a model's evaluation has reached, by thresholds that can be read while it trains (the stage
 * strip's, and where a live run or a replay pauses with `stage-pauses`): `entry` is a history entry or
 * snapshot ({ evalLoss, heads }), `firstLoss` the untrained model's held-out loss (the run's first
 * evaluation).
 *   3 induction head: a head of layer 1 or later scores ≥ ROLE_THRESHOLDS.induction (roleHead; with
 *     `final: 'reverse'` an anti-diagonal head, ≥ ROLE_THRESHOLDS.reverse);
 *   2 previous-token head: a layer-0 head scores ≥ ROLE_THRESHOLDS.prev;
 *   1 loss falls: the held-out loss is LOSS_FALL (¾) of the untrained model's or less — off the plateau
 *     (the pretrained run: 3.25 at step 0, 2.64–2.75 on the plateau, 2.33 at step 1,000);
 *   0 untrained: none of these.
 * Returns { stage, why } (why: the number that crossed its threshold, in words; '' at 0).
 */
export const LOSS_FALL = 0.75;
export function reachedStage(entry, firstLoss, { final = 'induction' } = {}) {
  const f = (x) => x.toFixed(2);
  const fin = roleHead(entry?.heads, final);
  if (fin) return { stage: 3, why: `${headName(fin.layer, fin.head)}’s ${final === 'reverse' ? 'anti-diagonal' : 'induction'} score reached ${f(fin.score)} (≥ ${thresholdOf(final)})` };
  const prev = roleHead(entry?.heads, 'prev');
  if (prev) return { stage: 2, why: `${headName(prev.layer, prev.head)}’s previous-token score reached ${f(prev.score)} (≥ ${thresholdOf('prev')})` };
  const l = entry?.evalLoss;
  if (Number.isFinite(l) && Number.isFinite(firstLoss) && l <= LOSS_FALL * firstLoss)
    return { stage: 1, why: `the held-out loss fell to ${f(l)}, ≤ ¾ of the untrained ${f(firstLoss)}` };
  return { stage: 0, why: '' };
}

/**
 * What a deck's stage shows of a live run (the rule for a click after "train live"): the run's own
 * stages by reachedStage's thresholds, never a stage it has not reached.
 *   0: its first snapshot (step 0);
 *   1, 2: the first snapshot that reached the stage; else its current weights (index null) — the first
 *     to reach it, or, when the run has not reached it yet, what it is now (found false);
 *   3: its current weights (the run as trained so far; found: they have the head).
 * `snapshots` ({ step, evalLoss, heads }, step order), `now` the latest evaluation, `firstLoss` the
 * untrained loss. Returns { index, focus, emphasis, found, reached } like stageView (index null: now).
 */
export function liveStageView(snapshots, now, stage, { final = 'induction', firstLoss } = {}) {
  const s = Math.max(0, Math.min(3, stage ?? 3));
  const emphasis = ['maps', 'loss', 'prev', final][s];
  const reach = (x) => reachedStage(x, firstLoss, { final }).stage;
  const nowReached = now ? reach(now) : 0;
  let index = null;
  if (s === 0 && snapshots?.length) index = 0;
  else if (s === 1 || s === 2) {
    const k = (snapshots ?? []).findIndex((x) => reach(x) >= s);
    if (k >= 0) index = k;
  }
  const entry = index === null ? now : snapshots[index];
  const found = s === 0 || (index === null ? nowReached >= s : true);
  const kind = s === 2 ? 'prev' : s === 3 ? final : null;
  const b = kind ? roleHead(entry?.heads, kind) : null;
  return { index, focus: b ? { layer: b.layer, head: b.head, kind } : null, emphasis, found, reached: index === null ? nowReached : reach(entry) };
}

/** Every `k`-th point of a long history (and always the last), so a plot stays a few hundred points. */
export function thin(list, maxPoints = 400) {
  const n = list?.length ?? 0;
  if (n <= maxPoints) return list ?? [];
  const k = Math.ceil(n / maxPoints), out = [];
  for (let i = 0; i < n; i += k) out.push(list[i]);
  if (out[out.length - 1] !== list[n - 1]) out.push(list[n - 1]);
  return out;
}

const pts = (list, key) => list.filter((r) => Number.isFinite(r?.[key])).map((r) => [r.step, r[key]]);

/** One colour per meaning in the loss plot (Okabe–Ito). */
export const LOSS_COLORS = { loss: '#8c959f', evalLoss: '#0072b2', firstHalfLoss: '#e69f00', repeatedLoss: '#009e73', ratio: '#cc79a7' };

/**
 * The loss plot's series from a history ([{ step, loss, evalLoss, firstHalfLoss, repeatedLoss }]):
 * train loss (smoothed, as the trainer reports it), held-out loss and, for induction, the held-out
 * loss on the first and on the repeated half. Series with no point are left out.
 */
export function lossSeries(history, task) {
  const h = thin(history);
  const defs = [
    ['loss', 'train loss', null], ['evalLoss', 'held-out loss', null],
    ...(task === 'induction' ? [['firstHalfLoss', 'first half', '6 3'], ['repeatedLoss', 'repeated half', null]] : []),
  ];
  return defs.map(([key, label, dash]) => ({ key, label, color: LOSS_COLORS[key], dash, points: pts(h, key) })).filter((s) => s.points.length);
}

/** The induction task's ratio: repeated-half loss / first-half loss, as the trainer reports it. */
export function ratioSeries(history) {
  const p = pts(thin(history), 'ratio');
  return p.length ? [{ key: 'ratio', label: 'repeated / first-half loss', color: LOSS_COLORS.ratio, points: p }] : [];
}

/** Head colours: one per head index (Okabe–Ito); layers differ by dash. */
export const HEAD_COLORS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#000000', '#999999'];
export const LAYER_DASH = [null, '7 4', '2 3', '10 3 2 3'];

/**
 * Per-head score curves over steps: one series per head (`kind` 'prev' | 'induction'), coloured by
 * head, dashed by layer. With `focus` ({ layer, head }) the other heads are drawn grey so that one stands out.
 */
export function scoreSeries(history, kind, focus = null) {
  const h = thin(history).filter((r) => r?.heads);
  const { layers, heads } = headShape(h[h.length - 1]?.heads);
  const out = [];
  for (let l = 0; l < layers; l++) {
    for (let j = 0; j < heads; j++) {
      const points = h.filter((r) => Number.isFinite(r.heads[l]?.[j]?.[kind])).map((r) => [r.step, r.heads[l][j][kind]]);
      const isFocus = focus && focus.layer === l && focus.head === j;
      const color = focus && !isFocus ? '#c4cad0' : HEAD_COLORS[j % HEAD_COLORS.length];
      // The highlighted head solid whatever its layer: it is the line to follow.
      out.push({ key: headName(l, j), label: headName(l, j), layer: l, head: j, color, dash: isFocus ? null : LAYER_DASH[l % LAYER_DASH.length], points, focus: !!isFocus });
    }
  }
  // The highlighted head drawn last: on top of the grey ones.
  return focus ? [...out.filter((s) => !s.focus), ...out.filter((s) => s.focus)] : out;
}

/** [min, max] of every y in `series` (a plot's domain shared with a marker line), padded a little. */
export function yRange(series, { floor = null } = {}) {
  let lo = Infinity, hi = -Infinity;
  for (const s of series) for (const [, y] of s.points) { lo = Math.min(lo, y); hi = Math.max(hi, y); }
  if (!Number.isFinite(lo)) return [0, 1];
  if (floor !== null) lo = Math.min(lo, floor);
  if (hi - lo < 1e-9) hi = lo + 1;
  const pad = (hi - lo) * 0.06;
  return [floor !== null && lo === floor ? lo : lo - pad, hi + pad];
}

/**
 * The eval sequence's predictions beside the next token: rows for a table, one per position scored:
 * { pos, token, next, pred, predAblated, right, rightAblated }. The next token is the inspect result's
 * `targets[i]` (every position, the last one too), else ids[i + 1]. `decode(id)` names a token; ids the
 * decoder does not know are written "#id". Only positions from `from` on (induction: the repeated half).
 */
export function predictionRows(base, ablated, decode, from = 0) {
  if (!base?.ids) return [];
  const ids = base.ids, targets = base.targets, name = (id) => decode?.(id) ?? `#${id}`;
  const end = targets?.length === ids.length ? ids.length : ids.length - 1;
  const rows = [];
  for (let i = Math.max(0, from); i < end; i++) {
    const next = targets ? targets[i] : ids[i + 1], p = base.predictions?.[i], q = ablated?.predictions?.[i];
    rows.push({ pos: i, token: base.tokens?.[i] ?? name(ids[i]), next: i + 1 < ids.length && next === ids[i + 1] ? base.tokens?.[i + 1] ?? name(next) : name(next),
      pred: name(p), predAblated: ablated ? name(q) : null, right: p === next, rightAblated: ablated ? q === next : null });
  }
  return rows;
}

/**
 * Where a task's predictions are scored on the held-out sequence: induction, the repeated half (from the
 * middle); reverse, the reversed half (the inspect result's `answer` mask: the first half is random
 * digits no model can predict); names, every position.
 */
export function scoredFrom(task, base) {
  if (!base?.ids) return 0;
  if (task === 'induction') return Math.floor((base.ids.length - 1) / 2);
  if (task === 'reverse') {
    const k = base.answer ? Array.prototype.indexOf.call(base.answer, 1) : -1;
    return k >= 0 ? k : Math.floor(base.ids.length / 2);
  }
  return 0;
}

/** Colours of the per-position loss: with every head, and without the heads switched off. */
export const TOKEN_LOSS_COLORS = { base: '#0072b2', ablated: '#d55e00' };

/**
 * The per-position loss on the held-out sequence (inspect's tokenLosses: the loss of predicting the
 * token after position i), with every head and without the heads switched off (`ablated`, an inspect
 * result with a head mask, or null): series for plot(), x = position. `from`: the first position the
 * task scores (induction: the repeated half), drawn as a dashed line at x = from − 0.5 (0: none).
 * `offLabel`: what the second series is called ("without L1H0").
 */
export function tokenLossSeries(base, ablated, { from = 0, offLabel = 'without the heads switched off' } = {}) {
  const tl = base?.tokenLosses;
  if (!tl?.length) return [];
  const pts = (a) => Array.from(a, (y, i) => [i, y]).filter(([, y]) => Number.isFinite(y));
  const out = [{ key: 'base', label: 'every head', color: TOKEN_LOSS_COLORS.base, points: pts(tl) }];
  if (ablated?.tokenLosses?.length === tl.length) out.push({ key: 'ablated', label: offLabel, color: TOKEN_LOSS_COLORS.ablated, dash: '6 3', points: pts(ablated.tokenLosses) });
  if (from > 0) {
    const top = Math.max(...out.flatMap((x) => x.points.map(([, y]) => y)), 0);
    out.push({ key: 'from', label: 'scored from here', color: '#8c959f', dash: '2 3', points: [[from - 0.5, 0], [from - 0.5, top]] });
  }
  return out;
}

/** The mean of tokenLosses over positions from `from` on (the half the task scores). */
export function meanFrom(tokenLosses, from = 0) {
  if (!tokenLosses?.length) return NaN;
  let s = 0, n = 0;
  for (let i = Math.max(0, from); i < tokenLosses.length; i++) if (Number.isFinite(tokenLosses[i])) { s += tokenLosses[i]; n++; }
  return n ? s / n : NaN;
}

/** A decoder for token ids from an inspect result's ids and their decoded tokens (the eval sequence's own vocabulary). */
export function decoderFrom(inspect, decode = null) {
  const map = new Map();
  if (inspect?.ids && inspect?.tokens) for (let i = 0; i < inspect.ids.length; i++) map.set(inspect.ids[i], inspect.tokens[i]);
  return (id) => (decode ? decode(id) : undefined) ?? map.get(id);
}

/** Clamps a snapshot index to [0, n − 1] (null when there are none). */
export function clampIndex(i, n) {
  if (!n) return null;
  if (!Number.isFinite(i)) return n - 1;
  return Math.max(0, Math.min(n - 1, Math.trunc(i)));
}

/** A history entry from a trainer progress event's detail (the fields the plots read). */
export function historyEntry(d) {
  return { step: d.step, loss: d.loss, evalLoss: d.evalLoss, firstHalfLoss: d.firstHalfLoss, repeatedLoss: d.repeatedLoss, ratio: d.ratio, heads: d.heads };
}

/**
 * A live training run seen from the widget: listens to a trainer (createTrainer's events, see
 * web/train/trainer.js), keeps the history the plots read (one entry per progress event), the
 * snapshots, running / step / speed and the last error, and calls `onChange()` after each of them.
 * `target` (steps): the run pauses itself there (the progress bar's end).
 */
export class LiveRun {
  constructor(trainer, { onChange = () => {}, target = Infinity } = {}) {
    this.trainer = trainer;
    this.onChange = onChange;
    this.target = target;
    this.rate = Infinity;  // steps a second while it trains on its own (start; see SPEEDS)
    this._history = [];
    this.snapshots = [...(trainer.snapshots ?? [])];
    this.running = !!trainer.running;
    this.step = trainer.stepCount ?? 0;
    this.speed = null;
    this.error = '';
    this.last = this.history[this.history.length - 1] ?? null;
    this.disposed = false;
    this._on = {
      progress: (e) => {
        const d = e.detail ?? {};
        // A trainer without a history of its own: keep one from the evaluations the event carries.
        if (!Array.isArray(this.trainer.history)) {
          const points = Array.isArray(d.lossHistory) ? d.lossHistory : [d];
          for (const p of points) {
            if (this._history.length && p.step < this._history[this._history.length - 1].step) this._history = [];  // a reset
            if (!this._history.length || p.step > this._history[this._history.length - 1].step) this._history.push(historyEntry(p));
          }
        }
        this.last = { ...historyEntry(d), loss: d.loss };
        this.step = d.step ?? this.step;
        if (Number.isFinite(d.tokensPerSec) || Number.isFinite(d.stepsPerSec)) this.speed = { tokensPerSec: d.tokensPerSec, stepsPerSec: d.stepsPerSec };
        // The trainer stops itself at the target (start({ until })); one that went past it is paused here.
        if (this.running && this.step >= this.target) this.trainer.pause();
        this.onChange('progress');
      },
      snapshot: (e) => {
        const d = e.detail ?? {};
        this.snapshots = [...(this.trainer.snapshots ?? this.snapshots)];
        if (!this.snapshots.some((s) => s.index === d.index)) this.snapshots.push(d);
        this.onChange('snapshot');
      },
      state: (e) => {
        const d = e.detail ?? {};
        this.running = !!d.running;
        if (Number.isFinite(d.step)) this.step = d.step;
        if (this.running) this.error = '';
        this.onChange('state');
      },
      error: (e) => {
        this.error = e.detail?.message ?? String(e.detail ?? 'training failed');
        this.running = false;
        this.snapshots = [...(this.trainer.snapshots ?? this.snapshots)];
        this.onChange('error');
      },
    };
    for (const [type, fn] of Object.entries(this._on)) trainer.addEventListener(type, fn);
  }

  /** One entry per held-out evaluation: [{ step, loss, evalLoss, firstHalfLoss, repeatedLoss, ratio, heads }]. */
  get history() {
    return Array.isArray(this.trainer.history) ? this.trainer.history : this._history;
  }

  /**
   * Trains until `target` steps (the trainer stops there itself: exactly at the target), at `rate` steps
   * a second. Called while it trains: the new rate (or target) from the step it is at.
   */
  start() {
    this.error = '';
    const o = {};
    if (Number.isFinite(this.target)) o.until = this.target;
    if (this.rate < Infinity) o.rate = this.rate;
    this.trainer.start(o);
  }
  pause() { this.trainer.pause(); }

  async step1(n = 1) {
    await this.trainer.step(n);
    this.step = this.trainer.stepCount ?? this.step;
    this.onChange('step');
  }

  async reset(options) {
    await this.trainer.reset(options);
    this._history = [];
    this.snapshots = [...(this.trainer.snapshots ?? [])];
    this.step = this.trainer.stepCount ?? 0;
    this.last = null;
    this.error = '';
    this.onChange('reset');
  }

  /** Stops listening and ends the trainer (its worker). */
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    for (const [type, fn] of Object.entries(this._on)) this.trainer.removeEventListener(type, fn);
    this.trainer.terminate?.();
  }
}

/** A replay's pace: one snapshot every REPLAY_MS (about two a second). */
export const REPLAY_MS = 500;

/**
 * Walks snapshots 0 … n − 1 at one per `interval` ms: `show(index)` is asked for each; the next comes
 * only once `ready()` says the one shown is drawn (its maps: curves and maps move together, however long
 * a map takes), checked every `poll` ms. `done()` at the end or on stop(). `pauseAt(index)` true: the
 * replay holds on that snapshot once it is drawn (a stage boundary), tells `paused(index)`, and goes on
 * at resume(). `schedule`/`cancel`:
 * setTimeout/clearTimeout (a test passes its own clock).
 */
export class Replay {
  constructor({ n, show, ready = () => true, done = () => {}, pauseAt = () => false, paused = () => {}, interval = REPLAY_MS, poll = 50,
    schedule = (fn, ms) => setTimeout(fn, ms), cancel = (id) => clearTimeout(id) }) {
    Object.assign(this, { n, show, ready, done, pauseAt, paused, interval, poll, schedule, cancel });
    this.index = -1;
    this.timer = null;
    this.running = false;
    this.holding = false;  // paused at a stage boundary (pauseAt): resume() goes on from the next
  }

  /** After a pause at a boundary: the next snapshot, and on at the same pace. */
  resume() {
    if (!this.holding) return;
    this.holding = false;
    if (this.index >= this.n - 1) return this.stop();
    this.running = true;
    this.index++;
    this.show(this.index);
    this.#wait(this.interval);
  }

  start(from = 0) {
    this.stop({ quiet: true });
    if (!(this.n > 0)) return;
    this.running = true;
    this.index = Math.max(0, Math.min(this.n - 1, from));
    this.show(this.index);
    this.#wait(this.interval);
  }

  #wait(ms) {
    this.timer = this.schedule(() => this.#tick(), ms);
  }

  #tick() {
    this.timer = null;
    if (!this.running) return;
    if (!this.ready()) return this.#wait(this.poll);
    // A stage boundary (pauseAt): held on this snapshot, once it is drawn, until resume().
    if (this.pauseAt(this.index)) {
      this.running = false;
      this.holding = true;
      this.paused(this.index);
      return;
    }
    if (this.index >= this.n - 1) return this.stop();
    this.index++;
    this.show(this.index);
    this.#wait(this.interval);
  }

  stop({ quiet = false } = {}) {
    if (this.timer !== null) this.cancel(this.timer);
    this.timer = null;
    const was = this.running || this.holding;
    this.running = false;
    this.holding = false;
    if (was && !quiet) this.done();
  }
}

/**
 * Runs `fn(request)` one at a time: while one runs, later requests wait and only the newest of them
 * runs next (a training run asks for a new picture on every progress event; the pictures must not pile
 * up). `done(result, request)` gets each result, `fail(error, request)` each error.
 */
export function latestOnly(fn, done, fail = () => {}) {
  let busy = false, queued = null;
  const run = async (req) => {
    busy = true;
    try {
      done(await fn(req), req);
    } catch (e) {
      fail(e, req);
    } finally {
      busy = false;
      if (queued) {
        const next = queued.req;
        queued = null;
        run(next);
      }
    }
  };
  return (req) => {
    if (busy) queued = { req };
    else run(req);
  };
}

/**
 * Names task: the names in one generated text ('.'-separated), as <attn-train> shows them — the last
 * piece left out unless the text ends with '.', so no name cut off mid-way; at most `max`.
 */
export function namesOfSample(text, max = 8) {
  const parts = String(text).split('.');
  if (!String(text).endsWith('.')) parts.pop();
  return parts.map((x) => x.trim()).filter(Boolean).slice(0, max);
}

/** The draw <attn-train> makes from each snapshot of a names run (trainer.sample's options). */
export const NAMES_SAMPLE = Object.freeze({ steps: 48, temperature: 0.8 });

/**
 * The names slide's samples panel: the sample of the snapshot at or before `step` (`now`, drawn large)
 * and up to `previous` earlier ones (`before`, oldest first) from `samples` ([{ step, names }] in step
 * order). The earlier ones are the snapshots just before while there are few (a run that has just
 * begun: its last ones), spread from the first on as a cube when there are many (step 3000 of a
 * run snapshotted every 100: steps 0, 100, 900; most of a names run's change is early), so the way from gibberish to names stays in view.
 * { now: entry | null, before: [entry] }.
 */
export function samplesPanel(samples, step, previous = 3) {
  const list = samples ?? [];
  let at = -1;
  list.forEach((x, i) => { if (x.step <= step) at = i; });
  if (at < 0) return { now: null, before: [] };
  if (at <= previous) return { now: list[at], before: list.slice(0, at) };
  const picks = [];
  for (let k = 0; k < previous; k++) {
    const i = Math.round(at * (k / previous) ** 3);
    picks.push(Math.min(at - previous + k, Math.max(k ? picks[k - 1] + 1 : 0, i)));
  }
  return { now: list[at], before: picks.map((i) => list[i]) };
}
