#!/usr/bin/env bash
# bench.sh — `npm run bench`: attnlab vs onnxruntime-web, tfjs-backend-wasm, naive JS and the native
# builds, side by side (bench/mha.bench.mjs), plus page load → first widget in Chromium
# (bench/page-load.mjs), and one training step of a small GPT vs TensorFlow.js (bench/train.bench.mjs).
# Writes docs/performance.md. Takes several minutes; not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh --all
echo "== native builds (SIMDe/SSE 128-bit and scalar)"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)" --target attnlab_bench_native attnlab_bench_native_scalar >/dev/null
echo "== WebAssembly build"
bash scripts/build-wasm.sh
echo "== page load in Chromium"
node bench/page-load.mjs || echo "page-load: failed (see above); continuing"
echo "== the cost of one call across the JS / WebAssembly boundary (Embind)"
node bench/boundary.bench.mjs "$@"
echo "== multi-head attention, side by side"
node bench/mha.bench.mjs --native-dir build/native "$@"
echo "== multi-head attention in Chromium: attnlab and onnxruntime-web in one page"
node bench/browser-mha.mjs "$@" || echo "browser-mha: failed (see above); continuing"
echo "== GPT-2-small-sized inference: attnlab vs onnxruntime-web (writes docs/performance-gpt2.md)"; node bench/gpt2.bench.mjs "$@"
echo "== training step of a small GPT: attnlab vs TensorFlow.js"
node bench/train.bench.mjs "$@"
echo "== Eigen's products vs attnlab's GEMM kernels in WebAssembly (bench/eigen_wasm_bench.cc)"
(export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}; flock 9
 cmake -S . -B build/wasm >/dev/null && cmake --build build/wasm --target attnlab_eigen_wasm_bench >/dev/null
) 9>/tmp/attnlab-build-wasm.lock
node build/wasm/eigen_wasm_bench.cjs --doc docs/performance.md
