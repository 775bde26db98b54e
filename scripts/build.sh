#!/usr/bin/env bash
# build.sh — `npm run build`: the static site in dist/ (works served from any static server's root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-wasm.sh
rm -rf dist  # no stale hashed assets from earlier builds
npx vite build --logLevel warn

# --- lecture decks (issue 5): dist/slides/reveal/ and dist/slides/slidev/, relative URLs ---
npx vite build -c slides/reveal/vite.config.js --logLevel warn
# Slidev prints a per-plugin timing table on every build: show its log only when it fails.
slidev_log=$(mktemp)
if ! npx slidev build slides/slidev/slides.md --base ./ --out "$PWD/dist/slides/slidev" >"$slidev_log" 2>&1; then
  cat "$slidev_log"; rm -f "$slidev_log"; exit 1
fi
grep -E '✓ built' "$slidev_log" | tail -1 || true
rm -f "$slidev_log"
