#!/usr/bin/env bash
# Installs, with apt-get, every Debian package convcheck needs that is not installed yet.
# Does nothing (and needs no network) when all of them are present.
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config
  # libraries
  libgtest-dev libgmock-dev librapidcheck-dev libeigen3-dev libtbb-dev nlohmann-json3-dev
  libbenchmark-dev libcli11-dev libfmt-dev libfp16-dev
  # fuzzing (libFuzzer)
  clang-14 libclang-rt-14-dev
  # third-party backends under test
  libdnnl-dev libxnnpack-dev libpthreadpool-dev libtorch-dev libopencv-dev
  # reports, vectors and their tests (Debian's own /usr/bin/python3)
  python3 python3-numpy python3-jinja2 python3-matplotlib python3-pytest python3-torch python3-onnx
  # headless browser for the report's render test
  chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
