// The two engines of the GPT-2 benches (bench/gpt2.bench.mjs, bench/gpt2-ab.mjs), run the same way:
// the 64-token prompt's forward and greedy generation timed per token, wall and CPU.

// CPU time of this process (user + system, ms): on a shared machine a call's wall time includes the
// time other processes held the core; its CPU time does not.
export const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

// An attnlab model: forward = the prompt with every attention map; generate(steps) = greedy tokens
// and the time per token after the first (the prefill, timed alone and taken off).
export function attnlabRun(model, ids) {
  return {
    forward: () => model.forward({ ids, attention: true }),
    generate(steps) {
      let a = performance.now(), c = cpu();
      model.generate({ prompt: ids, steps: 1, temperature: 0 });
      const one = performance.now() - a, oneCpu = cpu() - c;
      a = performance.now(), c = cpu();
      const toks = model.generate({ prompt: ids, steps, temperature: 0 });
      return { toks: Array.from(toks), perToken: (performance.now() - a - one) / Math.max(1, steps - 1),
        perTokenCpu: (cpu() - c - oneCpu) / Math.max(1, steps - 1) };
    },
  };
}

// An onnxruntime-web session of bench/gpt2-onnx.mjs's graph: forward = the prompt (an empty past);
// generate(steps) = the prompt, then one row per token with the presents fed back.
export function onnxRun(ort, session, sizes, ids) {
  const { layers: L, heads: H, d: D, vocab: V } = sizes, dk = D / H, T = ids.length;
  const empty = new ort.Tensor('float32', new Float32Array(0), [H, 0, dk]);
  const feeds = (tok, past, pastLen) => {
    const n = tok.length, f = {
      ids: new ort.Tensor('int64', BigInt64Array.from(tok, BigInt), [n]),
      pos: new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(pastLen + i)), [n]),
      mask: new ort.Tensor('float32', Float32Array.from({ length: n * (pastLen + n) }, (_, j) => (j % (pastLen + n) <= pastLen + Math.floor(j / (pastLen + n)) ? 0 : -1e9)), [n, pastLen + n]) };
    for (let l = 0; l < L; l++) {
      f[`past_k_${l}`] = past ? past[`present_k_${l}`] : empty;
      f[`past_v_${l}`] = past ? past[`present_v_${l}`] : empty;
    }
    return f;
  };
  const argmaxLast = (logits, n) => {
    const row = logits.subarray((n - 1) * V, n * V);
    let b = 0;
    for (let i = 1; i < V; i++) if (row[i] > row[b]) b = i;
    return b;
  };
  return {
    forward: () => session.run(feeds(ids, null, 0)),
    async generate(steps) {
      let out = await session.run(feeds(ids, null, 0));
      const toks = [argmaxLast(out.logits.data, T)];
      const t0 = performance.now(), c0 = cpu();
      for (let i = 1; i < steps; i++) {
        out = await session.run(feeds([toks.at(-1)], out, T + i - 1));
        toks.push(argmaxLast(out.logits.data, 1));
      }
      return { toks, perToken: (performance.now() - t0) / Math.max(1, steps - 1), perTokenCpu: (cpu() - c0) / Math.max(1, steps - 1) };
    },
  };
}
