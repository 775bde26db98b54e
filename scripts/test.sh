#!/usr/bin/env bash
# test.sh — `npm test`: every test attnlab has, on a fresh Debian 12 machine.
#   1. native C++ core: GoogleTest (kernels SIMD vs scalar, ops, lecture examples), again under
#      ASan/UBSan, and the libFuzzer harnesses replaying their committed corpus (deterministic)
#   2. WebAssembly build + Vitest in Node against it (PyTorch goldens, lecture, properties, bad input)
#   3. the built app in real Chromium (Playwright)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh --all

# Every stage's output also goes to a log, so the last line can total the tests that ran.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
exec > >(tee "$log") 2>&1

echo "== native C++ tests"
bash scripts/test-native.sh build/native

# The same tests under AddressSanitizer + UBSan, then every libFuzzer harness in tests/fuzz/ as a
# regression test: each committed corpus input (past crashes included) run once — the same executions
# on every run, so random exploration never decides whether `npm test` passes. Open-ended fuzzing is
# `npm run fuzz` (docs/hardening.md).
echo "== native C++ tests under AddressSanitizer + UBSan"
bash scripts/test-native.sh build/native-asan -DATTNLAB_SANITIZE=ON
echo "== fuzz regression (libFuzzer + ASan + UBSan: every committed corpus input once)"
bash scripts/fuzz.sh --regress

echo "== WebAssembly build"
bash scripts/build-wasm.sh

echo "== Vitest (Node, real WASM build)"
npx vitest run

echo "== static build + browser tests (Chromium)"
bash scripts/build.sh
echo "== Python: attnlab for Jupyter (python/; unittest, Debian's torch and numpy; the build's standalone/)"
/usr/bin/python3 -m unittest discover -s tests/python
npx vitest run -c vitest.e2e.config.js

# The closing line: every test counted (ctest runs the native suite twice: plain and ASan/UBSan).
strip() { sed -e 's/\x1b\[[0-9;]*m//g' "$log"; }
native=$(strip | awk '/tests passed, 0 tests failed out of/ { n += $NF } END { print n + 0 }')
vitest=$(strip | awk '$1 == "Tests" && $3 == "passed" { n += $2 } END { print n + 0 }')
python=$(strip | awk '/^Ran [0-9]+ tests? in / { n += $2 } END { print n + 0 }')
echo
echo "tests: $((native + vitest + python)) passed, 0 failed"
