// Transposed convolution's jobs around its check (operation_jobs.hpp): reading and printing its
// "deconv:" descriptor, shrinking (through the forward convolution it transposes), a failure bundle's
// arrays, its benchdnn line (the deconv driver's), naming an output, bench's timing and multiply-adds, and the
// case record's features.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "operation.hpp"
#include "convcheck/runner/failure_bundle.hpp"
#include "convcheck/runner/invalid_case.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/transposed.hpp"
#include "convcheck/runner/operation_jobs.hpp"
#include "convcheck/runner/shrink.hpp"

namespace convcheck::runner::detail {

void transposed_read(const std::string& text, Case& c) {
    c.op = Op::conv_transposed;
    c.deconv = parse_transposed_descriptor_unvalidated(text);
}

std::string transposed_descriptor(const Case& c) { return to_string(c.deconv); }

std::string transposed_broken_rule(const Case& c) { return broken_rule(c.deconv); }

namespace {

// The transposed convolution whose forward() is f, with t's output_padding (axes kept from the inner
// end when f dropped an outer one): t' has f's geometry read backwards, pads_end = f's + output_padding,
// and an output no longer than f's input.
TransposedDescriptor transposed_of(const ConvDescriptor& f, const TransposedDescriptor& t) {
    TransposedDescriptor s = t;
    s.rank = f.rank, s.batch = f.batch, s.groups = f.groups;
    s.in_channels = f.out_channels, s.out_channels = f.in_channels;
    for (int a = 0; a < kMaxSpatialRank; ++a) {
        const bool used = a < f.rank;
        s.output_padding[a] = used ? t.output_padding[a + t.rank - f.rank] : 0;
        s.input_size[a] = used ? f.output_size(a) : 1;
        s.kernel_size[a] = f.kernel_size[a], s.strides[a] = f.strides[a], s.dilations[a] = f.dilations[a];
        s.pads_begin[a] = f.pads_begin[a];
        s.pads_end[a] = f.pads_end[a] + s.output_padding[a];
    }
    return s;
}

}  // namespace

std::vector<Case> transposed_smaller(const Case& c) {
    const TransposedDescriptor& t = c.deconv;
    std::vector<TransposedDescriptor> candidates;
    for (const ConvDescriptor& f : smaller_descriptors(t.forward())) candidates.push_back(transposed_of(f, t));
    // what the forward does not have: output_padding and the transposed op's own bias
    for (int a = 0; a < t.rank; ++a)
        if (t.output_padding[a] > 0) {
            TransposedDescriptor s = t;
            s.output_padding[a] = 0;
            candidates.push_back(s);
        }
    if (t.has_bias) {
        TransposedDescriptor s = t;
        s.has_bias = false;
        candidates.push_back(s);
    }
    std::vector<Case> out;
    for (const TransposedDescriptor& s : candidates) {
        try {
            validate(s);
        } catch (const ConvError&) {
            continue;
        }
        if (s == t || std::any_of(out.begin(), out.end(), [&](const Case& o) { return o.deconv == s; })) continue;
        out.push_back(c);
        out.back().deconv = s;
    }
    return out;
}

// The inputs as the backend saw them, the reference on exactly those bytes (rounded once: expected; f64
// with magnitudes and term counts, canonical NCX), and the backend's dst (actual).
BundleArrays transposed_bundle_arrays(const Case& c, const RecordedExecution& e) {
    const TransposedDescriptor& t = c.deconv;
    if (e.src.empty()) return {};  // inputs not kept
    const std::string dt(to_string(t.dtype)), data(to_string(t.data_format));
    const ConvDescriptor f = t.forward();
    BundleArrays arrays;
    arrays.push_back(stored("src", {dt, t.src_dims(), data}, e.src));
    arrays.push_back(stored("weights", {dt, f.weights_dims(), std::string(to_string(t.filter_format))}, e.weights));
    if (t.has_bias) arrays.push_back(stored("bias", {dt, {t.out_channels}, "o"}, e.bias));
    const reference::ConvResult want =
        reference::transposed_convolution(t, e.src.data(), e.weights.data(), t.has_bias ? e.bias.data() : nullptr);
    std::vector<std::byte> rounded(static_cast<std::size_t>(t.dst_elements() * size_of(t.dtype)));
    reference::round_transposed_to_output(t, want.dst, rounded.data());
    arrays.push_back(stored("expected", {dt, t.dst_dims(), data}, rounded));
    append_reference(arrays, want.dst, want.magnitude, want.terms,
                     ncx_dims(t.dst_dims(), t.data_format == DataFormat::nxc), "ncx");
    if (e.completed) arrays.push_back(stored("actual", {dt, t.dst_dims(), data}, e.dst));
    return arrays;
}

// benchdnn's deconv driver line (`--deconv`, docs/benchdnn.md; failure_bundle.hpp).
std::string transposed_benchdnn(const Case& c, std::string* why) { return benchdnn_line(c.deconv, why); }

std::string transposed_output_element(const Case& c, std::int64_t flat) {
    return coordinates_text(element_coordinates(c.deconv.dst_dims(), c.deconv.data_format == DataFormat::nxc, flat));
}

ChildOutcome time_transposed(const Backend& backend, const Case& c, const TimedRun& run) {
    // bound mode's data: uniform [-1, 1] in the dtype (the contract only chooses exact mode's integers)
    const TransposedInputs in = transposed_inputs(c.deconv, accuracy::Contract{}, accuracy::Mode::bound, c.seed);
    CheckSettings s;
    s.timeout_s = run.timeout_s;
    s.memory_limit_bytes = run.memory_limit_bytes;
    TransposedOutputs out;
    return run_transposed(backend, c.deconv, in, s, run.needs, out, run.warmups, run.repeats);
}

// Every (input, tap) pair: the forward convolution's multiply-adds, read backwards.
std::int64_t transposed_macs(const Case& c) { return c.deconv.forward().macs(); }

// conv's features of the geometry (pads as written, not the forward's; the transposed op's own bias: forward()
// has none), and output_padding.
nlohmann::json transposed_features(const Case& c) {
    const TransposedDescriptor& t = c.deconv;
    Case geometry = c;
    geometry.conv = t.forward();
    geometry.conv.pads_end = t.pads_end;
    geometry.conv.in_channels = t.in_channels, geometry.conv.out_channels = t.out_channels;
    geometry.conv.has_bias = t.has_bias;
    nlohmann::json features = conv_features(geometry);
    features["output_padding"] = std::any_of(t.output_padding.begin(), t.output_padding.begin() + t.rank,
                                             [](std::int64_t v) { return v > 0; });
    return features;
}

}  // namespace convcheck::runner::detail
