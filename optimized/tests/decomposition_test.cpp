// The decompositions for thread counts beyond this machine's: for the bench table's layers at batch 1 and 8 and
// 1, 2, 4, 8 and 16 threads, the plan's tasks (a pure function of the layer and the thread count it is given)
// number at least kTasksPerThread per thread where the layer has that many, and (more than one thread) the largest
// task holds at most kMostImbalance times the mean. With n tasks on t threads, a greedy schedule (TBB's) ends within
// W/t + largest = W/t (1 + r t / n) of the work W: at n >= 4t and r <= 1.3, within 1.33x the ideal. A rule tuned
// to 2 cores (2 tasks for a 1x1 layer at batch 8) fails here on any machine.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backward_harness.hpp"
#include "convcheck/optimized/backward_plan.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "depthwise_threads.hpp"
#include "harness.hpp"
#include "quantized_vnni.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

namespace {

constexpr std::int64_t kTasksPerThread = 4;
constexpr double kMostImbalance = 1.3;

// The bench table's layers (bench/shapes.cpp, which this layer may not include): name, descriptor.
const std::vector<std::pair<std::string, std::string>>& table_layers() {
    static const std::vector<std::pair<std::string, std::string>> layers = {
        {"conv1_7x7s2", "c=3,o=64,in=224x224,k=7x7,s=2x2,pb=3x3,pe=3x3"},
        {"res2_1x1_64", "c=64,o=64,in=56x56,k=1x1"},
        {"res2_3x3", "c=64,o=64,in=56x56,k=3x3,pb=1x1,pe=1x1"},
        {"res2_1x1_256", "c=64,o=256,in=56x56,k=1x1"},
        {"res2_1x1_reduce", "c=256,o=64,in=56x56,k=1x1"},
        {"res3_3x3s2", "c=128,o=128,in=56x56,k=3x3,s=2x2,pb=1x1,pe=1x1"},
        {"res3_3x3", "c=128,o=128,in=28x28,k=3x3,pb=1x1,pe=1x1"},
        {"res3_1x1_512", "c=128,o=512,in=28x28,k=1x1"},
        {"res3_downsample", "c=256,o=512,in=56x56,k=1x1,s=2x2"},
        {"res4_3x3s2", "c=256,o=256,in=28x28,k=3x3,s=2x2,pb=1x1,pe=1x1"},
        {"res4_3x3", "c=256,o=256,in=14x14,k=3x3,pb=1x1,pe=1x1"},
        {"res4_1x1_1024", "c=256,o=1024,in=14x14,k=1x1"},
        {"res4_1x1_reduce", "c=1024,o=256,in=14x14,k=1x1"},
        {"res5_3x3s2", "c=512,o=512,in=14x14,k=3x3,s=2x2,pb=1x1,pe=1x1"},
        {"res5_3x3", "c=512,o=512,in=7x7,k=3x3,pb=1x1,pe=1x1"},
        {"res5_1x1_2048", "c=512,o=2048,in=7x7,k=1x1"},
        {"dw32_112", "c=32,o=32,g=32,in=112x112,k=3x3,pb=1x1,pe=1x1"},
        {"dw96_112s2", "c=96,o=96,g=96,in=112x112,k=3x3,s=2x2,pb=0x0,pe=1x1"},
        {"dw144_56", "c=144,o=144,g=144,in=56x56,k=3x3,pb=1x1,pe=1x1"},
        {"dw192_28", "c=192,o=192,g=192,in=28x28,k=3x3,pb=1x1,pe=1x1"},
        {"dw576_14", "c=576,o=576,g=576,in=14x14,k=3x3,pb=1x1,pe=1x1"},
        {"dw960_7", "c=960,o=960,g=960,in=7x7,k=3x3,pb=1x1,pe=1x1"},
        {"pw16_96_112", "c=16,o=96,in=112x112,k=1x1"},
        {"pw144_24_56", "c=144,o=24,in=56x56,k=1x1"},
        {"pw192_32_28", "c=192,o=32,in=28x28,k=1x1"},
        {"pw576_96_14", "c=576,o=96,in=14x14,k=1x1"},
        {"pw960_320_7", "c=960,o=320,in=7x7,k=1x1"},
        {"aspp_3x3_rate6", "c=256,o=256,in=33x33,k=3x3,d=6x6,pb=6x6,pe=6x6"},
        {"c3d_3x3x3", "c=64,o=64,in=8x28x28,k=3x3x3,pb=1x1x1,pe=1x1x1"},
    };
    return layers;
}

ConvDescriptor table_descriptor(const std::string& shape, int batch) {
    return parse_descriptor("conv:n=" + std::to_string(batch) + ",dt=f32," + shape + ",data=nxc,wei=xio,dir=bwd_w");
}

// The vector paths of backward weights this CPU has (their kernels and tiles differ), and the portable one.
std::vector<Path> weights_paths(const ConvDescriptor& d) {
    std::vector<Path> out;
    for (const Path p : {Path::scalar, Path::blocked_avx2, Path::blocked_avx512})
        if (why_backward_unavailable(d, p).empty()) out.push_back(p);
    return out;
}

// One range of equal items per thread (TBB's static partitioner: the forward's blocked 1x1 layers, backward weights'
// depthwise ones): what counts is the busiest thread's share, ceil(n / t) items of the largest, over the ideal W / t;
// more items than threads add nothing. Within the 1.325 of the greedy rule (check, below), or where the layer's
// finest cut (one register tile per item, most_tasks of them) cannot give that, within 1.25x of what that cut gives
// (the tiles of a chunk rounded up, its last shorter).
void check_ranges(const Decomposition& s, int threads, const std::string& what, std::vector<std::string>& failures) {
    const double t = threads, n = static_cast<double>(s.tasks), most = static_cast<double>(s.most_tasks);
    const double span = std::ceil(n / t) * s.largest_task / (n * s.mean_task / t);
    const double finest = std::ceil(most / t) / (most / t);
    const double allowed = std::max(1.0 + kMostImbalance / kTasksPerThread, 1.25 * finest);
    if (s.threads != threads || (threads > 1 && span > allowed))
        failures.push_back(what + " " + std::to_string(threads) + " threads: " + std::to_string(s.tasks) +
                           " ranged items (the layer has " + std::to_string(s.most_tasks) + "), busiest thread " +
                           std::to_string(span) + "x the ideal (allowed " + std::to_string(allowed) + ")");
}

}  // namespace

