// The CC layer with torch operations beside the optimized one (cc_torch_table.hpp).
#include "cc_torch_table.hpp"

#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/conv2d.h>
#include <ATen/ops/rand.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/version.h>

#include <cstdio>
#include <string>

#include "convcheck/libtorch/cc_torch.hpp"
#include "convcheck/core/cc_descriptor.hpp"
#include "optimized_timer.hpp"
#include "timing.hpp"

namespace convcheck::bench {

namespace {

namespace tcc = convcheck_libtorch::cc;

// The paper's ratios, forward and backward together (seed 004, Tables 5 and 6: one V100, batch 50).
const char* paper_ratio(tcc::CcMethod m) { return m == tcc::CcMethod::standard ? "10-33" : "1.4-4.4 (at 2/3)"; }

at::Tensor uniform(at::IntArrayRef sizes, double scale) { return (at::rand(sizes) * 2.0 - 1.0) * scale; }

struct TorchTimes {
    double forward_ms = 0, forward_backward_ms = 0;
};

// torch's own 3x3 convolution (pads 1, bias) with the CC's output size: forward (no autograd), and forward +
// backward through autograd (gradients of input, weights and bias).
TorchTimes time_torch_conv(std::int64_t n, std::int64_t oh, std::int64_t ow, int threads, double min_seconds) {
    const at::Tensor x = uniform({n, 32, oh, ow}, 1.0), w = uniform({32, 32, 3, 3}, 0.3), b = uniform({32}, 0.3);
    const at::Tensor dy = uniform({n, 32, oh, ow}, 1.0);
    TorchTimes t;
    t.forward_ms = min_time_ms(
        [&] {
            const c10::InferenceMode no_autograd;
            (void)at::conv2d(x, w, b, 1, 1);
        },
        min_seconds, threads);
    const at::Tensor xg = x.clone().set_requires_grad(true), wg = w.clone().set_requires_grad(true),
                     bg = b.clone().set_requires_grad(true);
    t.forward_backward_ms = min_time_ms(
        [&] { (void)torch::autograd::grad({at::conv2d(xg, wg, bg, 1, 1)}, {xg, wg, bg}, {dy}); }, min_seconds, threads);
    return t;
}

// The torch CC: forward (no autograd) and forward + backward (tcc::cc_backward: src, theta).
TorchTimes time_torch_cc(const CcDescriptor& d, tcc::CcMethod method, int threads, double min_seconds) {
    const at::Tensor src = uniform(d.src_dims(), 1.0), dy = uniform(d.dst_dims(), 1.0);
    tcc::CcParameters p;
    if (d.kernel == CcKernel::internal_net) p.theta = uniform({d.theta_elements()}, 0.3);
    TorchTimes t;
    t.forward_ms = min_time_ms(
        [&] {
            const c10::InferenceMode no_autograd;
            (void)tcc::cc_forward(d, src, p, method);
        },
        min_seconds, threads);
    t.forward_backward_ms = min_time_ms([&] { (void)tcc::cc_backward(d, src, p, dy, method); }, min_seconds, threads);
    return t;
}

}  // namespace

void cc_torch_table(const std::vector<int>& threads, const std::vector<int>& batches, double min_seconds) {
    std::printf("\nCC layer, ours and with torch operations (32 -> 32 channels, 3x3 support, Internal-Net 16x16; NCHW; "
                "libtorch headers %s): CC / conv time, ours against our 3x3 convolution, torch's against its at::conv2d "
                "(pads 1, bias) of the CC's output size; fwd+bwd through torch autograd (gradients of src and theta; "
                "of the conv's input, weights and bias); the paper's ratios are fwd+bwd on a V100 GPU, batch 50\n\n",
                TORCH_VERSION);
    std::printf("| CC | n | thr | ours: method | ours: CC / conv | torch: method | torch CC ms | torch conv ms | "
                "torch CC / conv | torch fwd+bwd CC ms | torch fwd+bwd conv ms | torch fwd+bwd CC / conv | paper fwd+bwd "
                "CC / conv |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    const char* cases[] = {"scale=2/3,in=64x64", "scale=2,in=32x32", "scale=0.7071,in=64x64"};
    at::manual_seed(1);
    for (const char* c : cases)
        for (int n : batches)
            for (int t : threads) {
                const CcDescriptor d = parse_cc_descriptor("cc:n=" + std::to_string(n) + ",cin=32,cout=32,support=3x3," + c);
                // ours: the optimized CC and our convolution, as the CC table times them
                const OursCc ours = time_ours_cc(d, t, min_seconds);
                const double ours_conv_ms = time_ours(conv_like_cc(d), t, min_seconds).ms;
                // torch, each method that applies, at t threads
                at::set_num_threads(t);
                const TorchTimes conv = time_torch_conv(d.batch, d.output_size[0], d.output_size[1], t, min_seconds);
                for (tcc::CcMethod m : {tcc::CcMethod::standard, tcc::CcMethod::discrete_convs}) {
                    if (!tcc::why_unavailable(d, m).empty()) continue;
                    const TorchTimes cc = time_torch_cc(d, m, t, min_seconds);
                    std::printf("| %s | %d | %d | %s | %.2f | %s | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %s |\n", c, n, t,
                                ours.method.c_str(), ours.ms / ours_conv_ms,
                                std::string(tcc::to_string(m)).c_str(), cc.forward_ms, conv.forward_ms,
                                cc.forward_ms / conv.forward_ms, cc.forward_backward_ms, conv.forward_backward_ms,
                                cc.forward_backward_ms / conv.forward_backward_ms, paper_ratio(m));
                    std::fflush(stdout);
                }
            }
}

}  // namespace convcheck::bench
