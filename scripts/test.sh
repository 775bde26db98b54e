#!/usr/bin/env bash
# test.sh — `npm test`: every test attnlab has, on a fresh Debian 12 machine.
#   1. native C++ core: GoogleTest (kernels SIMD vs scalar, ops, lecture examples)
#   2. WebAssembly build + Vitest in Node against it (PyTorch goldens, lecture, properties, bad input)
#   3. the built app in real Chromium (Playwright)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh

echo "== native C++ tests"
bash scripts/test-native.sh build/native

echo "== WebAssembly build"
bash scripts/build-wasm.sh

echo "== Vitest (Node, real WASM build)"
npx vitest run

echo "== static build + browser tests (Chromium)"
bash scripts/build.sh
npx vitest run -c vitest.e2e.config.js