TEST(Decomposition, BackwardWeightsGivesEveryThreadTasksOfBalancedWork) {
    std::vector<std::string> failures;
    for (const auto& [name, shape] : table_layers())
        for (const int batch : {1, 8}) {
            const ConvDescriptor d = table_descriptor(shape, batch);
            for (const Path path : weights_paths(d))
                for (const int threads : {1, 2, 4, 8, 16}) {
                    const BackwardWeightsPlan plan(d, Options{threads, path});
                    const Decomposition s = plan.decomposition();
                    if (s.one_range_per_thread) {  // (a depthwise layer on the vector paths)
                        check_ranges(s, threads,
                                     name + " batch " + std::to_string(batch) + " " + plan.implementation() + " [" +
                                         to_string(d) + "]",
                                     failures);
                        continue;
                    }
                    // (one thread runs every task in turn: any cut is balanced)
                    const std::int64_t wanted = std::min(threads > 1 ? kTasksPerThread * threads : 1, s.most_tasks);
                    const double imbalance = threads > 1 ? s.largest_task / s.mean_task : 1.0;
                    if (s.threads != threads || s.tasks < wanted || imbalance > kMostImbalance)
                        failures.push_back(name + " batch " + std::to_string(batch) + " " + std::string(to_string(path)) + " " +
                                           std::to_string(threads) + " threads: " + std::to_string(s.tasks) + " tasks (want " +
                                           std::to_string(wanted) + ", the layer has " + std::to_string(s.most_tasks) +
                                           "), largest/mean " + std::to_string(imbalance) + " [" + plan.implementation() +
                                           "; " + to_string(d) + "]");
                }
        }
    for (const std::string& f : failures) ADD_FAILURE() << f;
}

