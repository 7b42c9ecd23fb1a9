// The polyphase method's Internal-Net reverse (cc_backward_reverse.inl) for AVX2 + FMA. Compiled with
// -mavx2 -mfma; called only when the CPU has both.
#include "isa_avx2.hpp"
// (the vocabulary first)
#include "cc_backward_isa.hpp"
#include "cc_backward_kernels.hpp"
#include "cc_backward_reverse.inl"
