#!/usr/bin/env bash
# The tests: build convcheck with warnings as errors and run every test through ctest (unit and
# property tests, the conformance suites against the bundled plugins, the mutants and fault zoo,
# the golden vectors, the fuzz corpora replayed, the reports' pytest and Chromium render tests).
# Then the sanitizer jobs (scripts/sanitizers.sh; docs/ci.md says what each covers): the test suite
# under ASan+UBSan, the TBB-parallel code under TSan+UBSan, and every libFuzzer target for 20 s.
# Prints the time of each step at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=()
step() {  # step NAME COMMAND...: runs and times one step (set -e stops at a failure)
  local name=$1 start=$SECONDS
  shift
  echo "==== test.sh: $name"
  "$@"
  steps+=("$(printf '  %-28s %6s s' "$name" "$((SECONDS - start))")")
}
step "packages (setup.sh)" bash scripts/setup.sh
# ccache (used when installed) keys on paths relative to the checkout, so a fresh clone elsewhere on
# the same machine (as CI makes) reuses earlier compilations.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
step "configure" cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCONVCHECK_WERROR=ON
step "build (-Werror)" cmake --build build -j "$(nproc)"
step "ctest" ctest --test-dir build --output-on-failure -j "$(nproc)"
step "sanitizers" bash scripts/sanitizers.sh asan tsan fuzz
echo "==== test.sh: step times"
printf '%s\n' "${steps[@]}"