// A depthwise layer's channels are independent sums: on the vector paths its tasks reach min(4 x threads, its
// blocks of 64 channels) whatever its tiles and parts (64: more than any path's lane block, 32 floats on AVX-512,
// 8 on AVX2). A cut of the tiles alone, the parts fixed by the layer, gave dw960_7 at batch 8 one task for 16
// threads (0.10 of oneDNN on the 16-core Xeon), dw576_14 six (0.32).
TEST(Decomposition, BackwardWeightsDepthwiseCutsTheChannels) {
    std::vector<std::string> failures;
    for (const auto& [name, shape] : table_layers()) {
        if (name.rfind("dw", 0) != 0) continue;
        for (const int batch : {1, 8}) {
            const ConvDescriptor d = table_descriptor(shape, batch);
            for (const Path path : weights_paths(d)) {
                if (path == Path::scalar) continue;  // (the portable loops take every lane: one lane chunk)
                for (const int threads : {4, 8, 16}) {
                    const Decomposition s = BackwardWeightsPlan(d, Options{threads, path}).decomposition();
                    const std::int64_t wanted = std::min<std::int64_t>(kTasksPerThread * threads, (d.out_channels + 63) / 64);
                    if (s.tasks < wanted)
                        failures.push_back(name + " batch " + std::to_string(batch) + " " + std::string(to_string(path)) + " " +
                                           std::to_string(threads) + " threads: " + std::to_string(s.tasks) + " tasks, want " +
                                           std::to_string(wanted) + " (" + std::to_string(d.out_channels) + " channels) [" +
                                           to_string(d) + "]");
                }
            }
        }
    }
    for (const std::string& f : failures) ADD_FAILURE() << f;
}

// The general kernel's blocks of pixels (backward_weights_plan.cpp, block_pixels_general): from 128 up to 1024, and
// never past what a part holds (the scratch, zero-filled on a plan's first call, is sized by the block): a batch-1
// layer of 49 pixels keeps blocks of 128 where its lanes would take 512 at batch 8.
TEST(Decomposition, BackwardWeightsBlocksHoldNoMoreThanAPart) {
    std::vector<std::string> failures;
    for (const auto& [name, shape] : table_layers())
        for (const int batch : {1, 8}) {
            const ConvDescriptor d = table_descriptor(shape, batch);
            std::int64_t pixels = d.batch;
            for (int a = 0; a < d.rank; ++a) pixels *= d.output_size(a);
            for (const Path path : weights_paths(d))
                for (const int threads : {1, 2, 16}) {
                    const Decomposition s = BackwardWeightsPlan(d, Options{threads, path}).decomposition();
                    const bool depthwise = d.groups == d.in_channels && d.groups == d.out_channels;
                    const bool ok = depthwise ? s.block_pixels == 0
                                              : s.block_pixels >= 128 && s.block_pixels <= 1024 &&
                                                    s.block_pixels <= std::max<std::int64_t>(128, 2 * pixels);
                    if (!ok)
                        failures.push_back(name + " batch " + std::to_string(batch) + " " + std::string(to_string(path)) + " " +
                                           std::to_string(threads) + " threads: blocks of " + std::to_string(s.block_pixels) +
                                           " pixels for " + std::to_string(pixels) + " [" + to_string(d) + "]");
                }
        }
    for (const std::string& f : failures) ADD_FAILURE() << f;
}

