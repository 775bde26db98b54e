#!/usr/bin/env bash
# pretrain-cross.sh — trains the tiny encoder–decoder of tools/pretrain_cross.cc natively (number words
# → digits; the same C++ core as the page) and writes the snapshots <attn-cross trained> and the decks
# show: web/train/pretrained/cross/{index.json, weights.bin}. Seeded, so a re-run writes the same
# bytes; the output is committed.
#   bash scripts/pretrain-cross.sh [steps] [seed]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BUILD_DIR:-build/native}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir" -j2 --target attnlab_pretrain_cross >/dev/null
out=web/train/pretrained/cross
rm -rf "$out" && mkdir -p "$out"
"$dir/attnlab_pretrain_cross" "$out" "${1:-3000}" "${2:-4}"
ls -l "$out" | awk 'NR > 1 { n += $5 } END { printf "pretrain-cross: %d files, %.0f KiB\n", NR - 1, n / 1024 }'
