// reference_backward_cli: the backward reference on one problem, for checks written outside C++
// (backward_autograd_check.py compares it with PyTorch autograd).
//
// usage: reference_backward_cli <descriptor>
//   stdin:  whitespace-separated numbers, canonical order: src NCX, then weights OIX, then diff_dst NCX
//           ([N][O][out...]); each must be exactly representable in the descriptor's dtype.
//   stdout: one JSON object {"diff_src": [...], "diff_weights": [...], "diff_bias": [...]} with the
//           exact (double) gradients in canonical order; diff_bias only when the descriptor has bias=1.
// The numbers go through the descriptor's dtype and layouts (NXC/XIO buffers when it says so) and
// the buffer entry points (backward_data, backward_weights), as a backend's would.
// Exit 0 on success, 2 on a refused input (the message names what and why).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "convcheck/reference/backward.hpp"
#include "cli_io.hpp"
#include "convcheck/reference/convolution.hpp"

using namespace convcheck;

namespace {
int refuse(const std::string& message) { return cli_io::refuse("reference_backward_cli", message); }
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return refuse("usage: reference_backward_cli <descriptor> < numbers (src NCX, weights OIX, diff_dst NCX)");
    ConvDescriptor d;
    try {
        d = parse_descriptor(argv[1]);
    } catch (const ConvError& e) {
        return refuse("descriptor: " + e.attribute() + " = " + e.value() + ": " + e.rule());
    }
    const std::int64_t want = d.src_elements() + d.weights_elements() + d.dst_elements();
    std::string error;
    const auto read = cli_io::read_numbers(d.dtype, want,
                                           to_string(d) + ": src " + std::to_string(d.src_elements()) + ", weights " +
                                               std::to_string(d.weights_elements()) + ", diff_dst " +
                                               std::to_string(d.dst_elements()),
                                           &error);
    if (!read) return refuse(error);
    const std::vector<double>& numbers = *read;
    const auto src_end = numbers.begin() + d.src_elements(), weights_end = src_end + d.weights_elements();
    const std::vector<double> src(numbers.begin(), src_end), weights(src_end, weights_end), diff_dst(weights_end, numbers.end());

    // Into the descriptor's dtype and layouts (exact: every number was checked representable).
    const int bytes = size_of(d.dtype);
    std::vector<unsigned char> src_buffer(src.size() * bytes), weights_buffer(weights.size() * bytes),
        diff_dst_buffer(diff_dst.size() * bytes);
    reference::ncx_to_src(d, src, src_buffer.data());
    reference::oix_to_weights(d, weights, weights_buffer.data());
    reference::round_dst_to_output(d, diff_dst, diff_dst_buffer.data());

    const auto diff_src = reference::backward_data(d, diff_dst_buffer.data(), weights_buffer.data());
    reference::GradientResult diff_bias;
    const auto diff_weights = reference::backward_weights(d, src_buffer.data(), diff_dst_buffer.data(), &diff_bias);
    std::printf("{");
    cli_io::print_array("diff_src", diff_src.values, false);
    cli_io::print_array("diff_weights", diff_weights.values, !d.has_bias);
    if (d.has_bias) cli_io::print_array("diff_bias", diff_bias.values, true);
    std::printf("}\n");
    return 0;
}