// The items follow the thread count; the parts, which set each element's order of summation, do not: the same
// bits at 1 and 16 threads on table layers whose cut differs between them.
TEST(Decomposition, BackwardWeightsSameBitsAtOneAndSixteenThreads) {
    for (const char* name : {"res4_1x1_1024", "pw576_96_14", "res5_3x3", "dw576_14", "dw960_7", "dw96_112s2"})
        for (const auto& [layer, shape] : table_layers()) {
            if (layer != name) continue;
            ConvDescriptor d = table_descriptor(shape, 2);
            d.has_bias = true;
            const std::uint64_t seed = 46;
            const BackwardData data = make_backward_data(d, seed, 0);
            for (const Path path : weights_paths(d)) {
                const Gradients one = run_backward(d, data, Options{1, path});
                const Gradients sixteen = run_backward(d, data, Options{16, path});
                EXPECT_EQ(std::memcmp(one.raw.data(), sixteen.raw.data(), one.raw.bytes()), 0)
                    << backward_reproducer(d, path, seed, 16) << ": 1 and 16 threads differ";
                EXPECT_EQ(std::memcmp(one.raw_bias.data(), sixteen.raw_bias.data(), one.raw_bias.bytes()), 0)
                    << backward_reproducer(d, path, seed, 16) << ": diff_bias at 1 and 16 threads differ";
            }
        }
}

namespace {

ConvDescriptor forward_descriptor(const std::string& shape, int batch) {
    return parse_descriptor("conv:n=" + std::to_string(batch) + ",dt=f32," + shape + ",data=nxc,wei=xio");
}

// The forward paths with kernels of their own on this CPU that take d.
std::vector<Path> forward_paths(const ConvDescriptor& d) {
    std::vector<Path> out;
    for (const Path p : {Path::blocked_avx2, Path::blocked_avx512, Path::depthwise_avx2, Path::depthwise_avx512})
        if (why_unavailable(d, p).empty()) out.push_back(p);
    return out;
}

// The failures of one decomposition against the rule: min(kTasksPerThread x threads, the layer's finest cut) tasks,
// and (more than one thread) a greedy schedule's bound 1 + r t / n within the 1 + kMostImbalance / kTasksPerThread
// (1.33) that n = 4t tasks of r = 1.3 give; where the layer has fewer than 4t tasks, r <= kMostImbalance. (Thousands
// of uneven tasks are fine: 576 tasks of r = 1.47 on 16 threads end within 1.04 of the ideal.) The 1x1 layers' items
// run as one range per thread instead: check_ranges.
void check(const Decomposition& s, int plan_threads, const std::string& what, std::vector<std::string>& failures) {
    if (s.one_range_per_thread) {
        check_ranges(s, plan_threads, what, failures);
        return;
    }
    if (s.threads != plan_threads) failures.push_back(what + ": made for " + std::to_string(s.threads) + " threads");
    // (a call too small for every thread's fork and join: the rule for the threads that take its tasks, which
    // ForwardDepthwiseTakesTheThreadsThatPay checks)
    const int threads = s.busy_threads > 0 ? s.busy_threads : plan_threads;
    const std::int64_t wanted = std::min(threads > 1 ? kTasksPerThread * threads : 1, s.most_tasks);
    const double imbalance = threads > 1 ? s.largest_task / s.mean_task : 1.0;
    const double bound = 1.0 + imbalance * threads / static_cast<double>(s.tasks);
    // (the layer's finest cut: its unevenness is the layer's, 49 pixels in runs of 32 and 17)
    const bool balanced = s.tasks == s.most_tasks ||
                          (s.tasks >= kTasksPerThread * threads ? bound <= 1.0 + kMostImbalance / kTasksPerThread
                                                                : imbalance <= kMostImbalance);
    if (s.tasks < wanted || (threads > 1 && !balanced))
        failures.push_back(what + " " + std::to_string(threads) + " threads: " + std::to_string(s.tasks) + " tasks (want " +
                           std::to_string(wanted) + ", the layer has " + std::to_string(s.most_tasks) + "), largest/mean " +
                           std::to_string(imbalance) + ", bound " + std::to_string(bound));
}

}  // namespace

