#!/usr/bin/env bash
# The tests: build convcheck with warnings as errors and run every test through ctest (unit and
# property tests, the conformance suites against the bundled plugins, the mutants and fault zoo,
# the golden vectors, the fuzz corpora replayed, the reports' pytest and Chromium render tests).
# Then the whole suite once more under ASan+UBSan (scripts/sanitizers.sh asan). The TSan run of the
# TBB code and the timed libFuzzer runs are `bash scripts/sanitizers.sh tsan fuzz` (docs/fuzzing.md):
# cold, all three do not fit CI's 30 minutes on 2 cores.
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
bash scripts/sanitizers.sh asan
