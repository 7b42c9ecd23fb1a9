// convcheck_bench_cc_backward: the optimized CC backward (CcBackwardPlan: diff_src, diff_theta and
// diff_bias) against the optimized CC forward (CcPlan) of the same layer, on the CC layers of
// docs/performance.md (32 -> 32 channels, 3x3 support, Internal-Net 16x16): backward / forward time.
//
//   convcheck_bench_cc_backward [--threads 1,2] [--batch 1,8] [--min-time S] [--clock wall|cpu] [--runs R]
//                               [--only TEXT]
//
// Each time is the minimum over repeated calls (bench/timing.hpp); --runs R repeats the whole
// measurement R times and prints each run's ratio, then the median.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "convcheck/optimized/cc_backward_plan.hpp"
#include "convcheck/optimized/cc_plan.hpp"
#include "timing.hpp"

using namespace convcheck;

namespace {

std::vector<int> parse_list(const std::string& s) {
    std::vector<int> v;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');) v.push_back(std::stoi(item));
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"convcheck_bench_cc_backward: the optimized CC backward against its forward"};
    std::string threads_arg = "1,2", batch_arg = "1,8", clock_arg = "cpu";
    double min_time = 0.3;
    int runs = 3;
    std::string only;
    app.add_option("--threads", threads_arg, "comma-separated thread counts");
    app.add_option("--batch", batch_arg, "comma-separated batch sizes");
    app.add_option("--min-time", min_time, "seconds of repeated calls per measurement (the minimum is kept)");
    app.add_option("--clock", clock_arg, "wall or cpu (process CPU time / threads)");
    app.add_option("--runs", runs, "whole measurements per row (each ratio printed, then the median)");
    app.add_option("--only", only, "only the layers whose text contains this");
    CLI11_PARSE(app, argc, argv);
    bench::clock_choice() = clock_arg == "wall" ? bench::Clock::wall : bench::Clock::cpu;
    std::printf("| CC | n | thr | forward method | forward ms | backward ms | backward / forward | runs' ratios | "
                "backward workspace / diff_src |\n|---|---|---|---|---|---|---|---|---|\n");
    const char* cases[] = {"scale=2/3,in=64x64", "scale=2,in=32x32", "scale=0.7071,in=64x64"};
    for (const char* c : cases)
        if (std::string(c).find(only) != std::string::npos)
        for (int n : parse_list(batch_arg))
            for (int t : parse_list(threads_arg)) {
                const CcDescriptor d = parse_cc_descriptor("cc:n=" + std::to_string(n) + ",cin=32,cout=32,support=3x3,bias=1," + c);
                std::mt19937 rng(1);
                std::uniform_real_distribution<float> u(-1.f, 1.f);
                std::vector<float> src(d.src_elements()), theta(d.theta_elements()), bias(d.out_channels),
                    dst(d.dst_elements()), diff_dst(d.dst_elements()), diff_src(d.src_elements()),
                    diff_theta(d.theta_elements()), diff_bias(d.out_channels);
                for (auto* v : {&src, &theta, &bias, &diff_dst})
                    for (auto& x : *v) x = u(rng) * 0.3f;
                const optimized::CcPlan forward(d, theta.data(), bias.data(), optimized::CcOptions{t});
                const optimized::CcBackwardPlan backward(d, theta.data(), optimized::CcOptions{t});
                std::vector<double> ratios, fwd, bwd;
                for (int r = 0; r < runs; ++r) {
                    fwd.push_back(bench::min_time_ms([&] { forward.execute(src.data(), dst.data()); }, min_time, t));
                    bwd.push_back(bench::min_time_ms([&] {
                        backward.execute(src.data(), diff_dst.data(), diff_src.data(), diff_theta.data(), diff_bias.data());
                    }, min_time, t));
                    ratios.push_back(bwd.back() / fwd.back());
                }
                std::string each;
                for (double r : ratios) each += (each.empty() ? "" : " ") + std::to_string(r).substr(0, 4);
                std::sort(ratios.begin(), ratios.end());
                std::printf("| %s | %d | %d | %s | %.3f | %.3f | %.2f | %s | %.2f |\n", c, n, t,
                            std::string(optimized::to_string(forward.method())).c_str(),
                            *std::min_element(fwd.begin(), fwd.end()), *std::min_element(bwd.begin(), bwd.end()),
                            ratios[ratios.size() / 2], each.c_str(),
                            double(backward.peak_workspace_bytes()) / double(d.src_elements() * 4));
                std::fflush(stdout);
            }
    return 0;
}
