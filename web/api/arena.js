// arena.js — the facade's WebAssembly memory: one growing heap block reused by every call. Inputs
// are copied in, the core computes there, results are copied out; nothing is allocated per call
// once the block is big enough.
import { fail } from './validate.js';

// The largest block one call may ask of WASM memory (which tops out at 2 GiB). Checked before
// allocating, so a too-large request is an Error, not an out-of-memory abort.
export const MAX_CALL_BYTES = 1024 * 1024 * 1024;

// One growing block of WASM heap reused by every call.
export class Arena {
  /** @param core the Core (web/api/core.js): malloc/free and the heap views */
  constructor(core) {
    this.core = core;
    this.module = core.module;
    this.ptr = 0;
    this.bytes = 0;
  }

  // Reserves 16-byte-aligned regions of the given float counts; returns their byte addresses.
  layout(fn, counts) {
    const offsets = new Array(counts.length);
    let total = 0;
    for (let i = 0; i < counts.length; i++) {
      offsets[i] = total;
      total += Math.ceil(counts[i] / 4) * 16;
    }
    if (!Number.isFinite(total) || total > MAX_CALL_BYTES)
      fail(fn, `these sizes need ${(total / 2 ** 20).toFixed(0)} MiB of WebAssembly memory, expected at most ${MAX_CALL_BYTES / 2 ** 20} MiB; use smaller sizes${fn === 'multiHeadAttention' ? ' or intermediates: false' : ''}`);
    if (total > this.bytes || (this.bytes > 64 * 2 ** 20 && total < this.bytes / 8)) {
      if (this.ptr) this.module._free(this.ptr);
      this.ptr = 0;
      this.bytes = 0;
      const want = Math.max(total, 4096);
      const p = this.module._malloc(want);
      if (!p) fail(fn, `could not get ${(want / 2 ** 20).toFixed(0)} MiB of WebAssembly memory, expected smaller sizes`);
      this.ptr = p;
      this.bytes = want;
    }
    for (let i = 0; i < offsets.length; i++) offsets[i] += this.ptr;
    return offsets;
  }

  put(addr, values) {
    if (values) this.core.heap().f32.set(values, addr >>> 2);
  }

  // 32-bit integers (token ids).
  putI32(addr, values) {
    this.core.heap().i32.set(values, addr >>> 2);
  }

  // A fresh copy. Made by constructing from a view of the heap, not by slice(): the constructor
  // fills its new buffer from the source, so the engine allocates it without zeroing it first
  // (slice zero-fills, then copies: two passes over fresh, cold memory). The multi-head default call
  // at (16, 64, 4), 28 KB of results: 1.038x in Node 20, 1.036x in Chromium (same-process A/B).
  // Up to 4 KB slice() wins instead: zeroing that little is nothing, the view the constructor needs
  // is not (1 KB, Node 20: 0.59-0.75 against 0.90-0.95 µs).
  take(addr, n) {
    const f32 = this.core.heap().f32, i = addr >>> 2;
    return n <= 1024 ? f32.slice(i, i + n) : new Float32Array(f32.subarray(i, i + n));
  }

  // Several results in one copy — one fresh buffer over the region that holds them, then a view per
  // result. Allocating an ArrayBuffer costs about 0.2 µs per KB in Node 20 (writing fresh, cold
  // memory; GC accounting) and about 1 µs per KB in Chromium, plus ~1.5 µs each, more than the copy
  // itself: one buffer, not seven. The views share one fresh buffer, not WASM memory: still safe to
  // keep. The results are the regions addrs[first], addrs[first + 1], … of `counts` floats each, as
  // layout() returned them (ascending): passed as they are, no array per region (7 pairs and their
  // map cost ~1 µs of the (16, 64, 4) call in Node 20).
  takeMany(addrs, first, counts) {
    const n = counts.length, lo = addrs[first] >>> 2, hi = (addrs[first + n - 1] >>> 2) + counts[n - 1];
    const buf = new Float32Array(this.core.heap().f32.subarray(lo, hi)).buffer;  // as take(): not zero-filled first
    const views = new Array(n);
    for (let i = 0; i < n; i++) views[i] = new Float32Array(buf, addrs[first + i] - lo * 4, counts[i]);  // by constructor: subarray looks up the species
    return views;
  }

  // Named regions (float counts): { name: count } → { name: address }.
  named(fn, spec) {
    const names = Object.keys(spec);
    const addrs = this.layout(fn, names.map((n) => spec[n]));
    return Object.fromEntries(names.map((n, i) => [n, addrs[i]]));
  }

  free() {
    if (this.ptr) this.module._free(this.ptr);
    this.ptr = 0;
    this.bytes = 0;
  }
}
