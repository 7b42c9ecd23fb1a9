// convcheck_bench_int8: the optimized quantized convolution against oneDNN's int8 convolution, one table in one run.
// For every shape of the chosen sets (bench/shapes.cpp), batch sizes and thread counts: the optimized plan's time
// on channels-last u8 src / s8 HWIO weights / u8 dst (s32 bias, per-output-channel weights scales, the rule
// nearest_even_f32_with_zero_point, oneDNN's), its int8 GOP/s, and the speed ratio (oneDNN time / ours; > 1: ours
// is faster) against oneDNN on the same descriptor in the layouts it chooses (best) and on channels-last src/dst.
//
//   convcheck_bench_int8 [--threads 1,2] [--batch 1] [--set resnet50,mobilenet_v2] [--shapes all|name,...]
//                        [--dt u8:s8:u8] [--zero-points] [--no-onednn] [--min-time SECONDS] [--clock wall|cpu]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "convcheck/core/cache_line_allocator.hpp"
#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/optimized/quantized_plan.hpp"
#include "onednn_int8_timer.hpp"
#include "ratios.hpp"
#include "shapes.hpp"
#include "timing.hpp"

using namespace convcheck;

namespace {

struct Ours {
    double ms = 0;
    std::string path;
};

// buffers on a cache line, as frameworks hand tensors over (optimized_timer.hpp) and oneDNN's memory objects are
using Bytes = std::vector<unsigned char, CacheLineAllocator<unsigned char>>;

Bytes random_bytes(std::int64_t n, unsigned seed) {
    std::mt19937 rng(seed);
    Bytes v(static_cast<std::size_t>(n));
    for (auto& b : v) b = static_cast<unsigned char>(rng());
    return v;
}

Ours time_ours(const QuantizedDescriptor& q, const std::vector<float>& scales, int threads, double min_seconds) {
    const ConvDescriptor& d = q.conv;
    const auto src = random_bytes(d.src_elements(), 1), weights = random_bytes(d.weights_elements(), 2);
    std::mt19937 rng(3);
    std::vector<std::int32_t> bias;
    for (std::int64_t o = 0; o < d.out_channels; ++o) bias.push_back(std::uniform_int_distribution<std::int32_t>(-1000, 1000)(rng));
    Bytes dst(static_cast<std::size_t>(d.dst_elements() * (q.dst == IntegerType::s32 ? 4 : 1)));
    const optimized::QuantizedPlan plan(q, scales, weights.data(), bias.data(), {.threads = threads});
    Ours o;
    o.path = plan.implementation();
    o.ms = bench::min_time_ms([&] { plan.execute(src.data(), dst.data()); }, min_seconds, threads);
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"convcheck_bench_int8: the optimized int8 convolution against oneDNN's, one table"};
    std::string threads_arg = "1,2", batch_arg = "1", set_arg = "resnet50,mobilenet_v2", shapes_arg = "all",
                dt = "u8:s8:u8", clock = "wall";
    bool zero_points = false, no_onednn = false;
    double min_time = 0.3;
    app.add_option("--threads", threads_arg, "comma-separated thread counts");
    app.add_option("--batch", batch_arg, "comma-separated batch sizes");
    app.add_option("--set", set_arg, "comma-separated shape sets of bench/shapes.cpp");
    app.add_option("--shapes", shapes_arg, "shape names (within the sets), or all");
    app.add_option("--dt", dt, "src:weights:dst integer types (weights s8: oneDNN's int8 convolution)");
    app.add_flag("--zero-points", zero_points, "src zero point 3 and dst zero point 5 (default: none)");
    app.add_flag("--no-onednn", no_onednn, "time only the optimized implementation");
    app.add_option("--min-time", min_time, "seconds of repeated runs per measurement (the minimum is kept)");
    app.add_option("--clock", clock, "wall: wall time; cpu: process CPU time / threads")->check(CLI::IsMember({"wall", "cpu"}));
    CLI11_PARSE(app, argc, argv);
    bench::clock_choice() = clock == "cpu" ? bench::Clock::cpu : bench::Clock::wall;
    std::vector<int> threads, batches;
    for (const auto& t : bench::split_list(threads_arg)) threads.push_back(std::stoi(t));
    for (const auto& b : bench::split_list(batch_arg)) batches.push_back(std::stoi(b));
    const auto sets = bench::split_list(set_arg), wanted = bench::split_list(shapes_arg);

