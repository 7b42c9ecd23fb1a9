#!/usr/bin/env bash
# Installs, with apt-get, every Debian package convcheck needs that is not installed yet.
# Does nothing (and needs no network) when all of them are present.
# Installs with --no-install-recommends, so every package that configure, build or a test needs is
# named here, even when another package only recommends it (scripts/fresh-machine.sh proves the list
# on a minimal Debian 12 root).
set -euo pipefail

packages=(
  # build (ccache: a rebuild, or a fresh clone on the same machine, reuses earlier compilations; lld: LLVM's
  # linker, three times faster than GNU ld on the test programs)
  build-essential cmake ninja-build pkg-config ccache lld
  # libraries
  libgtest-dev libgmock-dev librapidcheck-dev libeigen3-dev libtbb-dev nlohmann-json3-dev
  libbenchmark-dev libcli11-dev libfmt-dev libfp16-dev
  # fuzzing (libFuzzer)
  clang-14 libclang-rt-14-dev
  # third-party backends under test
  libdnnl-dev libxnnpack-dev libpthreadpool-dev libtorch-dev libopencv-dev
  libarmnn-dev libarmnn-cpuref-backend22  # Arm NN 20.08 and its CpuRef backend, a dynamic backend libarmnn-dev does not pull in
  # Debian's dnnl-config.cmake runs find_package(OpenCL REQUIRED); libdnnl-dev only recommends it
  ocl-icd-opencl-dev
  # reports, vectors and their tests (Debian's own /usr/bin/python3)
  python3 python3-numpy python3-jinja2 python3-matplotlib python3-pytest python3-torch python3-onnx
  # a torchvision model (random weights) exported to ONNX, read as a suite (formats/tests/onnx_torchvision_check.py)
  python3-torchvision
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
# A dropped connection to the mirror is retried (Acquire::Retries), and the whole update + install once
# more (a mirror caught mid-sync gives a hash mismatch that a fresh update clears).
apt_options=(-o Acquire::Retries=5 -o Acquire::http::Timeout=60 -o Acquire::https::Timeout=60)
for attempt in 1 2; do
  if $SUDO apt-get "${apt_options[@]}" update -qq &&
     $SUDO env DEBIAN_FRONTEND=noninteractive apt-get "${apt_options[@]}" install -y -qq --no-install-recommends \
       "${missing[@]}"; then
    exit 0
  fi
  if [ $attempt = 1 ]; then
    echo "setup: apt-get failed; trying once more in 10 s"
    sleep 10
  fi
done
echo "setup: could not install ${missing[*]} (apt-get failed twice; see above)" >&2
exit 1
