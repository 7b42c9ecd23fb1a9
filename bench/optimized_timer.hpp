// Timing the optimized discrete convolution and CC layer on random data (bench_table.cpp, cc_torch_table.cpp,
// conv_bench.cpp).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/optimized/cc_plan.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "timing.hpp"

namespace convcheck::bench {

// A convolution's buffers, uniform in [-1, 1) from a fixed seed (dst zero).
struct ConvData {
    explicit ConvData(const ConvDescriptor& d)
        : src(d.src_elements()), weights(d.weights_elements()), bias(d.out_channels), dst(d.dst_elements()) {
        std::mt19937 rng(1);
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        for (auto* v : {&src, &weights, &bias})
            for (auto& x : *v) x = u(rng);
    }
    std::vector<float> src, weights, bias, dst;
};

struct Ours {
    double ms = 0;
    std::string path;
};

// The optimized plan of d on random data (with bias), its minimum time.
inline Ours time_ours(const ConvDescriptor& d, int threads, double min_seconds) {
    ConvData data(d);
    const optimized::ConvPlan plan(d, data.weights.data(), data.bias.data(),
                                   optimized::Options{threads, optimized::Path::automatic});
    Ours o;
    o.path = std::string(plan.path_name());
    o.ms = min_time_ms([&] { plan.execute(data.src.data(), data.dst.data()); }, min_seconds, threads);
    return o;
}

struct OursCc {
    double ms = 0;
    std::string method;
    double workspace_per_output = 0;  // peak workspace bytes / the output tensor's bytes
};

// The optimized CC plan of d (no bias) on src and theta uniform in [-0.3, 0.3), its minimum time.
inline OursCc time_ours_cc(const CcDescriptor& d, int threads, double min_seconds) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> src(d.src_elements()), theta(d.theta_elements()), dst(d.dst_elements());
    for (auto* v : {&src, &theta})
        for (auto& x : *v) x = u(rng) * 0.3f;
    const float* kernel_theta = d.kernel == CcKernel::internal_net ? theta.data() : nullptr;
    const optimized::CcPlan plan(d, kernel_theta, nullptr, optimized::CcOptions{threads});
    OursCc o;
    o.ms = min_time_ms([&] { plan.execute(src.data(), dst.data()); }, min_seconds, threads);
    o.method = std::string(optimized::to_string(plan.method()));
    o.workspace_per_output = double(plan.peak_workspace_bytes()) / double(d.dst_elements() * 4);
    return o;
}

// The discrete convolution a CC layer is compared with: 3x3, pads 1, the CC's channels and output size, NCHW.
inline ConvDescriptor conv_like_cc(const CcDescriptor& d) {
    return parse_descriptor("conv:n=" + std::to_string(d.batch) + ",c=" + std::to_string(d.in_channels) +
                            ",o=" + std::to_string(d.out_channels) + ",in=" + std::to_string(d.output_size[0]) + "x" +
                            std::to_string(d.output_size[1]) + ",k=3x3,pb=1x1,pe=1x1,data=ncx,wei=oix");
}

}  // namespace convcheck::bench
