// Differential fuzz target: the reference against the optimized implementation, on random small
// problems, under the accuracy contract (DESIGN.md): exact mode for exact fills (any difference is
// a bug), bound mode for random real data (|y - y*| within u_out|y*| + gamma_n(u_f32) sum|x*w|).
// The fuzzer chooses the geometry (ranks 1-3, groups, strides, dilations, negative pads), dtype,
// formats, bias, the data seed, the optimized path among those the CPU can run, and the thread
// count. A failure prints the descriptor, seed, fill, path and threads that reproduce it.
#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/core/descriptor.hpp"
#include "fuzz_input.hpp"

namespace {

using namespace convcheck;

ConvDescriptor random_descriptor(fuzz::FuzzInput& in) {
    ConvDescriptor d;
    d.rank = static_cast<int>(in.integer(1, 3));
    d.batch = in.integer(1, 2);
    d.groups = in.integer(1, 3);
    d.in_channels = d.groups * in.integer(1, 4);
    d.out_channels = d.groups * in.integer(1, 4);
    const std::int64_t max_in = d.rank == 3 ? 5 : 9;
    for (int a = 0; a < d.rank; ++a) {
        d.input_size[a] = in.integer(1, max_in);
        d.kernel_size[a] = in.integer(1, 4);
        d.strides[a] = in.integer(1, 4);
        d.dilations[a] = in.integer(1, 3);
        d.pads_begin[a] = in.integer(-1, 3);
        d.pads_end[a] = in.integer(-1, 3);
    }
    d.has_bias = in.flag();
    d.dtype = static_cast<DataType>(in.integer(0, 2));
    d.data_format = in.flag() ? DataFormat::nxc : DataFormat::ncx;
    d.filter_format = in.flag() ? FilterFormat::xio : FilterFormat::oix;
    return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::FuzzInput in(data, size);
    const ConvDescriptor d = random_descriptor(in);
    const bool exact = in.flag();
    const std::uint64_t seed = in.u64();
    const std::int64_t path_choice = in.integer(0, 255);
    const int threads = static_cast<int>(in.integer(1, 2));
    try {
        validate(d);
    } catch (const ConvError&) {
        return 0;
    }
    if (d.macs() > 200000) return 0;

    const accuracy::Contract contract{d.dtype, DataType::f32};
    std::vector<double> src_ncx, weights_oix, bias;
    if (exact) {
        auto f = accuracy::make_exact_fill(d, contract, seed);
        src_ncx = f.src, weights_oix = f.weights, bias = f.bias;
    } else {
        auto f = accuracy::make_random_fill(d, seed);
        src_ncx = f.src, weights_oix = f.weights, bias = f.bias;
    }
    const int bytes = size_of(d.dtype);
    std::vector<std::byte> src(d.src_elements() * bytes), weights(d.weights_elements() * bytes),
        bias_buffer(d.bias_elements() * bytes), dst(d.dst_elements() * bytes);
    reference::ncx_to_src(d, src_ncx, src.data());
    reference::oix_to_weights(d, weights_oix, weights.data());
    for (std::size_t i = 0; i < bias.size(); ++i) store_from_double(bias_buffer.data(), d.dtype, std::int64_t(i), bias[i]);
    const void* bias_ptr = d.has_bias ? bias_buffer.data() : nullptr;

    const auto want = reference::convolution(d, src.data(), weights.data(), bias_ptr);
    const auto paths = optimized::available_paths(d);
    if (paths.empty()) fuzz::property_failed("differential", "no optimized path for " + to_string(d));
    const optimized::Path path = paths[static_cast<std::size_t>(path_choice) % paths.size()];
    optimized::ConvPlan plan(d, weights.data(), bias_ptr, {.threads = threads, .forced_path = path});
    plan.execute(src.data(), dst.data());
    const std::vector<double> got = reference::dst_to_ncx(d, dst.data());

    const accuracy::Comparison c = exact ? accuracy::compare_exact(want.dst, got)
                                         : accuracy::compare_bound(contract, want.dst, want.magnitude, want.terms, got);
    if (!c.passed()) {
        const auto i = c.first_mismatch;
        fuzz::property_failed("differential", std::string(exact ? "exact" : "bound") + " mode: " +
                                                  std::to_string(c.mismatches) + " mismatches, first at NCX index " +
                                                  std::to_string(i) + " (optimized " + std::to_string(got[i]) +
                                                  ", reference " + std::to_string(want.dst[i]) + "); reproduce: " +
                                                  to_string(d) + " seed=" + std::to_string(seed) +
                                                  " fill=" + (exact ? "exact" : "random") + " path=" +
                                                  std::string(optimized::to_string(path)) + " threads=" +
                                                  std::to_string(threads));
    }
    return 0;
}
