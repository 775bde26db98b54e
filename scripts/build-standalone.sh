#!/usr/bin/env bash
# build-standalone.sh — standalone/: attnlab for pages without a bundler (README, "One script tag").
#   standalone/attnlab.js         ES module: registers every widget, exports createAttnLab, the trainer
#                                 and the reveal.js plugin; finds its files in standalone/assets/
#   standalone/assets/            the .wasm, the workers, the shipped snapshots, KaTeX's CSS and fonts,
#                                 lazily loaded chunks (hashed names: only attnlab.js names them)
#   standalone/attnlab.inline.js  the same as one classic script (global `attnlab`), every file inlined
# Needs web/api/wasm/ (scripts/build-wasm.sh). Called by build.sh and by `npm pack` (prepack).
set -euo pipefail
cd "$(dirname "$0")/.."
test -f web/api/wasm/attnlab-core.wasm || bash scripts/build-wasm.sh
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rm -rf standalone
ATTNLAB_STANDALONE=module npx vite build -c web/standalone/vite.config.js --logLevel error
ATTNLAB_STANDALONE=inline ATTNLAB_STANDALONE_OUT="$scratch" npx vite build -c web/standalone/vite.config.js --logLevel error
cp "$scratch/attnlab.inline.js" standalone/
for f in standalone/attnlab.js standalone/attnlab.inline.js; do
  echo "$f: $(wc -c <"$f") bytes, gzip -9 $(gzip -9 -c "$f" | wc -c)"
done
echo "standalone/ total: $(du -sb standalone | cut -f1) bytes"
