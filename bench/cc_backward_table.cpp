// convcheck_bench_cc_backward: the optimized CC backward (CcBackwardPlan: diff_src, diff_theta and
// diff_bias) against the optimized CC forward (CcPlan) of the same layer, on the CC layers of
// docs/performance.md (32 -> 32 channels, 3x3 support, Internal-Net 16x16): backward / forward time.
//
//   convcheck_bench_cc_backward [--threads 1,2] [--batch 1,8] [--min-time S] [--clock wall|cpu] [--runs R]
//                               [--only TEXT] [--backward-only S] [--bits]
//
// Each time is the minimum over repeated calls (bench/timing.hpp); --runs R repeats the whole
// measurement R times and prints each run's ratio, then the median. --backward-only S runs only the
// backward of each selected layer for S seconds and prints nothing (for `perf record`).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "optimized_timer.hpp"
#include "shapes.hpp"
#include "timing.hpp"

using namespace convcheck;

namespace {

std::vector<int> int_list(const std::string& text) {
    std::vector<int> v;
    for (const auto& item : bench::split_list(text)) v.push_back(std::stoi(item));
    return v;
}

// FNV-1a over the bits of diff_src, diff_theta and diff_bias.
std::uint64_t gradient_bits(const bench::CcData& x) {
    std::uint64_t h = 14695981039346656037ull;
    const auto add = [&](const std::vector<float>& v) {
        for (float f : v) {
            std::uint32_t u = 0;
            std::memcpy(&u, &f, 4);
            h = (h ^ u) * 1099511628211ull;
        }
    };
    add(x.diff_src);
    add(x.diff_theta);
    add(x.diff_bias);
    return h;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"convcheck_bench_cc_backward: the optimized CC backward against its forward"};
    std::string threads_arg = "1,2", batch_arg = "1,8", clock_arg = "cpu";
    double min_time = 0.3;
    int runs = 3;
    std::string only;
    double backward_only = 0;
    bool bits = false;
    app.add_option("--threads", threads_arg, "comma-separated thread counts");
    app.add_option("--batch", batch_arg, "comma-separated batch sizes");
    app.add_option("--min-time", min_time, "seconds of repeated calls per measurement (the minimum is kept)");
    app.add_option("--clock", clock_arg, "wall or cpu (process CPU time / threads)");
    app.add_option("--runs", runs, "whole measurements per row (each ratio printed, then the median)");
    app.add_option("--only", only, "only the layers whose text contains this");
    app.add_option("--backward-only", backward_only, "run only the backward, this many seconds per row (for a profiler)");
    app.add_flag("--bits", bits,
                 "print a hash of each row's gradients' bits instead of timing (two builds must agree)");
    CLI11_PARSE(app, argc, argv);
    bench::clock_choice() = clock_arg == "wall" ? bench::Clock::wall : bench::Clock::cpu;
    if (!bits)
        std::printf("| CC | n | thr | forward method | forward ms | backward ms | backward / forward | runs' ratios | "
                    "backward workspace / diff_src |\n|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string& c : bench::paper_cc_scales())
        if (c.find(only) != std::string::npos)
        for (int n : int_list(batch_arg))
            for (int t : int_list(threads_arg)) {
                const CcDescriptor d = bench::paper_cc_layer(n, c, /*bias=*/true);
                bench::CcData x(d);
                const optimized::CcPlan forward(d, x.theta_in(), x.bias_in(), optimized::CcOptions{t});
                const optimized::CcBackwardPlan backward(d, x.theta_in(), optimized::CcOptions{t});
                const auto run_backward = [&] {
                    backward.execute(x.src.data(), x.diff_dst.data(), x.diff_src.data(), x.diff_theta_out(),
                                     x.diff_bias_out());
                };
                if (bits) {
                    run_backward();
                    std::printf("| %s | %d | %d | bits %016llx |\n", c.c_str(), n, t,
                                static_cast<unsigned long long>(gradient_bits(x)));
                    continue;
                }
                if (backward_only > 0) {
                    bench::min_time_ms(run_backward, backward_only, t);
                    continue;
                }
                std::vector<double> ratios, fwd, bwd;
                for (int r = 0; r < runs; ++r) {
                    fwd.push_back(bench::min_time_ms([&] { forward.execute(x.src.data(), x.dst.data()); }, min_time, t));
                    bwd.push_back(bench::min_time_ms(run_backward, min_time, t));
                    ratios.push_back(bwd.back() / fwd.back());
                }
                std::string each;
                for (double r : ratios) each += (each.empty() ? "" : " ") + std::to_string(r).substr(0, 4);
                std::sort(ratios.begin(), ratios.end());
                std::printf("| %s | %d | %d | %s | %.3f | %.3f | %.2f | %s | %.2f |\n", c.c_str(), n, t,
                            std::string(optimized::to_string(forward.method())).c_str(),
                            *std::min_element(fwd.begin(), fwd.end()), *std::min_element(bwd.begin(), bwd.end()),
                            ratios[ratios.size() / 2], each.c_str(),
                            double(backward.peak_workspace_bytes()) / double(d.src_elements() * 4));
                std::fflush(stdout);
            }
    return 0;
}
