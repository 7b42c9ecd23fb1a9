// The backward passes' jobs around their check (operation_jobs.hpp), beside conv's shared ones
// (conv/jobs.cpp): naming an element of the recorded gradients (determinism mode), a failure
// bundle's arrays, and bench's timing.
#include <cstring>

#include "operation.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/runner/operation_jobs.hpp"

namespace convcheck::runner::detail {

namespace {

std::vector<std::int64_t> oix_dims(const ConvDescriptor& d) {
    std::vector<std::int64_t> dims{d.out_channels, d.in_channels_per_group()};
    for (int a = 0; a < d.rank; ++a) dims.push_back(d.kernel_size[a]);
    return dims;
}

std::vector<std::byte> bytes_of(std::size_t count) { return std::vector<std::byte>(count); }

}  // namespace

std::string backward_output_element(const Case& c, std::int64_t flat) {
    const ConvDescriptor& d = c.conv;
    if (d.pass == Pass::backward_data)
        return "diff_src" + coordinates_text(element_coordinates(d.src_dims(), d.data_format == DataFormat::nxc, flat));
    if (flat >= d.weights_elements()) return "diff_bias[" + std::to_string(flat - d.weights_elements()) + "]";
    // the weights' own layout to [o, i, k...]: OIX as it is, XIO [k..., i, o], OXI [o, k..., i]
    const std::vector<std::int64_t> native = element_coordinates(d.weights_dims(), false, flat);
    const auto r = static_cast<std::ptrdiff_t>(d.rank);
    std::vector<std::int64_t> oik = native;
    if (d.filter_format == FilterFormat::xio) {
        oik = {native[r + 1], native[r]};
        oik.insert(oik.end(), native.begin(), native.begin() + r);
    } else if (d.filter_format == FilterFormat::oxi) {
        oik = {native[0], native[r + 1]};
        oik.insert(oik.end(), native.begin() + 1, native.begin() + 1 + r);
    }
    return "diff_weights" + coordinates_text(oik);
}

// Inputs as the backend saw them (diff_dst and weights, or src and diff_dst), the reference on exactly
// those bytes (each gradient rounded once to the dtype: expected; f64 with magnitudes and term counts,
// canonical NCX / OIX / [O]), and the backend's gradients (actual). Backward weights with bias: the
// bias gradient's arrays carry the suffix _bias.
BundleArrays backward_bundle_arrays(const Case& c, const RecordedExecution& e) {
    const ConvDescriptor& d = c.conv;
    if (e.diff_dst.empty()) return {};  // inputs not kept
    const std::string dt(to_string(d.dtype)), data(to_string(d.data_format)), wei(to_string(d.filter_format));
    const std::size_t size = static_cast<std::size_t>(size_of(d.dtype));
    BundleArrays arrays;
    BackwardInputs in;
    in.diff_dst = reference::dst_to_ncx(d, e.diff_dst.data());
    if (d.pass == Pass::backward_data) {
        arrays.push_back(stored("weights", {dt, d.weights_dims(), wei}, e.weights));
        in.weights = reference::weights_to_oix(d, e.weights.data());
    } else {
        arrays.push_back(stored("src", {dt, d.src_dims(), data}, e.src));
        in.src = reference::src_to_ncx(d, e.src.data());
    }
    arrays.push_back(stored("diff_dst", {dt, d.dst_dims(), data}, e.diff_dst));
    const reference::GradientResult want = backward_reference(d, c.mode, in);
    if (d.pass == Pass::backward_data) {
        std::vector<std::byte> rounded = bytes_of(static_cast<std::size_t>(d.src_elements()) * size);
        reference::ncx_to_src(d, want.values, rounded.data());
        arrays.push_back(stored("expected", {dt, d.src_dims(), data}, rounded));
        append_reference(arrays, want.values, want.magnitude, want.terms,
                         ncx_dims(d.src_dims(), d.data_format == DataFormat::nxc), "ncx");
        if (e.completed) arrays.push_back(stored("actual", {dt, d.src_dims(), data}, e.dst));
        return arrays;
    }
    const auto weights = static_cast<std::ptrdiff_t>(d.weights_elements());
    auto part = [&](const auto& v, bool bias) {  // diff_weights' or diff_bias' share of the reference
        using V = std::decay_t<decltype(v)>;
        return bias ? V(v.begin() + weights, v.end()) : V(v.begin(), v.begin() + weights);
    };
    std::vector<std::byte> rounded = bytes_of(static_cast<std::size_t>(weights) * size);
    reference::oix_to_weights(d, part(want.values, false), rounded.data());
    arrays.push_back(stored("expected", {dt, d.weights_dims(), wei}, rounded));
    append_reference(arrays, part(want.values, false), part(want.magnitude, false), part(want.terms, false),
                     oix_dims(d), "oix");
    const std::size_t weight_bytes = static_cast<std::size_t>(weights) * size;
    if (e.completed)
        arrays.push_back(stored("actual", {dt, d.weights_dims(), wei},
                                std::vector<std::byte>(e.dst.begin(), e.dst.begin() + std::min(weight_bytes, e.dst.size()))));
    if (!d.has_bias) return arrays;
    std::vector<std::byte> rounded_bias = bytes_of(static_cast<std::size_t>(d.out_channels) * size);
    reference::round_bias_to_output(d, part(want.values, true), rounded_bias.data());
    arrays.push_back(stored("expected_bias", {dt, {d.out_channels}, "o"}, rounded_bias));
    append_reference(arrays, part(want.values, true), part(want.magnitude, true), part(want.terms, true),
                     {d.out_channels}, "o", "_bias");
    if (e.completed)
        arrays.push_back(stored("actual_bias", {dt, {d.out_channels}, "o"},
                                std::vector<std::byte>(e.dst.begin() + std::min(weight_bytes, e.dst.size()), e.dst.end())));
    return arrays;
}

ChildOutcome time_backward(const Backend& backend, const Case& c, const TimedRun& run) {
    // bound mode's data: uniform [-1, 1] in the dtype (the contract only chooses exact mode's integers)
    const BackwardInputs in = backward_inputs(c.conv, accuracy::Contract{}, accuracy::Mode::bound, c.seed);
    CheckSettings s;
    s.timeout_s = run.timeout_s;
    s.memory_limit_bytes = run.memory_limit_bytes;
    BackwardOutputs out;
    return run_backward(backend, c.conv, in, s, run.needs, out, run.warmups, run.repeats);
}

}  // namespace convcheck::runner::detail
