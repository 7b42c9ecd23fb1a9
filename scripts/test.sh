#!/usr/bin/env bash
# The tests: build convcheck with warnings as errors, run every test through ctest, then the
# sanitizer jobs (scripts/sanitizers.sh: the whole suite under ASan+UBSan, the TBB code under TSan,
# each libFuzzer target for a bounded time). SKIP_SANITIZERS=1 runs the first part only.
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
echo "test.sh: build and ctest took $((SECONDS - start)) s"
if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
  bash scripts/sanitizers.sh
fi
echo "test.sh: everything took $((SECONDS - start)) s"
