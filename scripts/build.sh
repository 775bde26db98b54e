#!/usr/bin/env bash
# build.sh — `npm run build`: the static site in dist/ (works served from any static server's root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-wasm.sh
rm -rf dist  # no stale hashed assets from earlier builds
npx vite build -c web/app/vite.config.js --logLevel warn

# --- lecture decks: dist/slides/reveal/ and dist/slides/slidev/, relative URLs ---
bash scripts/build-decks.sh

# --- standalone/: attnlab for pages without a bundler (attnlab.js, attnlab.inline.js; README "One script tag")
bash scripts/build-standalone.sh
