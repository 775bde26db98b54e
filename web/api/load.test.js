// createAttnLab({ module }): the core compiled ahead (the app page starts WebAssembly.compileStreaming
// while it loads, web/app/vite.config.js) is instantiated without fetching or compiling again, and
// without waiting for a task: widgets/shared/lazy.js draws the first widget in the task that made it.
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from './index.js';

let compiled, reference;
const call = { q: [1, 0, 0.5, 2], k: [0.3, -1, 1, 0.25], v: [1, 2, 3, 4], tq: 2, tk: 2, dk: 2, dv: 2 };
beforeAll(async () => {
  compiled = await WebAssembly.compile(await readFile(new URL('./wasm/attnlab-core.wasm', import.meta.url)));
  reference = (await createAttnLab()).attention(call);
});

describe('createAttnLab with a compiled module', () => {
  test('a WebAssembly.Module: the same results as a lab that loaded the core itself, ready before the next task', async () => {
    let task = false;
    setTimeout(() => { task = true; }, 0);
    const lab = await createAttnLab({ module: compiled });
    expect(task).toBe(false);  // resolved in microtasks: no fetch, no asynchronous compile or instantiate
    const r = lab.attention(call);
    expect(Array.from(r.weights)).toEqual(Array.from(reference.weights));
    expect(Array.from(r.output)).toEqual(Array.from(reference.output));
    expect(lab.info().simd128).toBe(true);
  });

  test('a promise of one works too, and each call makes its own instance (own heap)', async () => {
    const a = await createAttnLab({ module: Promise.resolve(compiled) });
    const b = await createAttnLab({ module: compiled });
    expect(a.core.module.HEAPU8.buffer).not.toBe(b.core.module.HEAPU8.buffer);
    expect(Array.from(a.attention(call).output)).toEqual(Array.from(reference.output));
  });

  test('a compile that failed: the lab loads the core itself', async () => {
    const failed = Promise.reject(new Error('compileStreaming: wrong MIME type'));
    const lab = await createAttnLab({ module: failed });
    expect(Array.from(lab.attention(call).output)).toEqual(Array.from(reference.output));
  });
});
