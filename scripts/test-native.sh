#!/usr/bin/env bash
# test-native.sh — builds the C++ core natively and runs the GoogleTest suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/native}
shift || true
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)" >/dev/null
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)"
