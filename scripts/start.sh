#!/usr/bin/env bash
# start.sh — `npm start`: installs what is missing, builds the WebAssembly core, serves the app with Vite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-wasm.sh
exec npx vite --host localhost "$@"
