#!/usr/bin/env bash
# ensure-deps.sh [--all] — installs what attnlab needs and is missing, on Debian 12, and the npm packages
# pinned in package-lock.json. Safe to run again: it only installs what is absent.
#   (no flag)  what building and serving the app needs (npm start, npm run build): CMake, emscripten
#   --all      also what the tests and benchmarks need (npm test, npm run bench): g++, Eigen, SIMDe,
#              GoogleTest, Google Benchmark, Chromium, clang, poppler, Python with torch and Jupyter
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(cmake make emscripten)
if [ "${1:-}" = "--all" ]; then
APT_PACKAGES+=(g++ libeigen3-dev libsimde-dev libgtest-dev libbenchmark-dev chromium)
# clang + its runtime libraries (libFuzzer, ASan, UBSan) for scripts/fuzz.sh
APT_PACKAGES+=(clang libclang-rt-14-dev)
# pdftoppm (poppler-utils) rasterises the Slidev PDF export in tests/e2e/decks-content.e2e.test.js
APT_PACKAGES+=(poppler-utils)
# python3 (the standard library only) runs tests/golden/read_safetensors.py: a reader of the checkpoint
# format written apart from attnlab, that tests/unit/model.test.js hands a saved model to
APT_PACKAGES+=(python3)
# attnlab for Jupyter (python/, notebooks/): its unit tests use torch and numpy; tests/e2e/jupyter.e2e.test.js
# installs it into a venv, executes the companion notebook (nbconvert) and drives a Jupyter Notebook server
APT_PACKAGES+=(python3-venv python3-numpy python3-torch jupyter-notebook python3-nbconvert python3-ipykernel)
fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "attnlab: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm packages: reinstall when package-lock.json changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "attnlab: installing npm packages (npm ci)"
  # Playwright must not try to download its own browser: we drive Debian's chromium.
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
  touch node_modules/.package-lock.json
fi
