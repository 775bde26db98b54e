// start({ rate }): a run a person can watch. The trainer's loop (engine.js Host) on a clock of the
// test's own — sleep(ms) moves it on at once — so the steps a rate allows are counted, not timed.
import { expect, test } from 'vitest';
import { createAttnLab } from '../api/index.js';
import { Host } from './engine.js';
import { createTrainer } from './index.js';
import { resolveOptions } from './engine.js';

const options = { task: 'induction', model: { layers: 1, heads: 2, dModel: 32, attentionOnly: true, layerNorm: false, initStd: 0.25 }, batch: 2 };

test('start({ rate }) takes one step per 1/rate s of the clock; a new start changes the rate; step(n) is not limited', async () => {
  const lab = await createAttnLab();
  const clock = { t: 0, slept: 0, now: () => clock.t, sleep: async (ms) => { clock.t += ms; clock.slept += ms; clock.onSleep?.(); } };
  const host = new Host({ createLab: async () => lab, post: () => {}, clock });
  await host.receive({ op: 'init', config: resolveOptions(options) });
  // Until the clock reaches 1 s at 20 steps a second: steps 1…20 are due at 50, 100, …, 1000 ms.
  const ran = new Promise((ok) => { clock.onSleep = () => { if (clock.t >= 1000) { clock.onSleep = null; ok(); } }; });
  await host.receive({ op: 'start', seq: 1, until: 10000, rate: 20 });
  await ran;
  const a = host.engine.step;
  expect(a).toBeGreaterThanOrEqual(19);
  expect(a).toBeLessThanOrEqual(20);
  // 100 a second from here: 0.5 s more of the clock, 50 more steps.
  const t1 = clock.t;
  const ran2 = new Promise((ok) => { clock.onSleep = () => { if (clock.t >= t1 + 500) { clock.onSleep = null; ok(); } }; });
  await host.receive({ op: 'start', seq: 2, until: 10000, rate: 100 });
  await ran2;
  expect(host.engine.step - a).toBeGreaterThanOrEqual(49);
  expect(host.engine.step - a).toBeLessThanOrEqual(51);
  await host.receive({ op: 'pause', seq: 3 });
  // step(n) is not throttled: no sleep on the way.
  const before = host.engine.step, slept = clock.slept;
  await host.receive({ op: 'step', id: 1, seq: 3, n: 30 });
  expect(host.engine.step).toBe(before + 30);
  expect(clock.slept).toBe(slept);
  host.dispose();
}, 60000);

test('start refuses a rate that is not a positive number', async () => {
  const tr = await createTrainer({ ...options, worker: false });
  expect(() => tr.start({ rate: 0 })).toThrow('start: rate is 0, expected a positive number of steps a second (Infinity: as fast as possible)');
  expect(() => tr.start({ rate: 'fast' })).toThrow('start: rate is "fast"');
  tr.terminate();
});
