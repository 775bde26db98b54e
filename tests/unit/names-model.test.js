// attnlab's shipped names model (web/train/pretrained/names/, written by tools/pretrain_names.cc): a
// character GPT of the names list that <attn-model> offers beside the induction model. It loads, reads
// the names task's vocabulary, predicts held-out names (never trained on) far better than the uniform
// ln 27, generates the same names for the same seed, and its samples are name-like strings of a–z.
// Then the same model through <attn-model>'s session (engine on this thread): its tokens, the grid's
// scores, the lens, and a sampled name.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { loadPretrained, openPretrained, tasks } from '../../web/train/index.js';
import { ModelSession } from '../../web/widgets/model/session.js';

let lab, pre, task, names;
beforeAll(async () => {
  lab = await createAttnLab();
  pre = await loadPretrained('names');
  task = await tasks.loadTask('names', pre.meta.taskOptions);
  names = new Set(readFileSync(new URL('../../web/train/data/names.txt', import.meta.url), 'utf8').split('\n').filter(Boolean));
});

/** n names sampled from '.' at temperature 1 with `seed` (one generate call: the names split at '.'). */
function sample(model, seed, steps = 400) {
  const ids = model.generate({ prompt: [task.delimiter], steps, temperature: 1, seed });
  return { ids, names: task.split(ids).slice(0, -1) };  // the last may be cut off by `steps`
}

describe('the shipped names model', () => {
  test('index.json: the names task with its recorded options, snapshots in step order, the last one a loadable model of the task’s vocabulary', () => {
    expect(pre.meta.task).toBe('names');
    expect(pre.snapshots.length).toBeGreaterThanOrEqual(2);
    const steps = pre.snapshots.map((s) => s.step);
    expect(steps[0]).toBe(0);
    expect(steps).toEqual(steps.slice().sort((a, b) => a - b));
    const bytes = pre.snapshots.reduce((n, s) => n + s.bytes.length, 0);
    expect(bytes).toBeLessThan(400 * 1024);  // shipped with the package: a few hundred KB at most
    const model = lab.loadModel(pre.snapshots.at(-1).bytes);
    try {
      expect(model.config.vocab).toBe(task.vocab);
      expect(model.config.context).toBe(task.context);
      expect(model.config.layers * model.config.heads).toBeGreaterThan(1);  // a grid of heads to look at
    } finally { model.dispose(); }
  });

  test('held-out names (never trained on): loss far below the uniform ln 27, falling over the run, as the native run measured it', async () => {
    const open = await openPretrained('names', { lab });
    const losses = open.snapshots.map((s) => s.evalLoss);
    const uniform = Math.log(task.vocab);
    expect(losses[0]).toBeCloseTo(uniform, 1);          // step 0: no better than guessing
    expect(losses.at(-1)).toBeLessThan(0.7 * uniform);  // trained: well below it
    for (let i = 1; i < losses.length; i++) expect(losses[i]).toBeLessThan(losses[i - 1]);
    // The page measures what the native run wrote in index.json (the same held-out batch).
    open.snapshots.forEach((s, i) => expect(s.evalLoss).toBeCloseTo(pre.snapshots[i].evalLoss, 4));
    // The held-out windows are made only of names outside training.
    const train = new Set(task.trainNames);
    expect(task.heldOutNames.some((n) => train.has(n))).toBe(false);
    console.log(`names model: held-out loss ${losses.map((l) => l.toFixed(3)).join(' → ')} (uniform ln ${task.vocab} = ${uniform.toFixed(3)})`);
  });

  test('sampling: the same seed gives the same names, another seed others; samples are name-like strings of the vocabulary', () => {
    const model = lab.loadModel(pre.snapshots.at(-1).bytes);
    const untrained = lab.loadModel(pre.snapshots[0].bytes);
    try {
      const a = sample(model, 7), b = sample(model, 7), c = sample(model, 8);
      expect(Array.from(a.ids)).toEqual(Array.from(b.ids));
      expect(Array.from(a.ids)).not.toEqual(Array.from(c.ids));
      for (const id of a.ids) expect(id >= 0 && id < task.vocab).toBe(true);
      const all = [1, 2, 3, 4, 5].flatMap((seed) => sample(model, seed).names);
      const rnd = [1, 2, 3, 4, 5].flatMap((seed) => sample(untrained, seed).names);
      expect(all.length).toBeGreaterThan(50);
      for (const n of all) expect(n).toMatch(/^[a-z]+$/);
      // Name-like: lengths of first names (the list's mean is 6.1), nearly every one with a vowel, and a
      // good share of them real first names — none of which the untrained model (step 0) manages.
      const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
      const meanLen = mean(all.map((n) => n.length));
      expect(meanLen).toBeGreaterThan(4);
      expect(meanLen).toBeLessThan(9);
      expect(mean(all.map((n) => (/[aeiouy]/.test(n) ? 1 : 0)))).toBeGreaterThan(0.95);
      const real = mean(all.map((n) => (names.has(n) ? 1 : 0)));
      const realUntrained = mean(rnd.map((n) => (names.has(n) ? 1 : 0)));
      expect(real).toBeGreaterThan(0.08);
      expect(real).toBeGreaterThan(realUntrained + 0.05);
      console.log(`names model samples (seed 1): ${sample(model, 1).names.slice(0, 12).join(' ')}; ${(100 * real).toFixed(0)} % of ${all.length} are in the list (step 0: ${(100 * realUntrained).toFixed(0)} %)`);
    } finally { model.dispose(); untrained.dispose(); }
  });
});

