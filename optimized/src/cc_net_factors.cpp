// The Internal-Net's shared pieces (cc_net_factors.hpp).
#include "cc_net_factors.hpp"

namespace convcheck::optimized::detail {

using i64 = std::int64_t;

CcNetFactors::CcNetFactors(const CcDescriptor& d, const CcKernelParams& kernel, const AxisWindows& height,
                           const AxisWindows& width)
    : h1(kernel.h1), h2(kernel.h2), h2p((kernel.h2 + 7) / 8 * 8) {
    const i64 Cin = d.in_channels, Cout = d.out_channels;
    // the first layer splits over the axes: W1[j][0] dy + b1[j] per output row, W1[j][1] dx per column
    for (i64 n = 0; n < d.output_size[0] * d.support[0]; ++n)
        for (i64 j = 0; j < h1; ++j)
            ay.push_back(static_cast<float>(kernel.W1[j * 2] * height.distance[n] + kernel.b1[j]));
    for (i64 n = 0; n < d.output_size[1] * d.support[1]; ++n)
        for (i64 j = 0; j < h1; ++j) ax.push_back(static_cast<float>(kernel.W1[j * 2 + 1] * width.distance[n]));
    w2t.assign(h1 * h2p, 0.0f);
    b2.assign(h2p, 0.0f);
    for (i64 m = 0; m < h2; ++m) {
        b2[m] = static_cast<float>(kernel.b2[m]);
        for (i64 j = 0; j < h1; ++j) w2t[j * h2p + m] = static_cast<float>(kernel.W2[m * h1 + j]);
    }
    hidden = CcHiddenProblem{h1, h2p, d.support[0], d.support[1], d.output_size[1], d.input_size[0], d.input_size[1],
                             height.first.data(), width.first.data(), ay.data(), ax.data(), w2t.data(), b2.data(),
                             static_cast<float>(kernel.slope)};
    contract = CcContractProblem{Cin, h2p, d.support[0], d.support[1], d.output_size[1], d.input_size[0],
                                 d.input_size[1], height.first.data(), width.first.data(), h2};
    depth = Cin * (h2p + 1);
    last.assign(static_cast<std::size_t>(Cout * depth), 0.0f);
    for (i64 co = 0; co < Cout; ++co)
        for (i64 ci = 0; ci < Cin; ++ci) {
            const i64 c = co * Cin + ci;
            for (i64 m = 0; m < h2; ++m) last[co * depth + ci * h2p + m] = static_cast<float>(kernel.W3[c * h2 + m]);
            last[co * depth + Cin * h2p + ci] = static_cast<float>(kernel.b3[c]);
        }
}

}  // namespace convcheck::optimized::detail
