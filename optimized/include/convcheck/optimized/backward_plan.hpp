// The optimized backward passes of discrete convolution (docs/passes.md, docs/optimized.md):
//
//   optimized::BackwardDataPlan data(d, weights, {.threads = 2});     // d.pass is not read
//   data.execute(diff_dst, diff_src);
//   optimized::BackwardWeightsPlan w(d, {.threads = 2});
//   w.execute(src, diff_dst, diff_weights, diff_bias);                // diff_bias only with d.has_bias
//
// Every tensor keeps its forward shape, layout (d.data_format, d.filter_format) and dtype d.dtype;
// 16-bit types are widened, accumulated in f32 and rounded once. Both are bitwise identical for any
// number of threads: work is split only over the gradient's elements, and each element is summed by
// one task in one fixed order.
//   - Backward data is the forward machinery (ConvPlan) on the polyphase form of the transposed
//     problem: for each residue r of x modulo the stride, the x = r + S*j are a stride-1 forward
//     convolution of diff_dst with the taps k whose k*D = r + P_L (mod S), flipped, channel axes
//     swapped within each group. One phase per residue combination (S^rank); a phase with no tap
//     writes zeros. Each diff_src element belongs to exactly one phase and is rounded once there.
//   - Backward weights (and bias) is a reduction over the batch and the output pixels, summed in
//     increasing (n, y) order for every element: register tiles of (tap, input channel) rows times
//     output-channel vectors (depthwise: taps times channel vectors), whatever the blocking.
#pragma once

#include <memory>
#include <string>

#include "convcheck/optimized/conv_plan.hpp"
#include "convcheck/optimized/decomposition.hpp"

namespace convcheck::optimized {

// Why the optimized backward passes cannot run the valid descriptor d ("" when they can): its memory
// layout (dense OIX/XIO only), or a phase of backward data or the padded input of backward weights too
// large for the optimized implementation (why_too_large).
std::string why_backward_unsupported(const ConvDescriptor& d);

// Why `path` cannot run d's backward pass (d.pass) on this CPU, or "". Backward weights' kernels:
// `options.forced_path` scalar (portable loops), blocked_avx2 or blocked_avx512 (register tiles of that
// ISA), or automatic (the widest the CPU has). Backward data passes the forced path to its phases'
// ConvPlans: it must apply to every phase (why_unavailable).
std::string why_backward_unavailable(const ConvDescriptor& d, Path path);

class BackwardDataPlan {
public:
    // Validates d (throws ConvError), packs the phases' weights from `weights` (d's filter format and dtype).
    BackwardDataPlan(const ConvDescriptor& d, const void* weights, Options options = {});
    ~BackwardDataPlan();
    BackwardDataPlan(BackwardDataPlan&&) noexcept;
    BackwardDataPlan& operator=(BackwardDataPlan&&) noexcept;
    // diff_dst: d.dst_dims() in d.data_format; diff_src: d.src_dims() in d.data_format; both of d.dtype.
    void execute(const void* diff_dst, void* diff_src) const;
    // "phases=4 blocked_avx512": the phase count and the path of the first phase that has taps.
    std::string implementation() const;
    // The tasks of the main parallel loop for the plan's thread count (of the phase with the fewest, where phases
    // run one after another): decomposition.hpp.
    Decomposition decomposition() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

class BackwardWeightsPlan {
public:
    BackwardWeightsPlan(const ConvDescriptor& d, Options options = {});
    ~BackwardWeightsPlan();
    BackwardWeightsPlan(BackwardWeightsPlan&&) noexcept;
    BackwardWeightsPlan& operator=(BackwardWeightsPlan&&) noexcept;
    // src: d.src_dims(); diff_dst: d.dst_dims(), both in d.data_format; diff_weights: d.weights_dims()
    // in d.filter_format; diff_bias: O elements, written when d.has_bias (must then not be null).
    void execute(const void* src, const void* diff_dst, void* diff_weights, void* diff_bias) const;
    std::string implementation() const;  // "bwd_weights_avx512", "bwd_weights_depthwise_avx2", "bwd_weights_scalar"
    // The tasks of the reduction (work items x parts) for the plan's thread count (backward_weights_split.hpp).
    Decomposition decomposition() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace convcheck::optimized
