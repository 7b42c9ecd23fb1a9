// Transposed convolution, optimized (docs/transposed.md): the backward data plan of the forward
// convolution it transposes (BackwardDataPlan on t.forward(), whose geometry already holds the pads
// and output_padding), and the bias added around it. No kernel of its own.
//
//   optimized::TransposedPlan plan(t, weights, bias, {.threads = 2});  // bias null when !t.has_bias
//   plan.execute(src, dst);
//
// src: t.src_dims() in t.data_format; weights: the forward's, in t.filter_format (OIX: [C][O/G][k...]);
// dst: t.dst_dims(); all of t.dtype. Each output is summed in f32 and rounded once: with a bias and a
// 16-bit dtype the phases run on f32 copies of the (exactly widened) inputs, the bias is added in f32,
// and the sum is rounded once to the dtype. Bitwise identical for any thread count (BackwardDataPlan's
// fixed order; the bias is one more addition per output).
#pragma once

#include <memory>
#include <string>

#include "convcheck/optimized/backward_plan.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

namespace convcheck::optimized {

// Why the plan cannot run the valid t ("" when it can): the backward data plan's limits on t.forward().
std::string why_transposed_unsupported(const TransposedDescriptor& t);

class TransposedPlan {
public:
    // Validates t (throws ConvError); packs the weights (and keeps a copy of the bias).
    TransposedPlan(const TransposedDescriptor& t, const void* weights, const void* bias, Options options = {});
    ~TransposedPlan();
    TransposedPlan(TransposedPlan&&) noexcept;
    TransposedPlan& operator=(TransposedPlan&&) noexcept;
    void execute(const void* src, void* dst) const;
    // BackwardDataPlan's ("phases=4 blocked_avx512"), with " +bias" when it adds one.
    std::string implementation() const;
    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace convcheck::optimized
