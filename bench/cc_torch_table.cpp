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
#include "cc_passes.hpp"
#include "optimized_timer.hpp"

namespace convcheck::bench {

namespace {

namespace tcc = convcheck_libtorch::cc;

// The paper's ratios, forward and backward together (seed 004, Tables 5 and 6: one V100, batch 50), for a
// method: torch's by name; ours by the paper's method it stands beside (polyphase is the by-discrete-convs idea;
// at a real scale the paper has only the standard method).
const char* paper_ratio(const std::string& method) {
    if (method == "standard") return "10-33";
    if (method == "discrete_convs") return "1.4-4.4 (at 2/3)";
    if (method == "polyphase") return "1.4-4.4 (by discrete convs, at 2/3)";
    return "10-33 (standard: the paper's only method at a real scale)";
}

at::Tensor uniform(at::IntArrayRef sizes, double scale) { return (at::rand(sizes) * 2.0 - 1.0) * scale; }

// torch's own 3x3 convolution (pads 1, bias) with the CC's output size: forward (no autograd), and forward +
// backward through autograd (gradients of input, weights and bias). The baseline of every row.
Passes torch_conv(std::int64_t n, std::int64_t oh, std::int64_t ow, int threads, double min_seconds) {
    const at::Tensor x = uniform({n, 32, oh, ow}, 1.0), w = uniform({32, 32, 3, 3}, 0.3), b = uniform({32}, 0.3);
    const at::Tensor dy = uniform({n, 32, oh, ow}, 1.0);
    const at::Tensor xg = x.clone().set_requires_grad(true), wg = w.clone().set_requires_grad(true),
                     bg = b.clone().set_requires_grad(true);
    const std::int64_t y_bytes = 4 * n * 32 * oh * ow;
    return measure_passes(
        [&] {
            const c10::InferenceMode no_autograd;
            (void)at::conv2d(x, w, b, 1, 1);
        },
        [&] { (void)torch::autograd::grad({at::conv2d(xg, wg, bg, 1, 1)}, {xg, wg, bg}, {dy}); },
        ResultBytes{y_bytes, y_bytes + 4 * (w.numel() + b.numel())}, threads, min_seconds);
}

// The torch CC: forward (no autograd) and forward + backward (tcc::cc_backward: the gradients of src and theta).
Passes torch_cc(const CcDescriptor& d, tcc::CcMethod method, int threads, double min_seconds) {
    const at::Tensor src = uniform(d.src_dims(), 1.0), dy = uniform(d.dst_dims(), 1.0);
    tcc::CcParameters p;
    if (d.kernel == CcKernel::internal_net) p.theta = uniform({d.theta_elements()}, 0.3);
    return measure_passes(
        [&] {
            const c10::InferenceMode no_autograd;
            (void)tcc::cc_forward(d, src, p, method);
        },
        [&] { (void)tcc::cc_backward(d, src, p, dy, method); },
        ResultBytes{4 * d.dst_elements(), 4 * (d.src_elements() + (p.theta.defined() ? d.theta_elements() : 0))}, threads,
        min_seconds);
}

// Ours: the optimized CC, forward (CcPlan) and forward + backward (ours_cc_step: CcPlan, then CcBackwardPlan),
// writing into buffers made before (no results allocated by the call). Per call: the plans made from theta in
// the call, as in a training step (theta changes every step); once: made before, the timed calls only execute.
// The workspaces are the per-call calls' in both (a plan keeps its workspace between calls, so an execute of a
// plan made before adds nothing).
struct OursRows {
    Passes per_call, once;
};
OursRows ours_cc(const CcDescriptor& d, int threads, double min_seconds) {
    CcData x(d);
    const optimized::CcOptions options{threads};
    const auto forward_per_call = [&] {
        const optimized::CcPlan plan(d, x.theta_in(), x.bias_in(), options);
        plan.execute(x.src.data(), x.dst.data());
    };
    const auto step_per_call = [&] { ours_cc_step(d, x, threads); };
    OursRows rows;
    rows.per_call = measure_passes(forward_per_call, step_per_call, ResultBytes{}, threads, min_seconds);
    const optimized::CcPlan forward(d, x.theta_in(), x.bias_in(), options);
    const optimized::CcBackwardPlan backward(d, x.theta_in(), options);
    const auto forward_once = [&] { forward.execute(x.src.data(), x.dst.data()); };
    rows.once = time_passes(
        forward_once,
        [&] {
            forward_once();
            backward.execute(x.src.data(), x.diff_dst.data(), x.diff_src.data(), x.diff_theta_out(), x.diff_bias_out());
        },
        threads, min_seconds);
    rows.once.forward.peak = rows.per_call.forward.peak;
    rows.once.forward_backward.peak = rows.per_call.forward_backward.peak;
    return rows;
}

std::string ours_method(const CcDescriptor& d) {
    CcData x(d);
    return std::string(optimized::to_string(optimized::CcPlan(d, x.theta_in(), x.bias_in()).method()));
}

}  // namespace

void cc_torch_table(const std::vector<int>& threads, const std::vector<int>& batches, double min_seconds) {
    std::printf("\nCC layer, ours and with torch operations, beside the paper (32 -> 32 channels, 3x3 support, "
                "Internal-Net 16x16; NCHW; libtorch headers %s): each row's time against torch's at::conv2d (3x3, pads "
                "1, bias) of the CC's output size, measured in the same run; fwd: forward (torch: InferenceMode; ours: "
                "its plan made in the call, or once before), fwd+bwd: forward and backward (torch autograd: the "
                "gradients of src and theta, of the conv's input, weights and bias; ours: CcPlan, then CcBackwardPlan); "
                "workspace: the peak resident memory the call adds less its results, and against the CC's output; the "
                "paper's ratios are fwd+bwd on a V100 GPU, batch 50\n\n",
                TORCH_VERSION);
    std::printf("| CC | n | thr | implementation: method | fwd ms | fwd / conv | fwd+bwd ms | fwd+bwd / conv | fwd "
                "workspace | fwd+bwd workspace | paper fwd+bwd CC / conv |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    at::manual_seed(1);
    for (const std::string& c : paper_cc_scales())
        for (int n : batches)
            for (int t : threads) {
                const CcDescriptor d = paper_cc_layer(n, c);
                const std::int64_t output_bytes = 4 * d.dst_elements();
                at::set_num_threads(t);
                const Passes conv = torch_conv(d.batch, d.output_size[0], d.output_size[1], t, min_seconds);
                const auto row = [&](const std::string& implementation, const Passes& p, const char* paper) {
                    std::printf("| %s | %d | %d | %s | %s | %s |\n", c.c_str(), n, t, implementation.c_str(),
                                pass_cells(p, conv, output_bytes).c_str(), paper);
                    std::fflush(stdout);
                };
                row("torch: at::conv2d", conv, "1");
                const std::string method = ours_method(d);
                const OursRows ours = ours_cc(d, t, min_seconds);
                row("ours: " + method + ", plans per call", ours.per_call, paper_ratio(method));
                row("ours: " + method + ", plans made once", ours.once, paper_ratio(method));
                for (tcc::CcMethod m : {tcc::CcMethod::standard, tcc::CcMethod::discrete_convs})
                    if (tcc::why_unavailable(d, m).empty())
                        row("torch: " + std::string(tcc::to_string(m)), torch_cc(d, m, t, min_seconds),
                            paper_ratio(std::string(tcc::to_string(m))));
            }
}

}  // namespace convcheck::bench
