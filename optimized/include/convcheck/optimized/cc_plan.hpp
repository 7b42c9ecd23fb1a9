// The optimized continuous convolution (CC) layer (seed 004), f32, NCHW, on top of the blocked
// discrete convolution. Two methods:
//
//   polyphase  (rational scales p/q, the paper's "by discrete convs"): the projected grid is periodic,
//              g_{n+p} = g_n + q, so only p_h * p_w sets of weights exist. Each set is one discrete
//              convolution with stride q_h x q_w whose outputs land on every p-th row and column; the
//              blocked kernels write them there directly (interleaved), from one padded copy of the input.
//   chunked    (any scale; the only one for a real scale): no weight tensor, not even per pixel. For the
//              Internal-Net, whose last layer is linear, output pixels are taken in fixed-size chunks in
//              row-major order; per chunk the hidden features of its distance pairs (f32, the first layer
//              split over the axes in double), then per image the input contracted with them
//              (Z[cin][m] = sum_taps h_m N, S[cin] = sum_taps N) and one GEMM with the packed [W3 | b3].
//              The extra memory held at once is at most (threads working at once) x (one chunk), and a
//              chunk is about a quarter of the output tensor (at least one pixel). For an analytic kernel every channel
//              pair has the same weight: per output row, channel sums of the input rows, then the taps
//              (chosen for analytic kernels at every scale).
//
// Every output is summed in one fixed order by one task, and chunk sizes depend only on the descriptor:
// results are bitwise identical for any thread count. Polyphase evaluates the weights in double and
// rounds them once to f32; accumulation is f32 (docs/optimized.md, "The CC layer", has the orders).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck::optimized {

enum class CcMethod : int { automatic = 0, polyphase, chunked };
std::string_view to_string(CcMethod method);

struct CcOptions {
    int threads = 0;                         // 0: TBB's default
    CcMethod forced_method = CcMethod::automatic;  // polyphase on a real scale is a ConvError
};

// Why `method` cannot run `d` on this CPU, or an empty string when it can.
std::string why_unavailable(const CcDescriptor& d, CcMethod method);

class CcPlan {
public:
    // Validates d (throws ConvError). theta: d.theta_elements() f32 values in the ABI order
    // W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout] (null for an analytic
    // kernel); bias: Cout values, null when !d.has_bias. The polyphase method evaluates and packs its
    // weights here, once.
    CcPlan(const CcDescriptor& d, const float* theta, const float* bias, CcOptions options = {});
    ~CcPlan();
    CcPlan(CcPlan&&) noexcept;
    CcPlan& operator=(CcPlan&&) noexcept;

    // src [N][Cin][H][W] f32 -> dst [N][Cout][H'][W'] f32.
    void execute(const float* src, float* dst) const;

    CcMethod method() const;
    // The most workspace bytes held at once during the last execute (inputs, outputs and the plan's
    // packed weights excluded; Eigen's internal GEMM blocking buffers not counted).
    std::int64_t peak_workspace_bytes() const;
    // The bytes of one chunk's buffers (chunked method), 0 otherwise.
    std::int64_t chunk_bytes() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace convcheck::optimized
