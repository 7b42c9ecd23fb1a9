// Whether the GEMM evaluator (gemm_summation.cpp, built for AVX2 and FMA) may run here. Built for the
// baseline ISA, apart from that file, so that asking is safe on every x86-64.
#include "convcheck/reference/gemm_summation.hpp"

namespace convcheck::reference {

bool gemm_summation_available() {
#if defined(__x86_64__) || defined(__i386__)
    static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return available;
#else
    return false;
#endif
}

}  // namespace convcheck::reference
