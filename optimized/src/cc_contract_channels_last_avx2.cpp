// The CC chunked method's channels-last contraction (cc_contract_channels_last.inl) for AVX2 + FMA.
#include "isa_avx2.hpp"
// (the vocabulary first)
#include "cc_backward_isa.hpp"
#include "cc_factored_kernels.hpp"
#include "cc_contract_channels_last.inl"
