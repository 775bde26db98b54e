#!/usr/bin/env bash
# build-decks.sh — the two lecture decks into dist/slides/reveal/ and dist/slides/slidev/ (static,
# relative URLs). Called by build.sh (always) and start.sh (only when a deck's sources changed).
set -euo pipefail
cd "$(dirname "$0")/.."
npx vite build -c slides/reveal/vite.config.js --logLevel warn
# Slidev prints a per-plugin timing table on every build: show its log only when it fails.
slidev_log=$(mktemp)
if ! npx slidev build slides/slidev/slides.md --base ./ --out "$PWD/dist/slides/slidev" >"$slidev_log" 2>&1; then
  cat "$slidev_log"; rm -f "$slidev_log"; exit 1
fi
grep -E '✓ built' "$slidev_log" | tail -1 || true
rm -f "$slidev_log"
