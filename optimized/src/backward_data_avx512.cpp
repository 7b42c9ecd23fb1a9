// The depthwise backward-data kernel for AVX512 (backward_data_depthwise.inl); called only when the CPU has it.
#include <cmath>

#include "backward_data_depthwise.hpp"
#include "isa_avx512.hpp"

#include "backward_data_depthwise.inl"
