// The CC backward pass's jobs around its check (operation_jobs.hpp): naming a gradient element of the
// recorded outputs (determinism mode) and a failure bundle's arrays. Reading, printing and shrinking
// are the forward's (cc/jobs.cpp: dir=bwd is read there and kept).
#include <cstring>

#include "convcheck/reference/cc/backward.hpp"
#include "operation.hpp"
#include "convcheck/runner/operation_jobs.hpp"

namespace convcheck::runner::detail {

std::string cc_backward_output_element(const Case& c, std::int64_t flat) {
    return cc_gradient_element(parse_cc_descriptor(c.cc), flat);
}

BundleArrays cc_backward_bundle_arrays(const Case& c, const RecordedExecution& e) {
    const CcDescriptor d = parse_cc_descriptor(c.cc);
    if (e.diff_dst.empty()) return {};  // inputs not kept
    auto floats = [](const std::vector<std::byte>& bytes) {
        std::vector<float> v(bytes.size() / sizeof(float));
        if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
        return v;
    };
    const std::vector<float> src = floats(e.src), theta = floats(e.weights), diff_dst = floats(e.diff_dst);
    BundleArrays arrays;
    arrays.push_back(stored("src", {"f32", d.src_dims(), "ncx"}, e.src));
    if (!theta.empty()) arrays.push_back(stored("theta", {"f32", {d.theta_elements()}, "abi"}, e.weights));
    arrays.push_back(stored("diff_dst", {"f32", d.dst_dims(), "ncx"}, e.diff_dst));
    const reference::cc::CcBackward want =
        reference::cc::cc_backward(d, src.data(), theta.empty() ? nullptr : theta.data(), diff_dst.data());
    // each gradient: the reference rounded once to f32, in f64 with magnitudes and terms, and the backend's
    std::size_t offset = 0;  // into the recorded outputs, back to back
    auto gradient = [&](const std::string& suffix, const std::vector<double>& values, const std::vector<double>& magnitude,
                        const std::vector<std::int64_t>& terms, const std::vector<std::int64_t>& dims,
                        const std::string& layout) {
        const std::vector<float> rounded(values.begin(), values.end());
        std::vector<std::byte> bytes(rounded.size() * sizeof(float));
        if (!bytes.empty()) std::memcpy(bytes.data(), rounded.data(), bytes.size());
        arrays.push_back(stored("expected" + suffix, {"f32", dims, layout}, bytes));
        append_reference(arrays, values, magnitude, terms, dims, layout, suffix);
        if (e.completed && offset + bytes.size() <= e.dst.size())
            arrays.push_back(stored("actual" + suffix, {"f32", dims, layout},
                                    std::vector<std::byte>(e.dst.begin() + static_cast<std::ptrdiff_t>(offset),
                                                           e.dst.begin() + static_cast<std::ptrdiff_t>(offset + bytes.size()))));
        offset += bytes.size();
    };
    gradient("", want.diff_src, want.diff_src_magnitude, want.diff_src_terms, d.src_dims(), "ncx");
    if (!want.diff_theta.empty())
        gradient("_theta", want.diff_theta, want.diff_theta_magnitude,
                 std::vector<std::int64_t>(want.diff_theta.size(), want.diff_theta_roundings), {d.theta_elements()}, "abi");
    if (!want.diff_bias.empty())
        gradient("_bias", want.diff_bias, want.diff_bias_magnitude,
                 std::vector<std::int64_t>(want.diff_bias.size(), want.diff_bias_terms), {d.out_channels}, "o");
    return arrays;
}

}  // namespace convcheck::runner::detail
