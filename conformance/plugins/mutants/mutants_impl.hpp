// Internal to the mutants plugin: the two computations it offers, each with its mutants.
#pragma once

#include "convcheck/plugin.h"
#include "convcheck/mutants/mutants.hpp"

namespace convcheck::mutants {

// dst of one discrete convolution (mutants_conv.cpp); `threads` is the instance's num_threads.
void compute_conv(const convcheck_conv_desc& desc, const convcheck_conv_args& args, Mutant mutant, int threads);
// Elements from dst's first to one past its last, gaps included (ABI 1.2 strides); its element count when dense.
long long dst_span(const convcheck_conv_desc& desc);
// The gradients of one backward pass (desc.prop_kind; mutants_backward.cpp): diff_src, or diff_weights and
// diff_bias. Dense tensors in NCX/NXC and OIX/XIO (the plugin declines others).
void compute_backward(const convcheck_conv_desc& desc, const convcheck_conv_args& args, Mutant mutant);
// dst of one transposed convolution (mutants_transposed.cpp): dense tensors, OIX/XIO weights.
void compute_transposed(const convcheck_conv_transposed_desc& desc, const convcheck_conv_args& args, Mutant mutant);
// dst of one CC layer (mutants_cc.cpp).
void compute_cc(const convcheck_cc_desc& desc, const convcheck_cc_args& args, Mutant mutant);

}  // namespace convcheck::mutants
