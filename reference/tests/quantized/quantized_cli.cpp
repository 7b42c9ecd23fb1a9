// reference_quantized_cli: the quantized convolution reference on one problem (quantized_convolution.hpp,
// requantize.hpp), for checks written outside C++ (onnx_node_check.py compares it with the ONNX backend
// tests' QLinearConv and ConvInteger nodes).
//
// usage: reference_quantized_cli <descriptor> <src zero points> <weight zero points> <rule|none> <scale>
//                                <dst zero point> <lowest> <highest>
//   The zero-point arguments are counts: 1 (per tensor) or the channel count. rule: double_rounding,
//   single_rounding, nearest_even_f32 or nearest_even_f32_with_zero_point, or none (the int32 accumulator only,
//   ConvInteger).
//   stdin:  whitespace-separated integers: src NCX, weights OIX, bias [O] when the descriptor has bias=1,
//           then the src zero points and the weight zero points.
//   stdout: {"acc": [...], "dst": [...]} in NCX order: the accumulator, and (with a rule) the requantized
//           output: the rule's integer with the dst zero point (added after rounding, or before for
//           nearest_even_f32_with_zero_point), saturated to [lowest, highest].
// Exit 0 on success, 2 on a refused input (the message names what and why).
#include <cstdint>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../torch/cli_io.hpp"
#include "convcheck/reference/quantized_convolution.hpp"
#include "convcheck/reference/requantize.hpp"

using namespace convcheck;

namespace {

int refuse(const std::string& message) { return cli_io::refuse("reference_quantized_cli", message); }

// The next `count` integers of stdin; throws naming `what` on a token that is not an int32.
std::vector<std::int32_t> read_integers(std::int64_t count, const char* what) {
    std::vector<std::int32_t> values;
    for (std::int64_t i = 0; i < count; ++i) {
        long long v = 0;
        if (!(std::cin >> v)) throw std::invalid_argument(std::string(what) + ": fewer than " + std::to_string(count) + " integers");
        if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
            throw std::invalid_argument(std::string(what) + ": " + std::to_string(v) + " is not an int32");
        values.push_back(static_cast<std::int32_t>(v));
    }
    return values;
}

// Integers below 2^53 in magnitude print exactly as doubles.
std::vector<double> as_doubles(const std::vector<std::int64_t>& values) { return {values.begin(), values.end()}; }

}  // namespace

int main(int argc, char** argv) {
    if (argc != 9)
        return refuse("usage: reference_quantized_cli <descriptor> <src zero points> <weight zero points> <rule|none> "
                      "<scale> <dst zero point> <lowest> <highest> < integers");
    try {
        const ConvDescriptor d = parse_descriptor(argv[1]);
        const auto src = read_integers(d.src_elements(), "src");
        const auto weights = read_integers(d.weights_elements(), "weights");
        const auto bias = read_integers(d.has_bias ? d.out_channels : 0, "bias");
        const auto src_zero_points = read_integers(std::stoll(argv[2]), "src zero points");
        const auto weight_zero_points = read_integers(std::stoll(argv[3]), "weight zero points");
        if (std::string rest; std::cin >> rest) return refuse("stdin: more integers than the descriptor needs");
        const reference::IntegerSums sums =
            reference::integer_convolution_sum(d, {src, weights, bias, src_zero_points, weight_zero_points});
        std::int64_t first = 0;
        if (!reference::fits_int32_accumulator(sums, &first))
            return refuse("output " + std::to_string(first) + ": an int32 accumulator overflows in some order");
        const std::string rule = argv[4];
        const reference::Requantization* r = nullptr;
        for (const reference::Requantization& known : reference::kRequantizations)
            if (rule == reference::to_string(known)) r = &known;
        if (!r && rule != "none")
            return refuse("rule '" + rule + "': not double_rounding, single_rounding, nearest_even_f32, "
                          "nearest_even_f32_with_zero_point or none");
        std::printf("{");
        cli_io::print_array("acc", as_doubles(sums.acc), !r);
        if (r) {
            const double scale = std::stod(argv[5]);
            const auto zero_point = static_cast<std::int32_t>(std::stol(argv[6]));
            const auto lowest = static_cast<std::int32_t>(std::stol(argv[7])), highest = static_cast<std::int32_t>(std::stol(argv[8]));
            std::vector<std::int64_t> dst;
            for (const std::int64_t acc : sums.acc)
                dst.push_back(reference::saturate(
                    reference::requantize_with_zero_point(static_cast<std::int32_t>(acc), scale, zero_point, *r), 0,
                    lowest, highest));
            cli_io::print_array("dst", as_doubles(dst), true);
        }
        std::printf("}\n");
    } catch (const ConvError& e) {
        return refuse("descriptor: " + e.attribute() + " = " + e.value() + ": " + e.rule());
    } catch (const std::exception& e) {
        return refuse(e.what());
    }
    return 0;
}
