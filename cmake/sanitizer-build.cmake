# The sanitizer build's settings, as a CMake initial cache (`cmake -C cmake/sanitizer-build.cmake ...`).
# One build serves two jobs (docs/ci.md): the test suite under ASan+UBSan (scripts/sanitizers.sh asan) and
# every libFuzzer target (fuzz/run_fuzzers.sh). Both scripts configure with this file alone, so they share
# one build folder and compile each file once.
#
# - clang-14: libFuzzer exists only there.
# - ASan+UBSan, UB fatal (CONVCHECK_SANITIZE), at -O1 (the top-level CMakeLists.txt); the ISA kernel files
#   without UBSan (optimized/CMakeLists.txt says why; the TSan build runs them with UBSan).
# - -ffp-contract=off: no a*b+c fused into an FMA where the source does not ask for one, as g++ does in
#   ISO C++ mode (-std=c++20), so that the results are those of the normal build.
# - Coverage instrumentation (-fsanitize=fuzzer-no-link) on every file, so that the fuzz targets see the
#   coverage of the libraries they link; not on the test programs' own files (convcheck_add_test in the
#   top-level CMakeLists.txt compiles those at -O0).
#   -fsanitize=fuzzer (libFuzzer's main) only on the fuzz targets (fuzz/CMakeLists.txt).
# - The test programs and the fuzz targets; no benchmarks; no third-party backend plugins (oneDNN,
#   XNNPACK, libtorch, OpenCV and Arm NN are not our code and are not built with ASan).
# - No -Werror: the project is warning-clean under g++ 12, its compiler (the normal build gates on it);
#   clang-14 has other warnings.
set(CMAKE_C_COMPILER clang-14 CACHE STRING "")
set(CMAKE_CXX_COMPILER clang++-14 CACHE STRING "")
set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "")
set(CMAKE_C_FLAGS "-fsanitize=fuzzer-no-link -ffp-contract=off" CACHE STRING "")
set(CMAKE_CXX_FLAGS "-fsanitize=fuzzer-no-link -ffp-contract=off" CACHE STRING "")
set(CONVCHECK_SANITIZE ON CACHE BOOL "")
set(CONVCHECK_FUZZ_LIBFUZZER ON CACHE BOOL "")
set(CONVCHECK_BUILD_FUZZ ON CACHE BOOL "")
set(CONVCHECK_BUILD_TESTS ON CACHE BOOL "")
set(CONVCHECK_BUILD_BENCH OFF CACHE BOOL "")
set(CONVCHECK_BACKEND_PLUGINS OFF CACHE BOOL "")
set(CONVCHECK_WERROR OFF CACHE BOOL "")
