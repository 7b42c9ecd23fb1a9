// Google Benchmark programs for the optimized convolution: every shape of every set, batch 1 and 8,
// 1 and 2 threads, NHWC+HWIO f32 with bias, the dispatcher's path (named in the label).
#include <benchmark/benchmark.h>

#include <string>

#include "convcheck/optimized/conv_plan.hpp"
#include "optimized_timer.hpp"
#include "shapes.hpp"

using namespace convcheck;

namespace {

void run_shape(benchmark::State& state, const std::string& descriptor) {
    const int batch = static_cast<int>(state.range(0)), threads = static_cast<int>(state.range(1));
    const ConvDescriptor d =
        parse_descriptor("conv:n=" + std::to_string(batch) + "," + descriptor + ",bias=1,dt=f32,data=nxc,wei=xio");
    bench::ConvData data(d);
    const optimized::ConvPlan plan(d, data.weights.data(), data.bias.data(),
                                   optimized::Options{threads, optimized::Path::automatic});
    for (auto _ : state) {
        plan.execute(data.src.data(), data.dst.data());
        benchmark::DoNotOptimize(data.dst.data());
    }
    state.SetLabel(std::string(plan.path_name()));
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(d.macs()), benchmark::Counter::kIsIterationInvariantRate,
                                                   benchmark::Counter::kIs1000);
}

const bool registered = [] {
    for (const auto& shape : bench::all_shapes())
        benchmark::RegisterBenchmark((shape.set + "/" + shape.name).c_str(), run_shape, shape.descriptor)
            ->ArgsProduct({{1, 8}, {1, 2}})
            ->ArgNames({"n", "threads"})
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    return true;
}();

}  // namespace

BENCHMARK_MAIN();
