#!/usr/bin/env bash
# The main job: build convcheck, run the conformance suite on every bundled backend (the optimized
# implementation and each third-party backend whose package is installed), and write one
# self-contained HTML report.
#
#   bash scripts/main.sh            # suite: smoke (seconds per backend), then the invalid suite, and the
#                                   # backward and transposed suites on the backends that compute them
#   SUITE=full bash scripts/main.sh # any suite of `convcheck list`, a JSON case file or a benchdnn file
#   BENCH=1 bash scripts/main.sh    # also time every third-party backend against the optimized
#                                   # implementation on the ResNet-50 and MobileNet-v2 layers of the models
#                                   # suite (BENCH_REPEATS timed runs per layer, default 20) and add the
#                                   # performance section to the report
#   SELFTEST=1 bash scripts/main.sh # also run `convcheck selftest` on the suite (every bundled mutant against
#                                   # it: every entry of mutants.def x smoke's 156 cases, minutes on 2 cores, hence
#                                   # opt-in) and show its kill matrix in the report
#
# The report's "Suite strength" section always shows the pair coverage of the suite run and of the pairwise
# suite (`convcheck list --json`, instant); the kill matrix only with SELFTEST=1 (docs/selftest.md).
#
# Timing is off by default: on a shared or busy machine (as CI runners are) the times mean nothing, and
# the smoke suite's microsecond shapes mean nothing even on a quiet one (docs/performance.md).
#
# Results go to build/results/ (JSON lines, JUnit XML; bench/ the timings), the report to build/report.html.
# Exit code: 0 when every backend passed (or failed only where declared in
# conformance/data/backends.json), 1 when some backend had unexpected failures, 2 on a setup error.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$(nproc)"

suite=${SUITE:-smoke}
convcheck=./build/conformance/convcheck
results=build/results
rm -rf "$results"
mkdir -p "$results/bench"

backends=()
for name in optimized onednn xnnpack libtorch opencv armnn; do
  if [ -f "build/plugins/libconvcheck_plugin_$name.so" ]; then backends+=("$name"); fi
done
echo "main: backends: ${backends[*]}"

# Every run: <backend>:<suite>:<results file stem>. First the suite asked for on every backend; then the invalid
# suite (docs/runner.md): every backend must refuse descriptors that break a rule of the spec, and what one computes
# instead is an accepted_invalid failure (expected where backends.json pins it), seconds; then the backward passes'
# and transposed convolution's suites (docs/passes.md, docs/transposed.md) on the backends that compute them (a
# backend that claims none would run nothing, which is not a pass: it is left out here, and its smoke run shows the
# backward cases declined as not claimed), seconds each (libtorch ~20 s); and the CC layer's suite on the two backends
# that compute it, forward and backward; and the models suite (real network layers, forward and backward, about 30 s
# each on 2 cores: nearly all of it the reference) on optimized and oneDNN.
runs=()
for name in "${backends[@]}"; do runs+=("$name:$suite:$name"); done
for name in "${backends[@]}"; do
  extras=(invalid)
  case $name in
    optimized) extras+=(backward transposed cc models) ;;  # cc: the CC layer, forward and backward (cc-backward.md)
    libtorch) extras+=(backward transposed cc) ;;
    onednn) extras+=(backward transposed models) ;;
    xnnpack | opencv | armnn) extras+=(transposed) ;;  # forward and transposed; no backward pass
  esac
  for extra in "${extras[@]}"; do
    if [ "$extra" != "$suite" ]; then runs+=("$name:$extra:$name.$extra"); fi
  done
done

status=0
for run in "${runs[@]}"; do
  IFS=: read -r name run_suite stem <<<"$run"
  echo
  echo "==== convcheck run --backend $name --suite $run_suite"
  code=0
  "$convcheck" run --backend "$name" --suite "$run_suite" --no-progress \
    --json "$results/$stem.jsonl" --junit "$results/$stem.xml" || code=$?
  case $code in
    0) ;;
    1) status=1 ;;
    *) echo "main: convcheck run --backend $name --suite $run_suite exited with $code"; status=1 ;;
  esac
done

# Speed (BENCH=1): real layer shapes, the ResNet-50 and MobileNet-v2 layers of the models suite, taken
# from `convcheck list` so that the list lives in one place (conformance/runner/suite_models.cpp).
if [ "${BENCH:-0}" = 1 ]; then
  layers=$results/bench/layers.json
  "$convcheck" list --suite models --mode bound |
    awk '$NF ~ /^(resnet50|mobilenet_v2)\// { printf "%s{\"descriptor\": \"%s\", \"name\": \"%s\"}", (n++ ? ",\n " : "[\n "), $3, $NF }
         END { print (n ? "\n]" : "[]") }' >"$layers"
  if ! grep -q resnet50/ "$layers" || ! grep -q mobilenet_v2/ "$layers"; then
    echo "main: no ResNet-50 or MobileNet-v2 layer in \`convcheck list --suite models\`: nothing to bench" >&2
    exit 2
  fi
  for name in "${backends[@]}"; do
    [ "$name" = optimized ] && continue
    # Arm NN's CpuRef is its reference backend, not a fast path (0.04 GFLOP/s on a ResNet-50 3x3 layer here):
    # 20 repeats of every layer would take most of an hour.
    [ "$name" = armnn ] && continue
    echo
    echo "==== convcheck bench --backend $name --suite $layers"
    "$convcheck" bench --backend "$name" --suite "$layers" --no-reference --repeats "${BENCH_REPEATS:-20}" \
      --json "$results/bench/$name.jsonl" || echo "main: bench of $name failed (report goes on without it)"
  done
fi

# Suite strength: the design (distribution, pair coverage) of the suite run and of the pairwise suite, and
# with SELFTEST=1 the kill matrix of the bundled mutants on the suite (docs/selftest.md).
"$convcheck" list --suite "$suite" --json >"$results/design.jsonl" ||
  { echo "main: no design of suite $suite (report goes on without it)"; rm -f "$results/design.jsonl"; }
if [ "$suite" != pairwise ]; then
  "$convcheck" list --suite pairwise --json >"$results/design_pairwise.jsonl"
fi
if [ "${SELFTEST:-0}" = 1 ]; then
  echo
  echo "==== convcheck selftest --suite $suite"
  # exit 1 means the suite misses a bug or fails correct code: the report shows which; it is not a backend's failure
  code=0
  "$convcheck" selftest --suite "$suite" --json "$results/selftest.jsonl" || code=$?
  case $code in
    0 | 1) ;;
    *) echo "main: convcheck selftest exited with $code (report goes on without the kill matrix)"
       rm -f "$results/selftest.jsonl" ;;
  esac
fi

bench_args=()
for f in "$results"/bench/*.jsonl; do
  [ -s "$f" ] && bench_args+=(--bench "$f")
done
echo
/usr/bin/python3 reports/make_report.py "$results"/*.jsonl "${bench_args[@]}" -o build/report.html
exit $status
