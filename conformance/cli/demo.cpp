// `convcheck demo [descriptor]`: runs the reference on one small case and prints it as a table.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/core/descriptor.hpp"

namespace convcheck::cli {

namespace {

void print_plane(const char* title, const std::vector<double>& values, std::int64_t offset, std::int64_t rows,
                 std::int64_t cols) {
    std::printf("%s\n", title);
    for (std::int64_t r = 0; r < rows; ++r) {
        std::printf("  ");
        for (std::int64_t c = 0; c < cols; ++c) std::printf("%8.2f", values[offset + r * cols + c]);
        std::printf("\n");
    }
}

void run_demo(const std::string& text) {
    const ConvDescriptor d = parse_descriptor(text);
    if (d.rank != 2 || d.batch != 1 || d.in_channels != 1 || d.out_channels != 1)
        throw ConvError("descriptor", text, "the demo prints one 2-D plane: n=1, c=1, o=1, rank 2");
    // input: 1, 2, 3, ... row by row; weights: a Laplacian-like pattern
    std::vector<double> src(d.src_elements()), weights(d.weights_elements());
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = double(i + 1);
    for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = (i == weights.size() / 2) ? 4.0 : -0.5;
    const auto r = reference::convolution_summation(d, src, weights, std::vector<double>{});
    std::printf("reference convolution of %s\n\n", to_string(d).c_str());
    print_plane("input:", src, 0, d.input_size[0], d.input_size[1]);
    print_plane("weights:", weights, 0, d.kernel_size[0], d.kernel_size[1]);
    print_plane("output (exact, double):", r.dst, 0, d.output_size(0), d.output_size(1));
    std::printf("\n%-10s %-10s %14s %14s %6s\n", "oh", "ow", "value", "sum|x*w|", "terms");
    for (std::int64_t oh = 0; oh < d.output_size(0); ++oh)
        for (std::int64_t ow = 0; ow < d.output_size(1); ++ow) {
            const std::int64_t o = oh * d.output_size(1) + ow;
            std::printf("%-10lld %-10lld %14.4f %14.4f %6lld\n", (long long)oh, (long long)ow, r.dst[o],
                        r.magnitude[o], (long long)r.terms[o]);
        }
}

void add_demo_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("demo", "Run the reference on a small 2-D case and print it as a table");
    static std::string text = "conv:n=1,c=1,o=1,in=5x5,k=3x3,s=2x2,pb=1x1,pe=1x1";
    cmd->add_option("descriptor", text, "canonical descriptor (n=1, c=1, o=1, rank 2)");
    cmd->callback([] { run_demo(text); });
}

const Registration registration{"demo", add_demo_command};

}  // namespace

}  // namespace convcheck::cli
