// The polyphase method's Internal-Net reverse (cc_backward_reverse.inl) for AVX-512. Compiled with -mavx512f
// -mavx512bw -mavx512vl -mfma; called only when the CPU has AVX-512 (cpu_has_avx512).
#include "isa_avx512.hpp"
// (the vocabulary first)
#include "cc_backward_isa.hpp"
#include "cc_backward_kernels.hpp"
#include "cc_backward_reverse.inl"
