// convcheck_bench_cc_products: the CC backward's two products (cc_backward_kernels.hpp: cc_outer_accumulate,
// d[W3 | b3] += dY^T [Z | S]; cc_rows_times, [dZ | dS] = dY [W3 | b3]) alone, on the chunked path's shapes for
// the layers of docs/performance.md (a chunk of 120 pixels, Cout = 32, depth = Cin (h2 + 1) = 544, [dZ | dS]
// 24 pixels at a time as cc_backward_net.cpp calls it), against a register-resident FMA loop of about the same
// number of vector FMAs measured in the same minutes: GFLOP/s and the share of that loop's rate
// (docs/performance-cc-backward-9.md). One thread, process CPU time, the 10th percentile of many calls of
// 20-30 us each (the fastest call is no measure on this virtual machine, above). A steadier A/B measure of
// these two kernels than the whole backward's time.
//
//   convcheck_bench_cc_products [--rounds R] [--isa avx512|avx2]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <immintrin.h>

#include "cc_backward_kernels.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "timing.hpp"

using namespace convcheck;
using optimized::detail::i64;

namespace {

// The 10th percentile of `reps` calls of f, in seconds of process CPU time (the fastest call is no
// measure here: the CPU clock of this virtual machine now and then reads a call faster than the peak).
template <typename F>
double fast(const F& f, int reps) {
    std::vector<double> t(static_cast<std::size_t>(reps));
    for (double& x : t) {
        const double t0 = bench::process_cpu_seconds();
        f();
        x = bench::process_cpu_seconds() - t0;
    }
    std::nth_element(t.begin(), t.begin() + reps / 10, t.end());
    return t[static_cast<std::size_t>(reps / 10)];
}

// 24 independent FMA chains, `iterations` times: the flops done (sink: the result, so that the loop stays).
__attribute__((target("avx512f"))) double fma_burst_avx512(long iterations, float* sink) {
    __m512 acc[24];
    for (int i = 0; i < 24; ++i) acc[i] = _mm512_set1_ps(float(i));
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (long it = 0; it < iterations; ++it)
#pragma GCC unroll 24
        for (int i = 0; i < 24; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    alignas(64) float out[16];
    for (int i = 1; i < 24; ++i) acc[0] = _mm512_add_ps(acc[0], acc[i]);
    _mm512_store_ps(out, acc[0]);
    *sink = out[0];
    return 2.0 * 16 * 24 * double(iterations);
}
__attribute__((target("avx2,fma"))) double fma_burst_avx2(long iterations, float* sink) {
    __m256 acc[12];
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(float(i));
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (long it = 0; it < iterations; ++it)
#pragma GCC unroll 12
        for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    alignas(32) float out[8];
    for (int i = 1; i < 12; ++i) acc[0] = _mm256_add_ps(acc[0], acc[i]);
    _mm256_store_ps(out, acc[0]);
    *sink = out[0];
    return 2.0 * 8 * 12 * double(iterations);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"convcheck_bench_cc_products: the CC backward's two products against the FMA peak"};
    int rounds = 3;
    std::string isa = optimized::cpu_has_avx512() ? "avx512" : "avx2";
    app.add_option("--rounds", rounds, "peak, products, peak: this many times");
    app.add_option("--isa", isa, "avx512 or avx2");
    CLI11_PARSE(app, argc, argv);
    const bool wide = isa == "avx512";
    if (wide && !optimized::cpu_has_avx512()) {
        std::fprintf(stderr, "no AVX-512 on this CPU\n");
        return 77;
    }
    namespace d = optimized::detail;
    constexpr i64 P = 120, Cout = 32, depth = 544, group = 24;
    std::vector<float> dy(P * Cout), z(P * depth), w(Cout * depth), dz(group * depth);
    for (std::size_t i = 0; i < dy.size(); ++i) dy[i] = 0.1f * float(i % 7);
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = 0.1f * float(i % 5);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * float(i % 3);
    std::vector<double> partial(Cout * depth);
    const auto outer = [&] {
        (wide ? d::avx512::cc_outer_accumulate : d::avx2::cc_outer_accumulate)(dy.data(), Cout, z.data(), depth, P,
                                                                               partial.data());
    };
    const auto times = [&] {
        for (i64 i0 = 0; i0 < P; i0 += group)
            (wide ? d::avx512::cc_rows_times : d::avx2::cc_rows_times)(dy.data() + i0 * Cout, group, Cout, w.data(),
                                                                       depth, dz.data());
    };
    const double flops = 2.0 * P * Cout * depth;
    float sink = 0;
    const long burst = wide ? 5440 : 21760;  // as many vector FMAs as a product's call
    const double peak_flops = wide ? fma_burst_avx512(burst, &sink) : fma_burst_avx2(burst, &sink);
    const auto peak_loop = [&] { (wide ? fma_burst_avx512 : fma_burst_avx2)(burst, &sink); };
    std::printf("| round | FMA loop GFLOP/s | d[W3 | b3] GFLOP/s | share | [dZ | dS] GFLOP/s | share |\n");
    std::printf("|---|---|---|---|---|---|\n");
    for (int r = 0; r < rounds; ++r) {
        const double peak = peak_flops / fast(peak_loop, 2000) * 1e-9;
        const double o = flops / fast(outer, 2000) * 1e-9, t = flops / fast(times, 2000) * 1e-9;
        std::printf("| %d | %.0f | %.0f | %.0f%% | %.0f | %.0f%% |\n", r + 1, peak, o, 100 * o / peak, t, 100 * t / peak);
    }
    if (sink == 1.2345f) std::printf(" \n");
    return 0;
}
