// The CC chunked method's channels-last contraction (cc_contract_channels_last.inl) for AVX-512. Compiled with
// -mavx512f -mavx512bw -mavx512vl -mfma; called only when the CPU has AVX-512 (cpu_has_avx512).
#include "isa_avx512.hpp"
// (the vocabulary first)
#include "cc_backward_isa.hpp"
#include "cc_factored_kernels.hpp"
#include "cc_contract_channels_last.inl"