TEST(Decomposition, ForwardGivesEveryThreadTasksOfBalancedWork) {
    std::vector<std::string> failures;
    for (const auto& [name, shape] : table_layers())
        for (const int batch : {1, 8}) {
            const ConvDescriptor d = forward_descriptor(shape, batch);
            const std::vector<float> weights(static_cast<std::size_t>(d.weights_elements()), 1.0f);
            for (const Path path : forward_paths(d))
                for (const int threads : {1, 2, 4, 8, 16}) {
                    const ConvPlan plan(d, weights.data(), nullptr, Options{.threads = threads, .forced_path = path});
                    check(plan.decomposition(), threads,
                          name + " batch " + std::to_string(batch) + " " + plan.implementation() + " [" + to_string(d) + "]",
                          failures);
                }
        }
    for (const std::string& f : failures) ADD_FAILURE() << f;
}

// A forward depthwise call moves its src and dst once (kDepthwiseBytesPerMicrosecond on one thread) and each thread
// that takes a part of it costs a fork and join (kForkJoinMicroseconds): with W the call's one-thread time, k busy
// threads pay while their forks and joins, k x c, cost at most about a thread's share, W / k. Asserted with a factor
// 2 either way for the tasks' granularity: k x k x c <= 2 W (no more threads than pay), and k = the plan's threads
// or (k + 1) x (k + 1) x c >= W / 2 where one more thread would shorten the busiest one's tasks (no fewer). Every
// thread of 16 on dw960_7 at batch 1 (W 15 us; its 7 rows on 7 threads: 7 x 7 x 1 us > 30 us) fails the first: the
// 16-core Xeon took 15 / 7 / 9 / 10 us at 1 / 4 / 8 / 16 threads.
TEST(Decomposition, ForwardDepthwiseTakesTheThreadsThatPay) {
    std::vector<std::string> failures;
    for (const auto& [name, shape] : table_layers()) {
        if (name.rfind("dw", 0) != 0) continue;
        for (const int batch : {1, 8}) {
            const ConvDescriptor d = forward_descriptor(shape, batch);
            const std::vector<float> weights(static_cast<std::size_t>(d.weights_elements()), 1.0f);
            std::int64_t in = 1, out = 1;
            for (int a = 0; a < d.rank; ++a) in *= d.input_size[a], out *= d.output_size(a);
            const double w = 4.0 * batch * static_cast<double>(in * d.in_channels + out * d.out_channels) /
                             detail::kDepthwiseBytesPerMicrosecond;
            const double c = detail::kForkJoinMicroseconds;
            for (const Path path : {Path::depthwise_avx2, Path::depthwise_avx512}) {
                if (!why_unavailable(d, path).empty()) continue;
                for (const int threads : {1, 2, 4, 8, 16}) {
                    const ConvPlan plan(d, weights.data(), nullptr, Options{.threads = threads, .forced_path = path});
                    const Decomposition s = plan.decomposition();
                    const double k = s.busy_threads > 0 ? s.busy_threads : std::min<std::int64_t>(threads, s.tasks);
                    const bool too_many = k > 1 && k * k * c > 2 * w;
                    // (one more thread only where it shortens the busiest thread's tasks)
                    const auto busiest = [&](double n) { return std::ceil(static_cast<double>(s.tasks) / n); };
                    const bool too_few = k < std::min<std::int64_t>(threads, s.tasks) && busiest(k + 1) < busiest(k) &&
                                         (k + 1) * (k + 1) * c < w / 2;
                    if (too_many || too_few)
                        failures.push_back(name + " batch " + std::to_string(batch) + " " + plan.implementation() + " " +
                                           std::to_string(threads) + " threads: " + std::to_string(k) + " busy on " +
                                           std::to_string(s.tasks) + " tasks, " + std::to_string(w) + " us on one thread" +
                                           (too_many ? " (too many)" : " (too few)"));
                }
            }
        }
    }
    for (const std::string& f : failures) ADD_FAILURE() << f;
}

