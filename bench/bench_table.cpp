// convcheck_bench_table: one table in one run. For every shape of the chosen sets, batch sizes and
// thread counts: the optimized plan's time on NHWC+HWIO buffers, its GFLOP/s and % of the measured
// FMA peak, and the speed ratio (oneDNN time / ours; > 1: ours is faster) against oneDNN's best
// layout, and against oneDNN on the same plain NCHW / NHWC buffers with its reorders counted (the better
// of its primitive on the plain layouts and reorders around its best layout), and against that plain-layout
// primitive alone (what benchdnn times with --stag=nchw / nhwc).
//
//   convcheck_bench_table [--threads 1,2] [--batch 1,8] [--set resnet50,mobilenet_v2,deeplab,conv3d,cc,cc_torch]
//                         [--shapes all|name,...] [--quick] [--min-time SECONDS] [--no-onednn] [--clock wall|cpu]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "convcheck/optimized/cc_plan.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "fma_ceiling.hpp"
#include "fma_peak.hpp"
#include "inside_macs.hpp"
#ifdef CONVCHECK_BENCH_LIBTORCH
#include "cc_torch_table.hpp"
#endif
#include "onednn_timer.hpp"
#include "optimized_timer.hpp"
#include "ratios.hpp"
#include "shapes.hpp"
#include "timing.hpp"

using namespace convcheck;

namespace {

using bench::Ours;
using bench::time_ours;

// The CC layer against a discrete convolution with the same support and output size (NCHW both).
void cc_table(const std::vector<int>& threads, const std::vector<int>& batches, double min_seconds) {
    std::printf("\nCC layer (32 -> 32 channels, 3x3 support, Internal-Net 16x16 unless a kernel is named; NCHW): "
                "time against our discrete 3x3 "
                "convolution with the same output size; workspace against the output tensor\n\n");
    std::printf("| CC | n | thr | method | CC ms | conv ms | CC / conv | peak workspace / output |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    // the Internal-Net (the paper's kernel), then the analytic kernels at a rational and a real scale
    const char* cases[] = {"scale=2/3,in=64x64", "scale=2,in=32x32", "scale=0.7071,in=64x64", "scale=1.37,in=48x48",
                           "scale=2/3,in=64x64,kernel=linear", "scale=0.7071,in=64x64,kernel=linear",
                           "scale=2/3,in=64x64,kernel=cubic", "scale=0.7071,in=64x64,kernel=cubic",
                           "scale=2/3,in=64x64,kernel=gaussian,sigma=0.7", "scale=0.7071,in=64x64,kernel=gaussian,sigma=0.7"};
    for (const char* c : cases)
        for (int n : batches)
            for (int t : threads) {
                const CcDescriptor d = bench::paper_cc_layer(n, c);
                const bench::OursCc cc = bench::time_ours_cc(d, t, min_seconds);
                const double conv_ms = time_ours(bench::conv_like_cc(d), t, min_seconds).ms;
                std::printf("| %s | %d | %d | %s | %.3f | %.3f | %.2f | %.2f |\n", c, n, t, cc.method.c_str(), cc.ms, conv_ms,
                            cc.ms / conv_ms, cc.workspace_per_output);
                std::fflush(stdout);
            }
}

using bench::fmt_ratio;
using bench::geomean;

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"convcheck_bench_table: the optimized convolution against oneDNN, one table"};
    std::string threads_arg = "1,2", batch_arg = "1,8", set_arg = "resnet50,mobilenet_v2,deeplab,conv3d,cc";
    bool quick = false, no_onednn = false;
    double min_time = 0.3;
    app.add_option("--threads", threads_arg, "comma-separated thread counts");
    app.add_option("--batch", batch_arg, "comma-separated batch sizes");
    app.add_option("--set", set_arg,
                   "comma-separated shape sets (resnet50, mobilenet_v2, deeplab, conv3d, cc; cc_torch: the CC paper "
                   "table, ours and the CC with torch operations against torch's conv, forward and forward+backward, "
                   "with workspaces, when built with the libtorch plugin)");
    app.add_option("--min-time", min_time, "seconds of repeated runs per measurement (the minimum is kept)");
    std::string shapes_arg = "all";
    app.add_option("--shapes", shapes_arg, "shape names of bench/shapes.cpp (within the sets), or all");
    app.add_flag("--quick", quick, "batch 1, the first three shapes of each set, short runs");
    app.add_flag("--no-onednn", no_onednn, "time only the optimized implementation");
    std::string clock = "wall";
    app.add_option("--clock", clock, "wall: wall time; cpu: process CPU time / threads (robust on a shared machine)")
        ->check(CLI::IsMember({"wall", "cpu"}));
    CLI11_PARSE(app, argc, argv);
    std::vector<int> threads, batches;
    for (const auto& t : bench::split_list(threads_arg)) threads.push_back(std::stoi(t));
    for (const auto& b : bench::split_list(batch_arg)) batches.push_back(std::stoi(b));
    bench::clock_choice() = clock == "cpu" ? bench::Clock::cpu : bench::Clock::wall;
    if (quick) {
        batches = {1};
        min_time = std::min(min_time, 0.05);
    }
    auto sets = bench::split_list(set_arg);
    bool with_cc = false, with_cc_torch = false;
    std::erase_if(sets, [&](const std::string& s) { return s == "cc" ? (with_cc = true) : false; });
    std::erase_if(sets, [&](const std::string& s) { return s == "cc_torch" ? (with_cc_torch = true) : false; });

