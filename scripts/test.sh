#!/usr/bin/env bash
# The tests: build convcheck with warnings as errors and run every test through ctest (unit and
# property tests, the conformance suites against the bundled plugins, the mutants and fault zoo,
# the golden vectors, the fuzz corpora replayed, the reports' pytest and Chromium render tests).
# Then the sanitizer runs (scripts/sanitizers.sh, docs/fuzzing.md): the whole suite once more under
# ASan+UBSan, the TBB-parallel code under TSan, and every libFuzzer target for 20 s under ASan+UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc)
# ccache (used when installed) keys on paths relative to the checkout, so a fresh clone elsewhere on
# the same machine (as CI makes) reuses earlier compilations.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
start=$SECONDS
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCONVCHECK_WERROR=ON
cmake --build build -j "$jobs"
echo "test.sh: build took $((SECONDS - start)) s"
ctest --test-dir build --output-on-failure -j "$jobs"
bash scripts/sanitizers.sh asan tsan fuzz