// The cuts that follow the thread count change no sum: the same bits at 1 and 16 threads on table layers whose cut
// differs between them (1x1 chunks, depthwise rows one by one), with bias.
TEST(Decomposition, ForwardSameBitsAtOneAndSixteenThreads) {
    for (const char* name : {"pw960_320_7", "res3_downsample", "pw576_96_14", "dw576_14", "dw960_7", "dw192_28"})
        for (const auto& [layer, shape] : table_layers()) {
            if (layer != name) continue;
            ConvDescriptor d = forward_descriptor(shape, 1);
            d.has_bias = true;
            const std::uint64_t seed = 46;
            const accuracy::RandomFill fill = accuracy::make_random_fill(d, seed);
            for (const Path path : forward_paths(d)) {
                Buffers one = make_buffers(d, fill.src, fill.weights, fill.bias);
                Buffers sixteen = make_buffers(d, fill.src, fill.weights, fill.bias);
                run_optimized(d, one, Options{.threads = 1, .forced_path = path});
                run_optimized(d, sixteen, Options{.threads = 16, .forced_path = path});
                EXPECT_EQ(std::memcmp(one.dst.data(), sixteen.dst.data(), one.dst.bytes()), 0)
                    << reproducer(d, path, seed) << ": 1 and 16 threads differ";
            }
        }
}

TEST(Decomposition, BackwardDataGivesEveryThreadTasksOfBalancedWork) {
    std::vector<std::string> failures;
    for (const auto& [name, shape] : table_layers())
        for (const int batch : {1, 8}) {
            const ConvDescriptor d =
                parse_descriptor("conv:n=" + std::to_string(batch) + ",dt=f32," + shape + ",data=nxc,wei=xio,dir=bwd_d");
            const std::vector<float> weights(static_cast<std::size_t>(d.weights_elements()), 1.0f);
            std::vector<Path> paths = {Path::automatic};  // (its own kernels where they take d)
            for (const Path p : forward_paths(d))
                if (why_backward_unavailable(d, p).empty()) paths.push_back(p);
            for (const Path path : paths)
                for (const int threads : {1, 2, 4, 8, 16}) {
                    const BackwardDataPlan plan(d, weights.data(), Options{.threads = threads, .forced_path = path});
                    check(plan.decomposition(), threads,
                          name + " batch " + std::to_string(batch) + " " + plan.implementation() + " [" + to_string(d) + "]",
                          failures);
                }
        }
    for (const std::string& f : failures) ADD_FAILURE() << f;
}

// The same bits at 1 and 16 threads for backward data where its cut differs between them: the pointwise kernel's
// chunks (pw960_320_7, pw576_96_14, res5_1x1_2048 at batch 1) and the phases' 1x1 chunks (res5_3x3s2).
TEST(Decomposition, BackwardDataSameBitsAtOneAndSixteenThreads) {
    for (const char* name : {"pw960_320_7", "pw576_96_14", "res5_1x1_2048", "res5_3x3s2", "res4_1x1_reduce"})
        for (const auto& [layer, shape] : table_layers()) {
            if (layer != name) continue;
            const ConvDescriptor d = parse_descriptor("conv:n=1,dt=f32," + shape + ",data=nxc,wei=xio,dir=bwd_d");
            const std::uint64_t seed = 46;
            const BackwardData data = make_backward_data(d, seed, 0);
            for (const Path path : backward_paths(d)) {
                const Gradients one = run_backward(d, data, Options{1, path});
                const Gradients sixteen = run_backward(d, data, Options{16, path});
                EXPECT_EQ(std::memcmp(one.raw.data(), sixteen.raw.data(), one.raw.bytes()), 0)
                    << backward_reproducer(d, path, seed, 16) << ": 1 and 16 threads differ";
            }
        }
}