    const std::vector<std::string> wanted = bench::split_list(shapes_arg);
    std::map<int, double> peak;
    for (int t : threads) peak[t] = bench::measured_fma_peak_gflops(t);
    std::printf("measured f32 FMA peak:");
    for (auto [t, g] : peak) std::printf("  %d thread(s) %.1f GFLOP/s", t, g);
    std::printf("\nratios are oneDNN time / optimized time (> 1: optimized is faster); times are the minimum of "
                "repeated runs, clock: %s\n\n",
                clock == "cpu" ? "process CPU time / threads" : "wall");
    std::printf("| set | shape | n | thr | path | ms (NHWC) | GFLOP/s | %% peak | scaling | vs oneDNN best | ms (NCHW) | "
                "vs oneDNN NCHW | vs oneDNN NHWC | vs NCHW prim | vs NHWC prim |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");

    std::map<std::pair<int, bool>, std::vector<double>> vs_best;
    std::map<int, std::vector<double>> vs_plain_ncx, vs_plain_nxc, vs_prim_ncx, vs_prim_nxc;
    std::map<std::string, double> ms_at_one_thread;
    std::vector<double> speedups;
    std::map<int, std::vector<double>> efficiency;  // per thread count: each row's scaling efficiency (NHWC)
    bench::FmaCeiling ceiling;  // of the products that read inside the image (inside_macs)
    for (const auto& set : sets) {
        int in_set = 0;
        for (const auto& shape : bench::all_shapes()) {
            if (shape.set != set) continue;
            if (shapes_arg != "all" && std::find(wanted.begin(), wanted.end(), shape.name) == wanted.end()) continue;
            if (quick && in_set >= 3) break;
            ++in_set;
            for (int n : batches)
                for (int t : threads) {
                    const std::string base = "conv:n=" + std::to_string(n) + "," + shape.descriptor + ",bias=1,dt=f32";
                    const ConvDescriptor nxc = parse_descriptor(base + ",data=nxc,wei=xio");
                    const ConvDescriptor ncx = parse_descriptor(base + ",data=ncx,wei=oix");
                    const Ours ours = time_ours(nxc, t, min_time);
                    const Ours ours_ncx = time_ours(ncx, t, min_time);
                    bench::OnednnTimes dn_nxc, dn_ncx;
                    if (!no_onednn) {
                        dn_nxc = bench::time_onednn(nxc, t, min_time);
                        dn_ncx = bench::time_onednn(ncx, t, min_time);
                    }
                    const double gflops = 2.0 * double(nxc.macs()) / (ours.ms * 1e-3) / 1e9;
                    const bool depthwise = bench::depthwise(nxc);
                    if (dn_nxc.best_ms) vs_best[{t, depthwise}].push_back(*dn_nxc.best_ms / ours.ms);
                    if (dn_nxc.best_ms) ceiling.add(t, "", !depthwise, bench::inside_macs(nxc), *dn_nxc.best_ms, ours.ms);
                    if (dn_ncx.plain_ms) vs_plain_ncx[t].push_back(*dn_ncx.plain_ms / ours_ncx.ms);
                    if (dn_nxc.plain_ms) vs_plain_nxc[t].push_back(*dn_nxc.plain_ms / ours.ms);
                    if (dn_ncx.plain_primitive_ms) vs_prim_ncx[t].push_back(*dn_ncx.plain_primitive_ms / ours_ncx.ms);
                    if (dn_nxc.plain_primitive_ms) vs_prim_nxc[t].push_back(*dn_nxc.plain_primitive_ms / ours.ms);
                    const std::string key = shape.name + "/" + std::to_string(n);
                    if (t == 1) ms_at_one_thread[key] = ours.ms;
                    if (t == 2 && ms_at_one_thread.count(key)) speedups.push_back(ms_at_one_thread[key] / ours.ms);
                    const std::string scaling = bench::scaling_efficiency(ms_at_one_thread, key, t, ours.ms, efficiency[t]);
                    std::printf("| %s | %s | %d | %d | %s | %.3f | %.1f | %.0f%% | %s | %s | %.3f | %s | %s | %s | %s |\n",
                                set.c_str(),
                                shape.name.c_str(), n, t, ours.path.c_str(), ours.ms, gflops, 100.0 * gflops / peak[t],
                                scaling.c_str(), fmt_ratio(dn_nxc.best_ms, ours.ms).c_str(), ours_ncx.ms,
                                fmt_ratio(dn_ncx.plain_ms, ours_ncx.ms).c_str(),
                                fmt_ratio(dn_nxc.plain_ms, ours.ms).c_str(),
                                fmt_ratio(dn_ncx.plain_primitive_ms, ours_ncx.ms).c_str(),
                                fmt_ratio(dn_nxc.plain_primitive_ms, ours.ms).c_str());
                    std::fflush(stdout);
                }
        }
    }
    std::printf("\nsummary (geometric means of the ratios above)\n");
    for (int t : threads) {
        std::vector<double> all = vs_best[{t, false}];
        all.insert(all.end(), vs_best[{t, true}].begin(), vs_best[{t, true}].end());
        std::printf("  %d thread(s): vs oneDNN best %.2f (dense %.2f, depthwise %.2f); vs oneDNN plain NCHW %.2f, "
                    "plain NHWC %.2f; vs its plain-layout primitive alone NCHW %.2f, NHWC %.2f\n",
                    t, geomean(all), geomean(vs_best[{t, false}]), geomean(vs_best[{t, true}]),
                    geomean(vs_plain_ncx[t]), geomean(vs_plain_nxc[t]), geomean(vs_prim_ncx[t]),
                    geomean(vs_prim_nxc[t]));
    }
    ceiling.print(peak);
    if (!speedups.empty()) std::printf("  1 -> 2 thread speed-up (optimized, NHWC): geomean %.2f\n", geomean(speedups));
    std::erase_if(efficiency, [](const auto& e) { return e.second.empty(); });  // one thread: no efficiency
    for (const auto& [t, e] : efficiency)
        std::printf("  %d threads: scaling efficiency (optimized, NHWC; the 1-thread time / (%d x this)): geomean %.0f %%, "
                    "lowest row %.0f %%\n",
                    t, t, 100.0 * geomean(e), 100.0 * *std::min_element(e.begin(), e.end()));
    if (with_cc) cc_table(threads, batches, min_time);
#ifdef CONVCHECK_BENCH_LIBTORCH
    if (with_cc_torch) bench::cc_torch_table(threads, batches, min_time);
#else
    if (with_cc_torch) std::printf("\ncc_torch: not built (the libtorch plugin was not: libtorch-dev missing)\n");
#endif
    return 0;
}
