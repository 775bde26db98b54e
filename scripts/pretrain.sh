#!/usr/bin/env bash
# pretrain.sh — trains the induction task's 2-layer attention-only GPT natively (the same C++ core as
# the page: tools/pretrain_induction.cc) and writes the snapshots <attn-train> and the decks show at
# once: web/train/pretrained/induction/{index.json, step-N.safetensors}. Seeded, so a re-run writes the
# same bytes; the output is committed (the page never trains before showing formed heads).
#   bash scripts/pretrain.sh [steps] [seed]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build/native
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir" -j"$(nproc)" --target attnlab_pretrain_induction >/dev/null
out=web/train/pretrained/induction
rm -rf "$out" && mkdir -p "$out"
"$dir/attnlab_pretrain_induction" "$out" "${1:-2500}" "${2:-2}"
ls -l "$out" | awk 'NR > 1 { n += $5 } END { printf "pretrain: %d files, %.0f KiB\n", NR - 1, n / 1024 }'
