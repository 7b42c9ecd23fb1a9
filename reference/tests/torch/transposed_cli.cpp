// reference_transposed_cli: the transposed-convolution reference on one problem, for checks written
// outside C++ (transposed_torch_check.py compares it with torch.nn.functional.conv_transpose*d).
//
// usage: reference_transposed_cli <deconv descriptor>
//   stdin:  whitespace-separated numbers, canonical order: src NCX ([N][C][in...]), then weights
//           [C][O/G][k...], then bias [O] when the descriptor has bias=1; each exactly representable in
//           the descriptor's dtype.
//   stdout: {"exact": [...], "rounded": [...]} in canonical NCX order: the exact (double) result, and
//           the same rounded once to the descriptor's dtype, read back from the dst buffer.
// The numbers go through the descriptor's dtype and layouts and the buffer entry points
// (transposed_convolution, round_transposed_to_output), as a backend's would.
// Exit 0 on success, 2 on a refused input (the message names what and why).
#include <string>
#include <vector>

#include "cli_io.hpp"
#include "convcheck/reference/transposed.hpp"

using namespace convcheck;

namespace {
int refuse(const std::string& message) { return cli_io::refuse("reference_transposed_cli", message); }
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return refuse("usage: reference_transposed_cli <deconv descriptor> < numbers (src NCX, weights IOX, bias)");
    TransposedDescriptor t;
    try {
        t = parse_transposed_descriptor(argv[1]);
    } catch (const ConvError& e) {
        return refuse("descriptor: " + e.attribute() + " = " + e.value() + ": " + e.rule());
    }
    const std::int64_t bias_elements = t.has_bias ? t.out_channels : 0;
    std::string error;
    const auto read = cli_io::read_numbers(t.dtype, t.src_elements() + t.weights_elements() + bias_elements,
                                           to_string(t) + ": src " + std::to_string(t.src_elements()) + ", weights " +
                                               std::to_string(t.weights_elements()) + ", bias " + std::to_string(bias_elements),
                                           &error);
    if (!read) return refuse(error);
    const auto src_end = read->begin() + t.src_elements(), weights_end = src_end + t.weights_elements();
    const std::vector<double> src(read->begin(), src_end), weights(src_end, weights_end), bias(weights_end, read->end());

    // Into the descriptor's dtype and layouts (exact: every number was checked representable). The
    // transposed op's src is the forward's dst, its weights the forward's weights (transposed.hpp).
    const ConvDescriptor f = t.forward();
    const int bytes = size_of(t.dtype);
    std::vector<unsigned char> src_buffer(src.size() * bytes), weights_buffer(weights.size() * bytes),
        bias_buffer(bias.size() * bytes + 1), dst_buffer(t.dst_elements() * bytes);
    reference::round_dst_to_output(f, src, src_buffer.data());
    reference::oix_to_weights(f, weights, weights_buffer.data());
    for (std::size_t i = 0; i < bias.size(); ++i) store_from_double(bias_buffer.data(), t.dtype, i, bias[i]);

    const auto result = reference::transposed_convolution(t, src_buffer.data(), weights_buffer.data(),
                                                          t.has_bias ? bias_buffer.data() : nullptr);
    reference::round_transposed_to_output(t, result.dst, dst_buffer.data());
    std::printf("{");
    cli_io::print_array("exact", result.dst, false);
    cli_io::print_array("rounded", reference::src_to_ncx(f, dst_buffer.data()), true);  // F's src layout is dst's
    std::printf("}\n");
    return 0;
}
