#!/usr/bin/env bash
# pretrain-names.sh — trains attnlab's names model natively (tools/pretrain_names.cc: a 2-layer, 4-head
# character GPT, d_model 32, of web/train/data/names.txt with the names task's tokens) and writes the
# snapshots <attn-model> offers without a file: web/train/pretrained/names/{index.json, step-N.safetensors}.
# Seeded, so a re-run writes the same bytes; the output is committed.
#   bash scripts/pretrain-names.sh [steps] [seed]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build/native
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir" -j2 --target attnlab_pretrain_names >/dev/null
out=web/train/pretrained/names
rm -rf "$out" && mkdir -p "$out"
"$dir/attnlab_pretrain_names" web/train/data/names.txt "$out" "${1:-3000}" "${2:-1}"
ls -l "$out" | awk 'NR > 1 { n += $5 } END { printf "pretrain-names: %d files, %.0f KiB\n", NR - 1, n / 1024 }'
