// convcheck_bench_backward: the optimized backward passes against oneDNN's backward primitives, one table in one
// run. For the layers of bench/shapes.cpp (ResNet-50, MobileNet-v2, DeepLab's ASPP and a 3-D layer: a selection by
// default), batch sizes and thread counts: our backward data (diff_dst -> diff_src) and backward weights + bias (src,
// diff_dst -> diff_weights, diff_bias) on NHWC+HWIO f32 buffers, and the speed ratio oneDNN time / ours (> 1: ours is
// faster) against oneDNN 2.6 with every tensor in the layout its primitive chooses (format_tag::any).
//
//   convcheck_bench_backward [--threads 1,2] [--batch 8] [--shapes all|name,name...] [--min-time SECONDS]
//                            [--clock wall|cpu]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "convcheck/optimized/backward_plan.hpp"
#include "fma_ceiling.hpp"
#include "fma_peak.hpp"
#include "inside_macs.hpp"
#include "onednn_backward_timer.hpp"
#include "ratios.hpp"
#include "optimized_timer.hpp"
#include "shapes.hpp"
#include "timing.hpp"

using namespace convcheck;

namespace {

const char* kDefaultShapes =
    "conv1_7x7s2,res2_1x1_64,res2_3x3,res3_3x3s2,res3_downsample,res4_1x1_1024,res5_3x3,"
    "dw32_112,dw96_112s2,dw576_14,pw16_96_112,pw576_96_14";

struct Ours {
    double ms = 0;
    std::string implementation;
};

Ours time_ours(const ConvDescriptor& d, int threads, double min_seconds) {
    // on cache lines, as frameworks and oneDNN's memory objects hand tensors over (ConvData; std::vector's
    // storage lay 16 bytes past a line, as the heap's history had it: dw576_14 backward data 0.42-0.46 ms
    // there, 0.30-0.32 aligned); diff_dst (dst) random too
    bench::ConvData data(d);
    std::mt19937 rng(2);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& x : data.dst) x = u(rng);
    auto &src = data.src, &weights = data.weights, &dst = data.dst, &bias = data.bias;
    const optimized::Options options{threads, optimized::Path::automatic};
    Ours o;
    if (d.pass == Pass::backward_data) {
        const optimized::BackwardDataPlan plan(d, weights.data(), options);
        o.implementation = plan.implementation();
        o.ms = bench::min_time_ms([&] { plan.execute(dst.data(), src.data()); }, min_seconds, threads);
    } else {
        const optimized::BackwardWeightsPlan plan(d, options);
        o.implementation = plan.implementation();
        o.ms = bench::min_time_ms([&] { plan.execute(src.data(), dst.data(), weights.data(), bias.data()); }, min_seconds,
                                  threads);
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"convcheck_bench_backward: the optimized backward passes against oneDNN's backward primitives"};
    std::string threads_text = "1,2", batch_text = "8", shapes_text = kDefaultShapes, clock = "wall";
    double min_seconds = 0.3;
    app.add_option("--threads", threads_text, "thread counts, comma separated");
    app.add_option("--batch", batch_text, "batch sizes, comma separated");
    app.add_option("--shapes", shapes_text, "shape names of bench/shapes.cpp (of any of its sets), or all");
    app.add_option("--min-time", min_seconds, "seconds of repeated runs per measurement (the minimum is kept)");
    app.add_option("--clock", clock, "wall or cpu")->check(CLI::IsMember({"wall", "cpu"}));
    CLI11_PARSE(app, argc, argv);
    bench::clock_choice() = clock == "cpu" ? bench::Clock::cpu : bench::Clock::wall;
    std::vector<int> threads, batches;
    for (const auto& t : bench::split_list(threads_text)) threads.push_back(std::stoi(t));
    for (const auto& b : bench::split_list(batch_text)) batches.push_back(std::stoi(b));
    const std::vector<std::string> wanted = bench::split_list(shapes_text);
    std::map<int, double> peak;
    for (int t : threads) peak[t] = bench::measured_fma_peak_gflops(t);
    std::printf("Backward passes, f32, NHWC+HWIO buffers (ours) vs oneDNN 2.6 format_tag::any (its best layout); "
                "ratio = oneDNN ms / ours (> 1: ours is faster); bwd_w includes diff_bias\nmeasured f32 FMA peak:");
    for (auto [t, g] : peak) std::printf("  %d thread(s) %.1f GFLOP/s", t, g);
    std::printf("\n\n| set | shape | n | thr | pass | implementation | ms | GFLOP/s | %% peak | scaling | oneDNN ms | "
                "vs oneDNN best |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::map<std::pair<int, std::string>, std::vector<double>> ratios;  // (threads, pass) -> ratios
    // scaling efficiency (bench::scaling_efficiency)
    std::map<std::pair<int, std::string>, std::vector<double>> efficiency;  // (threads, pass) -> each row's
    std::map<std::string, double> ms_at_one_thread;                          // shape/n/pass -> ms
    bench::FmaCeiling ceiling;                                               // per (threads, pass)
    for (const auto& shape : bench::all_shapes()) {
        if (shapes_text != "all" && std::find(wanted.begin(), wanted.end(), shape.name) == wanted.end()) continue;
        for (const int n : batches)
            for (const int t : threads)
                for (const Pass pass : {Pass::backward_data, Pass::backward_weights}) {
                    ConvDescriptor d = parse_descriptor("conv:n=" + std::to_string(n) + "," + shape.descriptor +
                                                        ",dt=f32,data=nxc,wei=xio,bias=1");
                    d.pass = pass;
                    const Ours ours = time_ours(d, t, min_seconds);
                    const auto theirs = bench::time_onednn_backward(d, t, min_seconds);
                    const double gflops = 2.0 * static_cast<double>(d.macs()) / (ours.ms * 1e6);
                    const std::string pass_name(to_string(pass)), key = shape.name + "/" + std::to_string(n) + "/" + pass_name;
                    std::string ratio = "-", onednn = "-";
                    if (theirs) {
                        ratios[{t, pass_name}].push_back(*theirs / ours.ms);
                        ceiling.add(t, pass_name, !bench::depthwise(d), bench::inside_macs(d), *theirs, ours.ms);
                        char b[64];
                        std::snprintf(b, sizeof b, "%.3f", *theirs);
                        onednn = b;
                        std::snprintf(b, sizeof b, "%.2f", *theirs / ours.ms);
                        ratio = b;
                    }
                    const std::string scaling =
                        bench::scaling_efficiency(ms_at_one_thread, key, t, ours.ms, efficiency[{t, pass_name}]);
                    std::printf("| %s | %s | %d | %d | %s | %s | %.3f | %.1f | %.0f%% | %s | %s | %s |\n", shape.set.c_str(),
                                shape.name.c_str(), n, t, pass_name.c_str(), ours.implementation.c_str(), ours.ms, gflops,
                                100.0 * gflops / peak[t], scaling.c_str(), onednn.c_str(), ratio.c_str());
                    std::fflush(stdout);
                }
    }
    std::printf("\nGeometric means of the ratio (oneDNN best / ours):\n\n| threads | pass | shapes | geomean |\n|---|---|---|---|\n");
    for (const auto& [key, values] : ratios)
        std::printf("| %d | %s | %zu | **%.2f** |\n", key.first, key.second.c_str(), values.size(), bench::geomean(values));
    std::printf("\n");
    ceiling.print(peak);
    std::erase_if(efficiency, [](const auto& e) { return e.second.empty(); });  // one thread: no efficiency
    if (!efficiency.empty())
        std::printf("\nScaling efficiency of ours (the 1-thread time / (threads x this)):\n\n| threads | pass | rows | geomean | "
                    "lowest |\n|---|---|---|---|---|\n");
    for (const auto& [key, values] : efficiency)
        std::printf("| %d | %s | %zu | %.0f %% | %.0f %% |\n", key.first, key.second.c_str(), values.size(),
                    100.0 * bench::geomean(values), 100.0 * *std::min_element(values.begin(), values.end()));
    return 0;
}
