// reference_cc_backward_cli: the CC backward reference on one layer, for checks written outside C++
// (vectors/tests/cc_backward_torch_check.py compares it with PyTorch autograd of the same construction).
//
// usage: reference_cc_backward_cli <cc descriptor>
//   stdin:  whitespace-separated numbers: src [N][Cin][H][W], then theta in the ABI order (kernel=net
//           only), then diff_dst [N][Cout][H'][W']; each exactly representable in f32 (the ABI's type).
//           The bias does not enter the gradients and is not read.
//   stdout: one JSON object: "distances" [K][2][H'][W'] (block 2's D), "diff_src", "diff_theta" (net only),
//           "diff_bias" (bias=1 only), "bound_<each>" (cc_backward_error_bound: |computed - exact| per
//           element) and "leaky_relu_margin" (above 1: every LeakyReLU branch decided; capped at 1e300).
// Exit 0 on success, 2 on a refused input (the message names what and why).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "cli_io.hpp"
#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/reference/cc/neighbours.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {
int refuse(const std::string& message) { return cli_io::refuse("reference_cc_backward_cli", message); }
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return refuse("usage: reference_cc_backward_cli <cc descriptor> < numbers (src, theta if net, diff_dst)");
    CcDescriptor d;
    try {
        d = parse_cc_descriptor(argv[1]);
    } catch (const ConvError& e) {
        return refuse("descriptor: " + e.attribute() + " = " + e.value() + ": " + e.rule());
    }
    const std::int64_t theta_count = d.theta_elements();
    const std::int64_t want = d.src_elements() + theta_count + d.dst_elements();
    std::string error;
    const auto read = cli_io::read_numbers(d.dtype, want,
                                           to_string(d) + ": src " + std::to_string(d.src_elements()) + ", theta " +
                                               std::to_string(theta_count) + ", diff_dst " + std::to_string(d.dst_elements()),
                                           &error);
    if (!read) return refuse(error);
    const auto src_end = read->begin() + d.src_elements(), theta_end = src_end + theta_count;
    const std::vector<double> src(read->begin(), src_end), theta(src_end, theta_end), diff_dst(theta_end, read->end());
    try {
        const ContinuousKernel kernel = ContinuousKernel::for_descriptor(d, theta);
        const CcBackward r = cc_backward(d, src, kernel, diff_dst);
        const CcBackwardBound b = cc_backward_error_bound(d, kernel, diff_dst, r);
        const std::vector<double> zeros(static_cast<std::size_t>(d.src_elements()), 0.0);
        const Neighbours nb = extract_neighbours(d, projected_grid(d), zeros);
        std::printf("{");
        cli_io::print_array("distances", nb.distances, false);
        cli_io::print_array("diff_src", r.diff_src, false);
        cli_io::print_array("bound_diff_src", b.diff_src, false);
        if (!r.diff_theta.empty()) {
            cli_io::print_array("diff_theta", r.diff_theta, false);
            cli_io::print_array("bound_diff_theta", b.diff_theta, false);
        }
        if (d.has_bias) {
            cli_io::print_array("diff_bias", r.diff_bias, false);
            cli_io::print_array("bound_diff_bias", b.diff_bias, false);
        }
        std::printf("\"leaky_relu_margin\": %.17g}\n", std::min(r.leaky_relu_margin, 1e300));
    } catch (const ConvError& e) {
        return refuse(e.attribute() + " = " + e.value() + ": " + e.rule());
    }
    return 0;
}
