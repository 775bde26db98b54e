#!/usr/bin/env bash
# start.sh — `npm start`: installs what is missing, builds the WebAssembly core, builds the lecture
# decks when their sources changed since the last build, and serves the app with Vite. The app's dev
# server serves the built decks at /slides/slidev/ and /slides/reveal/ (web/app/vite.config.js), so the
# app's "Slidev · reveal.js" links work. Live-editing a deck: its own dev server (README, "Lecture decks").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-wasm.sh

# Stale when a deck is missing or any file a deck is built from is newer than the oldest built deck.
stamp_reveal=dist/slides/reveal/index.html
stamp_slidev=dist/slides/slidev/index.html
decks_stale() {
  [ -f "$stamp_reveal" ] && [ -f "$stamp_slidev" ] || return 0
  local oldest=$stamp_reveal
  [ "$stamp_slidev" -ot "$oldest" ] && oldest=$stamp_slidev
  [ -n "$(find slides web/api web/train web/widgets components setup vite.config.ts package.json \
    -newer "$oldest" -type f ! -name '*.test.js' -print -quit 2>/dev/null)" ]
}
if decks_stale; then
  echo "attnlab: building the lecture decks into dist/slides/ (once; again only when their sources change)"
  start=$SECONDS
  if bash scripts/build-decks.sh; then
    echo "attnlab: decks built in $((SECONDS - start)) s"
  else
    echo "attnlab: the decks did not build (see above); serving the app anyway" >&2
  fi
fi
exec npx vite -c web/app/vite.config.js --host localhost "$@"
