#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 under ASan+UBSan and runs each for a bounded time.
#
#   fuzz/run_fuzzers.sh [target...]           # every target in fuzz/targets/ by default
#
# Environment:
#   FUZZ_SECONDS   time per target (default 25)
#   FUZZ_BUILD_DIR build folder (default build-san-asan at the repository root, shared with
#                  scripts/sanitizers.sh asan)
#   FUZZ_JOBS      parallel build jobs, and how many targets fuzz at once (default 2)
#   FUZZ_MERGE=1   afterwards, merge the inputs that found new coverage into fuzz/corpus/<target>/
#
# A crash, a leak, undefined behaviour, a timeout (10 s per input) or an allocation over 1 GiB is
# written to fuzz/corpus/<target>/crash-<sha1> (or leak-, timeout-, oom-): ctest then replays it
# with the g++ replay driver until it is fixed, and it stays there as a regression test.
# Exit status: 0 when no target found anything, 1 when one did, 2 when a target did not build
# (the others still run).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-san-asan}
seconds=${FUZZ_SECONDS:-25}
jobs=${FUZZ_JOBS:-2}

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for f in "$root"/fuzz/targets/*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi

# The sanitizer build (cmake/sanitizer-build.cmake: clang-14, ASan+UBSan, coverage instrumentation on every
# library, no -Werror), the same that scripts/sanitizers.sh asan runs the tests in: sharing a folder, they
# compile each file once. -fsanitize=fuzzer (libFuzzer's main) only on the targets (fuzz/CMakeLists.txt).
cmake -C "$root/cmake/sanitizer-build.cmake" -S "$root" -B "$build" -G Ninja >/dev/null

# Build every known target in one ninja run first (both cores busy, -k 0: one failure does not stop the
# others); the per-target builds below then only report what failed.
known=$(cmake --build "$build" --target help | sed -n 's/^\(fuzz_[a-z0-9_]*\):.*/\1/p')
wanted=()
for t in "${targets[@]}"; do
  grep -qx "fuzz_$t" <<<"$known" && wanted+=("fuzz_$t")
done
if [ ${#wanted[@]} -gt 0 ]; then
  cmake --build "$build" -j "$jobs" --target "${wanted[@]}" -- -k 0 >"$build/fuzz_all.build.log" 2>&1 || true
fi

built=()
build_failed=0
for t in "${targets[@]}"; do
  if ! cmake --build "$build" --target "fuzz_$t" -j "$jobs" >"$build/fuzz_$t.build.log" 2>&1; then
    if grep -q "unknown target" "$build/fuzz_$t.build.log"; then
      echo "fuzz_$t: not built in this configuration (a library it needs is absent); skipped"
      continue
    fi
    # Go on with the other targets; the build failure still fails the run (exit 2).
    grep -E "error:|FAILED" "$build/fuzz_$t.build.log" | head -n 5
    echo "fuzz_$t: BUILD FAILED with clang-14 (log: $build/fuzz_$t.build.log)"
    build_failed=1
    continue
  fi
  built+=("$t")
done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One target's timed run; its verdict goes to $build/fuzz_<t>.verdict (ok or found).
fuzz_one() {
  local t=$1 corpus="$root/fuzz/corpus/$1" work="$build/fuzz-work/$1"
  mkdir -p "$work" "$corpus"
  local dict=()
  [ -f "$root/fuzz/dict/$t.dict" ] && dict=(-dict="$root/fuzz/dict/$t.dict")
  if "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
      -print_final_stats=1 "${dict[@]}" -artifact_prefix="$corpus/" "$work" "$corpus" \
      >"$build/fuzz_$t.log" 2>&1; then
    echo ok >"$build/fuzz_$t.verdict"
  else
    echo found >"$build/fuzz_$t.verdict"
  fi
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    "$build/fuzz/fuzz_$t" -merge=1 "${dict[@]}" "$corpus" "$work" >"$build/fuzz_$t.merge.log" 2>&1 || true
  fi
}

# FUZZ_JOBS targets at a time (each libFuzzer run is one process on one core).
echo "== ${#built[@]} targets, ${seconds}s each, $jobs at a time"
running=0
for t in "${built[@]}"; do
  rm -f "$build/fuzz_$t.verdict"
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
wait || true

found=0
for t in "${built[@]}"; do
  if [ "$(cat "$build/fuzz_$t.verdict" 2>/dev/null)" = ok ]; then
    echo "fuzz_$t: $(grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/fuzz_$t.log" | tr '\n' ' ')"
  else
    found=1
    tail -n 40 "$build/fuzz_$t.log"
    echo "fuzz_$t: FOUND A FAILURE; the input is in $root/fuzz/corpus/$t/ (replay: ctest -R fuzz_replay_$t)"
  fi
done
[ $build_failed = 1 ] && exit 2
exit $found