describe('<attn-model>’s session on the names model', () => {
  const host = () => ({ requestUpdate() {} });

  test('its tokens are the names task’s characters; every head has a map and scores; the lens reads letters; a sampled name, the same for the same seed', async () => {
    const s = new ModelSession(host(), { lab, seed: 3 });
    await s.loadShipped('names');
    expect(s.status).toBe('ready');
    expect(s.source).toEqual({ kind: 'shipped', name: 'attnlab’s names model', task: 'names' });
    expect(s.tokenizer.kind).toBe('names');
    expect(s.tokenizer.sampled).toBe(true);
    await s.setText('Emma Olivia');
    expect(s.labels).toEqual(Array.from('.emma.olivia'));
    expect(s.ids).toEqual(Array.from(task.encode('.emma.olivia')));
    const { layers, heads } = s.config;
    expect(s.base.attention.length).toBe(layers);
    expect(s.scores.length).toBe(layers);
    expect(s.scores[0].length).toBe(heads);
    const t = s.ids.length;
    for (const row of s.base.attention) for (const att of row) expect(att.length).toBe(t * t);
    // The list's commonest continuations are the model's top next letters: ".michae" → l, ".emm" → a.
    await s.setText('.emma.michae');
    expect(s.dist.topLabel).toBe('l');
    if (s.lens) {
      expect(s.lens.layers.length).toBe(layers + 1);
      expect(s.lens.layers.at(-1).labels[0]).toBe('l');
    }
    await s.setText('.emm');
    expect(s.dist.topLabel).toBe('a');
    // Generation from the prompt: one sampled name, ended by '.', only letters before it.
    await s.setText('.emma.olivia.');
    const made = await s.generateUntil(0);
    expect(made.at(-1)).toBe(0);
    const name = task.decode(made.slice(0, -1));
    expect(name).toMatch(/^[a-z]+$/);
    expect(s.gen.labels.slice(s.gen.prompt.length).join('')).toBe(`${name}.`);
    // Another session with the same seed samples the same name; back to the prompt moves to the next seed.
    const s2 = new ModelSession(host(), { lab, seed: 3 });
    await s2.loadShipped('names');
    await s2.setText('.emma.olivia.');
    expect(await s2.generateUntil(0)).toEqual(made);
    s2.resetGeneration();
    expect(s2.genSeed).toBe(4);
    console.log(`session sample after ".emma.olivia.": ${name}`);
  });
});
