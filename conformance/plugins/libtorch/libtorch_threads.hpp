// The intra-op thread count the runner asks for (--threads; create's num_threads), in the calling
// thread (libtorch_plugin.cpp, cc_plugin.cpp).
#pragma once

#include <ATen/Parallel.h>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace convcheck_libtorch {

// ATen's CPU convolution in an OpenMP build (at::parallel_for, and oneDNN, itself built on OpenMP)
// sizes its parallel regions from omp_get_max_threads(), which at::get_num_threads() returns.
// at::set_num_threads sets that count and also re-creates caffe2's pthreadpool, the pool of QNNPACK
// and XNNPACK, which no call of this plugin reaches: its new worker spins about a million
// iterations before it sleeps, 31 ms of CPU in every child the runner forks for a plugin call (the
// AMD EPYC test machine), more than most cases' convolution. So the OpenMP count is set directly,
// after at::get_num_threads() has run ATen's lazy per-thread initialization (which would otherwise
// reset the count to ATen's default at the first ATen call). Where that does not give ATen the count
// (an ATen built on its native thread pool), at::set_num_threads does. n <= 0: ATen's default.
inline void use_threads(int n) {
    if (n <= 0 || at::get_num_threads() == n) return;
#ifdef _OPENMP
    omp_set_num_threads(n);
    if (at::get_num_threads() == n) return;
#endif
    at::set_num_threads(n);
}

}  // namespace convcheck_libtorch
