#!/usr/bin/env bash
# The main job: build convcheck, then run the reference on a demo case and print it as a table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$(nproc)"
./build/conformance/convcheck demo
