// loadPretrained's `snapshots` option: which checkpoint files are fetched. Run as a page runs it — the
// fetch() path (a `window` present), with fetch answering from the files on disk and recording each URL.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { readFile } from 'node:fs/promises';
import { loadPretrained } from './pretrained.js';

let fetched;
beforeEach(() => {
  fetched = [];
  vi.stubGlobal('window', {});
  vi.stubGlobal('fetch', async (url) => {
    fetched.push(String(url).replace(/^.*\/pretrained\//, ''));
    const bytes = await readFile(new URL(url));
    return new Response(bytes, { status: 200 });
  });
});
afterEach(() => vi.unstubAllGlobals());

const checkpoints = () => fetched.filter((f) => f.endsWith('.safetensors'));

describe('loadPretrained: which snapshots are fetched', () => {
  test("'last': index.json and the last checkpoint only (names: step-3000 of 0, 750, 3000)", async () => {
    const pre = await loadPretrained('names', { snapshots: 'last' });
    expect(fetched).toEqual(['names/index.json', 'names/step-3000.safetensors']);
    expect(pre.steps).toEqual([0, 750, 3000]);
    expect(pre.snapshots.map((s) => [s.step, s.index])).toEqual([[3000, 2]]);
    // The same bytes as the whole run's last snapshot.
    fetched = [];
    const all = await loadPretrained('names');
    expect(checkpoints()).toEqual(['names/step-0.safetensors', 'names/step-750.safetensors', 'names/step-3000.safetensors']);
    expect(all.snapshots.map((s) => s.index)).toEqual([0, 1, 2]);
    expect(Buffer.from(pre.snapshots[0].bytes).equals(Buffer.from(all.snapshots[2].bytes))).toBe(true);
    expect(pre.config).toEqual(all.config);
  });

  test('a list of steps fetches those; a step the run does not have and a bad option are refused', async () => {
    const pre = await loadPretrained('induction', { snapshots: [0, 2500] });
    expect(checkpoints()).toEqual(['induction/step-0.safetensors', 'induction/step-2500.safetensors']);
    expect(pre.snapshots.map((s) => s.step)).toEqual([0, 2500]);
    expect(pre.steps.length).toBe(17);
    expect(pre.snapshots[1].index).toBe(16);
    await expect(loadPretrained('names', { snapshots: [1] })).rejects.toThrow(/no snapshot at step 1, expected one of 0, 750, 3000/);
    await expect(loadPretrained('names', { snapshots: 'first' })).rejects.toThrow(/expected 'all', 'last' or a list of steps/);
    await expect(loadPretrained('names', { snapshot: 'last' })).rejects.toThrow(/unknown option 'snapshot'/);
  });
});