// The int8 VNNI/AMX path's items for one image (its images run one after another): groups x chunks of 64 output
// channels x sequences (output planes) x runs of each plane's pixels (vnni_run_length), on the table's dense layers.
// A run costs kRunOverhead pixels beyond its own (measured, quantized_vnni.cpp), so a finer cut is not free: where
// the cut misses the rule (check), it stands only if no run length that meets the rule ends a greedy schedule
// sooner at the latest, W / t + (1 - 1 / t) x the largest item (W: the items' costs together).
TEST(Decomposition, QuantizedRunsGiveEveryThreadTasksOfBalancedWork) {
    constexpr std::int64_t kRunOverhead = 12;
    std::vector<std::string> failures;
    for (const auto& [name, shape] : table_layers()) {
        const ConvDescriptor d = forward_descriptor(shape, 1);
        if (d.groups != 1) continue;  // (depthwise layers run another kernel)
        std::int64_t out[3] = {1, 1, 1};
        for (int a = 0; a < d.rank; ++a) out[3 - d.rank + a] = d.output_size(a);
        const std::int64_t span = out[1] * out[2], others = (d.out_channels + 63) / 64 * out[0];
        for (const int threads : {1, 2, 4, 8, 16}) {
            const auto cut = [&](std::int64_t length) {
                const std::int64_t runs = (span + length - 1) / length;
                Decomposition s;
                s.threads = threads;
                s.tasks = others * runs;
                s.most_tasks = others * ((span + 31) / 32);
                s.largest_task = static_cast<double>(std::min(span, length));
                s.mean_task = static_cast<double>(span) / static_cast<double>(runs);
                return s;
            };
            const auto latest_end = [&](std::int64_t length) {
                const std::int64_t runs = (span + length - 1) / length;
                return others * (span + runs * kRunOverhead) + (threads - 1) * (std::min(span, length) + kRunOverhead);
            };
            const std::int64_t length = detail::vnni_run_length(span, others, threads);
            const std::string what = name + " int8 (span " + std::to_string(span) + ", runs of " + std::to_string(length) + ")";
            std::vector<std::string> missed;
            check(cut(length), threads, what, missed);
            if (missed.empty()) continue;
            for (std::int64_t other = 32; other < span + 32; other += 32) {  // (the last: the whole span)
                std::vector<std::string> none;
                check(cut(std::min(other, span)), threads, what, none);
                if (none.empty() && latest_end(std::min(other, span)) < latest_end(length)) {
                    failures.push_back(missed.front() + "; runs of " + std::to_string(std::min(other, span)) +
                                       " meet the rule and end sooner");
                    break;
                }
            }
        }
    }
    for (const std::string& f : failures) ADD_FAILURE() << f;
}

// The int8 VNNI path's depthwise tasks (vnni_depthwise_cut: images x units of 64 channels x chunks of output rows,
// one range per thread) on the table's MobileNet-v2 depthwise layers, batch 1 and 8: the busiest thread's share
// (check_ranges) within the bound, the layer's finest cut every output row of every plane. One range per thread, so
// more tasks than threads add nothing; a cut tuned to 2 threads (whole units for dw576_14) leaves 7 of 16 idle.
TEST(Decomposition, QuantizedDepthwiseGivesEveryThreadBalancedWork) {
    std::vector<std::string> failures;
    for (const auto& [name, shape] : table_layers()) {
        if (name.rfind("dw", 0) != 0) continue;
        for (const int batch : {1, 8}) {
            const QuantizedDescriptor q = parse_quantized_descriptor("qconv:n=" + std::to_string(batch) + "," + shape +
                                                                     ",data=nxc,wei=xio,dt=u8:s8:u8,dsc=64");
            const detail::QuantizedGeometry g(q);
            for (const int threads : {1, 2, 4, 8, 16}) {
                const detail::DepthwiseCut cut = detail::vnni_depthwise_cut(g, threads);
                check(detail::vnni_depthwise_decomposition(g, threads), threads,
                      name + " int8 batch " + std::to_string(batch) + " (" + std::to_string(cut.planes) + " planes of " +
                          std::to_string(cut.rows) + " rows in chunks of " + std::to_string(cut.chunk_rows) + ") [" +
                          to_string(q) + "]",
                      failures);
            }
        }
    }
    for (const std::string& f : failures) ADD_FAILURE() << f;
}
