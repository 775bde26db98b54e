#!/usr/bin/env bash
# build-wasm.sh — compiles the C++ core to web/api/wasm/attnlab-core.{mjs,wasm} with Debian's emscripten.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's emcc needs Debian's node modules (acorn) on NODE_PATH when the machine's node is not Debian's.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
# One build at a time (several shells or helpers may ask at once).
exec 9>/tmp/attnlab-build-wasm.lock
flock 9
if [ ! -f build/wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm -j"$(nproc)" >/dev/null
echo "attnlab: built web/api/wasm/attnlab-core.wasm ($(stat -c %s web/api/wasm/attnlab-core.wasm) bytes, $(gzip -9c web/api/wasm/attnlab-core.wasm | wc -c) gzipped)"
