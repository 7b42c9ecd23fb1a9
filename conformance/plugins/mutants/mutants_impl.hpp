// Internal to the mutants plugin: the two computations it offers, each with its mutants.
#pragma once

#include <string>
#include <vector>

#include "convcheck/plugin.h"
#include "convcheck/mutant_list/mutants.hpp"

namespace convcheck::mutants {

// dst of one quantized convolution (ABI 1.5; mutants_quantized.cpp): q is the case's quantization.
void compute_quantized(const convcheck_conv_desc& desc, const convcheck_quantization& q, const convcheck_conv_args& args,
                       Mutant mutant);
// Why the plugin declines a quantized case of ABI 1.7's general output (an f32 bias, a bf16/f16 dst, a rounded s32
// dst without post-ops, a post-op other than relu, clip, linear, sum), or "" (mutants_quantized.cpp).
std::string quantized_general_unsupported(const convcheck_conv_desc& desc, const convcheck_quantization& q);
// A float case's fused post-ops as the mutants apply them (mutants_post_ops.cpp, ABI 1.6/1.7): relu, clip, linear,
// sum and the binary ops, in double, in order; the po_* mutants deviate here and in compute_conv's store.
struct PostOpChain {
    const convcheck_post_ops* ops = nullptr;  // NULL: no chain
    const void* const* operands = nullptr;    // the execute's post_op_operands (op k's operand, or NULL)
    long long O = 1, OCg = 1, out_spatial = 1;
    bool nxc = false;  // dst's data format (a full operand is dense in it)
    Mutant m = Mutant::none;
    bool has_sum() const;
    // Output (n, oc, spatial x)'s value v after the chain; prior: dst's value when the call began (a sum reads it).
    double apply(double v, double prior, long long n, long long oc, long long x) const;
    // Op k's operand value for that output.
    double operand(int64_t k, long long n, long long oc, long long x) const;
};
// Why the plugin declines a float case's chain (an op other than relu, clip, linear, sum, binary), or "".
std::string float_post_ops_unsupported(const convcheck_conv_desc& desc, const convcheck_post_ops& ops);
// dst of one discrete convolution (mutants_conv.cpp); `threads` is the instance's num_threads; `ops` the plan's
// copy of a float case's post-ops (NULL: none), `scales` its copy of a float case's scales (ABI 1.7; NULL: none).
void compute_conv(const convcheck_conv_desc& desc, const convcheck_conv_args& args, Mutant mutant, int threads,
                  const convcheck_post_ops* ops = nullptr, const convcheck_scales* scales = nullptr);
// Elements from dst's first to one past its last, gaps included (ABI 1.2 strides); its element count when dense.
long long dst_span(const convcheck_conv_desc& desc);
// The gradients of one backward pass (desc.prop_kind; mutants_backward.cpp): diff_src, or diff_weights and
// diff_bias. Dense tensors in NCX/NXC and OIX/XIO (the plugin declines others).
void compute_backward(const convcheck_conv_desc& desc, const convcheck_conv_args& args, Mutant mutant);
// dst of one transposed convolution (mutants_transposed.cpp): dense tensors, OIX/XIO weights.
void compute_transposed(const convcheck_conv_transposed_desc& desc, const convcheck_conv_args& args, Mutant mutant);
// dst of one CC layer (mutants_cc.cpp).
void compute_cc(const convcheck_cc_desc& desc, const convcheck_cc_args& args, Mutant mutant);
// The gradients of one CC layer's backward pass (mutants_cc_backward.cpp, ABI 1.4).
void compute_cc_backward(const convcheck_cc_desc& desc, const convcheck_cc_backward_args& args, Mutant mutant);

// CC's pieces both share (mutants_cc.cpp). One axis: the first neighbour of each output and the distances
// g_n - m of its neighbours (in float for honest_cc_f32).
struct Axis {
    long long support = 1, taps = 1;  // taps: support, +1 for cc_window_overread
    std::vector<long long> first;
    std::vector<double> distance;  // [out][taps]
};
Axis make_axis(const convcheck_cc_desc& d, int a, Mutant m);
// K(dy, dx) for every channel pair, w[cout * Cin + cin] (in float for honest_cc_f32).
void cc_kernel(const convcheck_cc_desc& d, const float* theta, Mutant m, double dy, double dx, std::vector<double>& w);

}  // namespace convcheck::mutants
