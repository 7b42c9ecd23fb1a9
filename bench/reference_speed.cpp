// The speed of the f64 reference's fast evaluator (reference::fast_convolution_summation, what the
// runner checks with), in GFLOP/s (2 * nominal MACs / time), at a given thread count; with --literal,
// of the definition itself (reference::convolution_summation, one thread); with --gemm, of bound mode's GEMM
// evaluator (reference::gemm_convolution_sums: the sums and the magnitudes, two f64 products). Issue 22;
// docs/performance.md, "Reference speed".
//
//   convcheck_reference_speed [--threads T] [--seconds S] [--clock wall|cpu] [--literal | --gemm] DESCRIPTOR...
// (--clock cpu: process CPU time / T, robust on a shared machine; bench/timing.hpp)
// e.g. convcheck_reference_speed --threads 2 'c=256,o=256,in=14x14,k=3x3,pb=1x1,pe=1x1'
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/reference/fast_summation.hpp"
#include "convcheck/reference/gemm_summation.hpp"
#include "timing.hpp"

namespace {

std::vector<double> random_values(std::int64_t count, unsigned seed) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> v(static_cast<std::size_t>(count));
    for (double& x : v) x = u(gen);
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    int threads = 1;
    double seconds = 1.0;
    bool literal = false, gemm = false;
    std::vector<std::string> shapes;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
        else if (a == "--literal") literal = true;
        else if (a == "--gemm") gemm = true;
        else if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
        else if (a == "--clock" && i + 1 < argc) {
            const std::string c = argv[++i];
            convcheck::bench::clock_choice() = c == "cpu" ? convcheck::bench::Clock::cpu : convcheck::bench::Clock::wall;
        }
        else shapes.push_back(a);
    }
    if (shapes.empty() || threads < 1 || (literal && gemm)) {
        std::fprintf(stderr, "usage: convcheck_reference_speed [--threads T] [--seconds S] [--clock wall|cpu] [--literal | --gemm] "
                             "DESCRIPTOR...\n");
        return 2;
    }
    for (const std::string& text : shapes) {
        const convcheck::ConvDescriptor d = convcheck::parse_descriptor(text);
        const auto src = random_values(d.src_elements(), 1);
        const auto weights = random_values(d.weights_elements(), 2);
        const auto bias = d.has_bias ? random_values(d.out_channels, 3) : std::vector<double>{};
        const double macs = double(d.dst_elements()) * double(d.weights_elements() / d.out_channels);
        const double ms = convcheck::bench::min_time_ms(
            [&] {
                if (literal) (void)convcheck::reference::convolution_summation(d, src, weights, bias);
                else if (gemm) (void)convcheck::reference::gemm_convolution_sums(d, src, weights, bias, threads);
                else (void)convcheck::reference::fast_convolution_summation(d, src, weights, bias, threads);
            },
            seconds, literal ? 1 : threads);
        std::printf("%-60s threads=%d  %9.2f ms  %6.2f GFLOP/s%s\n", text.c_str(), literal ? 1 : threads, ms, 2.0 * macs / ms * 1e-6,
                    literal ? "  (literal)" : gemm ? "  (gemm)" : "");
    }
    return 0;
}
