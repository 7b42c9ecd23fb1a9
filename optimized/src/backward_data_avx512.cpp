// The backward-data kernels of their own for AVX512 (backward_data_depthwise.inl, backward_data_narrow.inl,
// backward_data_pointwise.inl); called only when the CPU has it.
#include "backward_data_depthwise.hpp"
#include "backward_data_narrow.hpp"
#include "backward_data_pointwise.hpp"
#include "isa_avx512.hpp"

#include "backward_data_depthwise.inl"
#include "backward_data_narrow.inl"
#include "backward_data_pointwise.inl"
