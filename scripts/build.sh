#!/usr/bin/env bash
# build.sh — `npm run build`: the static site in dist/ (works served from any static server's root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-wasm.sh
npx vite build --logLevel warn