    std::printf("int8 convolution, dt=%s, s32 bias, per-output-channel weights scales, %s; ratios are oneDNN time / "
                "optimized time (> 1: optimized is faster); times are the minimum of repeated runs, clock: %s\n\n",
                dt.c_str(), zero_points ? "src zero point 3, dst zero point 5" : "no zero points", clock.c_str());
    std::printf("| set | shape | n | thr | path | ms (NHWC) | GOP/s | scaling | vs oneDNN best | vs oneDNN NHWC |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
    std::map<std::pair<std::string, int>, std::vector<double>> vs_best, vs_nhwc, efficiency;
    std::map<std::string, double> ms_at_one_thread;  // shape/n -> ms
    for (const auto& set : sets)
        for (const auto& shape : bench::all_shapes()) {
            if (shape.set != set) continue;
            if (shapes_arg != "all" && std::find(wanted.begin(), wanted.end(), shape.name) == wanted.end()) continue;
            for (int n : batches)
                for (int t : threads) {
                    QuantizedDescriptor q = parse_quantized_descriptor(
                        "qconv:n=" + std::to_string(n) + "," + shape.descriptor + ",bias=1,data=nxc,wei=xio,dt=" + dt +
                        ",ssc=0.05,dsc=0.1" + (zero_points ? ",szp=3,dzp=5" : ""));
                    std::vector<float> scales;
                    for (std::int64_t o = 0; o < q.conv.out_channels; ++o) scales.push_back(0.002f + 0.0001f * float(o % 17));
                    const Ours ours = time_ours(q, scales, t, min_time);
                    const bench::OnednnInt8Times dn =
                        no_onednn ? bench::OnednnInt8Times{} : bench::time_onednn_int8(q, scales, t, min_time);
                    if (dn.best_ms) vs_best[{set, t}].push_back(*dn.best_ms / ours.ms);
                    if (dn.nhwc_ms) vs_nhwc[{set, t}].push_back(*dn.nhwc_ms / ours.ms);
                    const double gops = 2.0 * double(q.conv.macs()) / (ours.ms * 1e-3) / 1e9;
                    const std::string scaling = bench::scaling_efficiency(
                        ms_at_one_thread, shape.name + "/" + std::to_string(n), t, ours.ms, efficiency[{set, t}]);
                    std::printf("| %s | %s | %d | %d | %s | %.3f | %.1f | %s | %s | %s |\n", set.c_str(), shape.name.c_str(),
                                n, t, ours.path.c_str(), ours.ms, gops, scaling.c_str(),
                                bench::fmt_ratio(dn.best_ms, ours.ms).c_str(), bench::fmt_ratio(dn.nhwc_ms, ours.ms).c_str());
                    std::fflush(stdout);
                }
        }
    std::printf("\nsummary (geometric means of the ratios above)\n");
    for (const auto& set : sets)
        for (int t : threads)
            std::printf("  %s, %d thread(s): vs oneDNN best %.2f, vs oneDNN NHWC %.2f%s\n", set.c_str(), t,
                        bench::geomean(vs_best[{set, t}]), bench::geomean(vs_nhwc[{set, t}]),
                        efficiency[{set, t}].empty()
                            ? ""
                            : (", scaling efficiency " +
                               std::to_string(static_cast<int>(100.0 * bench::geomean(efficiency[{set, t}]) + 0.5)) + " %")
                                  .c_str());
    return 0;
}
