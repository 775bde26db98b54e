#!/usr/bin/env bash
# fuzz.sh — builds the libFuzzer harnesses in tests/fuzz/ (clang, -fsanitize=fuzzer,address,undefined)
# into build/fuzz/ and runs each one for a bounded time.
#
#   bash scripts/fuzz.sh                  # every harness, FUZZ_SECONDS (default 20) each, nproc at a time
#   FUZZ_SECONDS=3600 bash scripts/fuzz.sh attention multihead     # a longer run of some harnesses
#   bash scripts/fuzz.sh --build-only
#
# Inputs found are written to build/fuzz/corpus/<harness>/ (the committed seeds in
# tests/fuzz/corpus/<harness>/ are read, never written); crashes to build/fuzz/artifacts/<harness>/.
# Exit status is non-zero when any harness crashed, leaked or broke an invariant.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-20}
build_only=0
harnesses=()
for a in "$@"; do
  if [ "$a" = --build-only ]; then build_only=1; else harnesses+=("$a"); fi
done
if [ ${#harnesses[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.cc; do harnesses+=("$(basename "$f" .cc | sed 's/^fuzz_//')"); done
fi

CXX=${FUZZ_CXX:-clang++}
out=build/fuzz
mkdir -p "$out/obj"
# The same sources as the native library (new ops are picked up by the glob), the wasmsimd kernels
# compiled through SIMDe exactly as in tests/cpp.
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -msse4.2 -Icore/include
       -DATTNLAB_SIMDE -DATTNLAB_HAVE_SIMD128
       -fsanitize=address,undefined -fno-sanitize-recover=all)
objs=()
for src in core/src/kernels/*/*.cc core/src/ops/*.cc core/src/api/*.cc; do
  [ -f "$src" ] || continue
  obj="$out/obj/$(echo "$src" | tr / _ | sed 's/\.cc$/.o/')"
  if [ ! -f "$obj" ] || [ -n "$(find "$src" core/include core/src -newer "$obj" -name '*.h' -o -newer "$obj" -path "$src" | head -1)" ]; then
    "$CXX" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj" &
  fi
  objs+=("$obj")
done
wait
for h in "${harnesses[@]}"; do
  "$CXX" "${flags[@]}" -fsanitize=fuzzer -Itests/fuzz "tests/fuzz/fuzz_$h.cc" "${objs[@]}" -o "$out/fuzz_$h" &
done
wait
for h in "${harnesses[@]}"; do [ -x "$out/fuzz_$h" ] || { echo "fuzz: building fuzz_$h failed"; exit 1; }; done
echo "fuzz: built ${#harnesses[@]} harnesses in $out/"
[ $build_only -eq 1 ] && exit 0

run_one() {
  local h=$1 seconds=$2 out=$3
  mkdir -p "$out/corpus/$h" "$out/artifacts/$h" "tests/fuzz/corpus/$h"
  local log="$out/fuzz_$h.log"
  local rc=0
  # -rss_limit_mb/-malloc_limit_mb: a size decoded from the input must never make the op allocate.
  "$out/fuzz_$h" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/artifacts/$h/" "$out/corpus/$h" "tests/fuzz/corpus/$h" >"$log" 2>&1 || rc=$?
  local execs
  execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  local cov
  cov=$(grep -ao 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
  if [ $rc -eq 0 ]; then
    echo "fuzz: $h: ok, ${seconds}s, $execs executions, coverage $cov edges"
  else
    echo "fuzz: $h: FAILED (exit $rc) after $execs executions; log $log, input in $out/artifacts/$h/"
    grep -a -m5 -E 'INVARIANT FAILED|ERROR: AddressSanitizer|runtime error|ERROR: libFuzzer' "$log" | sed 's/^/    /'
    return 1
  fi
}
export -f run_one
printf '%s\n' "${harnesses[@]}" |
  xargs -P "$(nproc)" -I{} bash -c 'run_one "$@"' _ {} "$seconds" "$out"
