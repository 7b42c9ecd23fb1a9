#!/bin/sh
# run_if_cpu_has.sh FLAG PROGRAM [ARGS...]: runs PROGRAM where /proc/cpuinfo lists FLAG, else exits 77 (ctest:
# skipped, with this line as its reason). The optimized tests' second runs with an ISA switched off
# (optimized/CMakeLists.txt: CONVCHECK_NO_AVX512=1, CONVCHECK_NO_AMX=1) go through it: on a CPU without that ISA
# the switch changes nothing and the run would repeat the first one. Where /proc/cpuinfo cannot be read, it runs.
flag=$1
shift
if [ -r /proc/cpuinfo ] && ! grep -qw "$flag" /proc/cpuinfo; then
  echo "skipped: this CPU has no $flag (/proc/cpuinfo), so switching it off repeats the run without the switch"
  exit 77
fi
exec "$@"
