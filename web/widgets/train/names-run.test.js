// The names slide's shipped run (names-run.js) is what make-names-run.mjs makes: a fresh run of its
// first 300 steps (4 snapshots, 13 evaluations) through the same seeded trainer gives the same losses
// (to the file's 4 decimals) and the same sampled names. The trainer is deterministic run to run on one
// machine (same seed, same WebAssembly core); a different CPU could differ in the last float bits.
import { expect, test } from 'vitest';
import { run, SIZE, SEED } from './make-names-run.mjs';
import shipped from './names-run.js';

test('a fresh seeded run reproduces the shipped names run’s first snapshots: losses and samples', async () => {
  expect(shipped.task).toBe('names');
  expect(shipped.size).toBe(SIZE);
  expect(shipped.seed).toBe(SEED);
  const r = await run(300);
  expect(r.snapshots.map((s) => s.step)).toEqual([0, 100, 200, 300]);
  expect(r.snapshots).toEqual(shipped.snapshots.slice(0, 4));
  expect(r.history).toEqual(shipped.history.filter((h) => h.step <= 300));
  // Samples, not placeholders: a–z names, and the loss falls from the untrained model's.
  for (const s of r.snapshots) for (const n of s.names) expect(n).toMatch(/^[a-z]+$/);
  expect(r.snapshots[3].evalLoss).toBeLessThan(r.snapshots[0].evalLoss - 0.5);
}, 180000);
