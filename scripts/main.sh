#!/usr/bin/env bash
# The main job: build convcheck, run the conformance suite on every bundled backend (the optimized
# implementation and each third-party backend whose package is installed), time them against the
# optimized implementation, and write one self-contained HTML report.
#
#   bash scripts/main.sh            # suite: smoke (seconds per backend)
#   SUITE=full bash scripts/main.sh # any suite of `convcheck list`, a JSON case file or a benchdnn file
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
for name in optimized onednn xnnpack libtorch opencv; do
  if [ -f "build/plugins/libconvcheck_plugin_$name.so" ]; then backends+=("$name"); fi
done
echo "main: backends: ${backends[*]}"

status=0
for name in "${backends[@]}"; do
  echo
  echo "==== convcheck run --backend $name --suite $suite"
  code=0
  "$convcheck" run --backend "$name" --suite "$suite" --no-progress \
    --json "$results/$name.jsonl" --junit "$results/$name.xml" || code=$?
  case $code in
    0) ;;
    1) status=1 ;;
    *) echo "main: convcheck run --backend $name exited with $code"; status=1 ;;
  esac
done

# Speed on the same cases, every third-party backend against the optimized implementation.
for name in "${backends[@]}"; do
  [ "$name" = optimized ] && continue
  echo
  echo "==== convcheck bench --backend $name --suite $suite"
  "$convcheck" bench --backend "$name" --suite "$suite" --no-reference --repeats 3 \
    --json "$results/bench/$name.jsonl" || echo "main: bench of $name failed (report goes on without it)"
done

bench_args=()
for f in "$results"/bench/*.jsonl; do
  [ -s "$f" ] && bench_args+=(--bench "$f")
done
echo
/usr/bin/python3 reports/make_report.py "$results"/*.jsonl "${bench_args[@]}" -o build/report.html
exit $status
