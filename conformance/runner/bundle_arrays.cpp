// The arrays of a failure bundle (bundle_arrays.hpp): the shared pieces, and discrete and continuous
// convolution's arrays (their traits entries' bundle_arrays).
#include "convcheck/runner/bundle_arrays.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/formats/manifest.hpp"
#include "convcheck/runner/operation_jobs.hpp"
#include "conv/operation.hpp"

namespace convcheck::runner {

npy::Array bytes_array(const StoredTensor& t, const std::vector<std::byte>& bytes) {
    const npy::ElementType type = vectors::storage_type(t.dtype);
    std::int64_t elements = 1;
    for (std::int64_t d : t.dims) elements *= d;
    if (static_cast<std::int64_t>(bytes.size()) != elements * npy::size_of(type))  // never read past what was kept
        throw std::runtime_error("the execution's " + t.layout + " buffer holds " + std::to_string(bytes.size()) +
                                 " bytes, not the " + std::to_string(elements * npy::size_of(type)) + " of its shape");
    return npy::from_bytes(type, bytes.data(), t.dims);
}

BundleArray stored(const std::string& role, const StoredTensor& t, const std::vector<std::byte>& bytes) {
    return {role, t.dtype, t.layout, bytes_array(t, bytes)};
}

std::vector<std::int64_t> ncx_dims(const std::vector<std::int64_t>& native, bool channels_last) {
    std::vector<std::int64_t> dims = native;
    if (channels_last) std::rotate(dims.begin() + 1, dims.end() - 1, dims.end());
    return dims;
}

void append_reference(BundleArrays& arrays, const std::vector<double>& values, const std::vector<double>& magnitude,
                      const std::vector<std::int64_t>& terms, const std::vector<std::int64_t>& dims,
                      const std::string& layout, const std::string& suffix) {
    arrays.push_back({"expected_f64" + suffix, "f64", layout, npy::from_f64(values, dims)});
    arrays.push_back({"magnitude" + suffix, "f64", layout, npy::from_f64(magnitude, dims)});
    arrays.push_back({"terms" + suffix, "i64", layout, npy::from_i64(terms, dims)});
}

}  // namespace convcheck::runner

namespace convcheck::runner::detail {

namespace {

// A strided execution's buffers gathered dense (the gaps dropped; the values exact: each goes to
// double and back to its own dtype), with the descriptor that describes them.
std::pair<ConvDescriptor, RecordedExecution> densified(const ConvDescriptor& strided, const RecordedExecution& e) {
    ConvDescriptor d = strided;
    d.src_strides.clear(), d.weights_strides.clear(), d.dst_strides.clear();
    RecordedExecution dense = e;
    auto bytes = [&](DataType dtype) { return static_cast<std::size_t>(size_of(dtype)); };
    dense.src.assign(static_cast<std::size_t>(d.src_elements()) * bytes(d.src_dtype()), std::byte{0});
    reference::ncx_to_src(d, reference::src_to_ncx(strided, e.src.data()), dense.src.data());
    dense.weights.assign(static_cast<std::size_t>(d.weights_elements()) * bytes(d.weights_dtype()), std::byte{0});
    reference::oix_to_weights(d, reference::weights_to_oix(strided, e.weights.data()), dense.weights.data());
    dense.dst.assign(static_cast<std::size_t>(d.dst_elements()) * bytes(d.dst_dtype()), std::byte{0});
    if (!e.dst.empty()) reference::round_dst_to_output(d, reference::dst_to_ncx(strided, e.dst.data()), dense.dst.data());
    return {d, dense};
}

BundleArrays dense_conv_arrays(const ConvDescriptor& d, accuracy::Mode mode, const RecordedExecution& e) {
    // each tensor in its own dtype
    const std::string data(to_string(d.data_format)), wei(to_string(d.filter_format));
    const std::string src_dt(to_string(d.src_dtype())), weights_dt(to_string(d.weights_dtype())),
        bias_dt(to_string(d.bias_dtype())), dt(to_string(d.dst_dtype()));
    BundleArrays arrays;
    arrays.push_back(stored("src", {src_dt, d.src_dims(), data}, e.src));
    arrays.push_back(stored("weights", {weights_dt, d.weights_dims(), wei}, e.weights));
    if (d.has_bias) arrays.push_back(stored("bias", {bias_dt, {d.out_channels}, "o"}, e.bias));
    // the reference on exactly these bytes, by the evaluator the check used (conv/reference_sums.cpp): what the runner
    // judged the output against
    const reference::ConvResult want =
        detail::reference_sums(d, mode, reference::src_to_ncx(d, e.src.data()), reference::weights_to_oix(d, e.weights.data()),
                               reference::bias_to_double(d, d.has_bias ? e.bias.data() : nullptr));
    std::vector<std::byte> rounded(static_cast<std::size_t>(d.dst_elements() * size_of(d.dst_dtype())));
    reference::round_dst_to_output(d, want.dst, rounded.data());
    arrays.push_back(stored("expected", {dt, d.dst_dims(), data}, rounded));
    append_reference(arrays, want.dst, want.magnitude, want.terms, ncx_dims(d.dst_dims(), d.data_format == DataFormat::nxc),
                     "ncx");
    if (e.completed) arrays.push_back(stored("actual", {dt, d.dst_dims(), data}, e.dst));
    return arrays;
}

std::vector<float> floats(const std::vector<std::byte>& bytes) {
    std::vector<float> v(bytes.size() / sizeof(float));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
    return v;
}

}  // namespace

// The arrays of one discrete-convolution execution; a strided one's are written dense (the case's
// descriptor string keeps the strides).
BundleArrays conv_bundle_arrays(const Case& c, const RecordedExecution& e) {
    const ConvDescriptor& d = c.conv;
    if (d.src_strides.empty() && d.weights_strides.empty() && d.dst_strides.empty()) return dense_conv_arrays(d, c.mode, e);
    if (e.src.empty()) return {};  // inputs not kept
    const auto [dense_d, dense_e] = densified(d, e);
    return dense_conv_arrays(dense_d, c.mode, dense_e);
}

// The arrays of one CC execution (all f32, NCHW; theta only for the Internal-Net kernel).
BundleArrays cc_bundle_arrays(const Case& c, const RecordedExecution& e) {
    const CcDescriptor d = parse_cc_descriptor(c.cc);
    BundleArrays arrays;
    arrays.push_back(stored("src", {"f32", d.src_dims(), "ncx"}, e.src));
    const std::vector<float> src = floats(e.src), theta = floats(e.weights), bias = floats(e.bias);
    if (!theta.empty()) arrays.push_back(stored("theta", {"f32", {static_cast<std::int64_t>(theta.size())}, "abi"}, e.weights));
    if (!bias.empty()) arrays.push_back(stored("bias", {"f32", {static_cast<std::int64_t>(bias.size())}, "o"}, e.bias));
    const reference::ConvResult want = reference::cc::continuous_convolution(
        d, src.data(), theta.empty() ? nullptr : theta.data(), bias.empty() ? nullptr : bias.data());
    std::vector<float> rounded(want.dst.begin(), want.dst.end());
    std::vector<std::byte> rounded_bytes(rounded.size() * sizeof(float));
    if (!rounded.empty()) std::memcpy(rounded_bytes.data(), rounded.data(), rounded_bytes.size());
    arrays.push_back(stored("expected", {"f32", d.dst_dims(), "ncx"}, rounded_bytes));
    append_reference(arrays, want.dst, want.magnitude, want.terms, d.dst_dims(), "ncx");
    if (e.completed) arrays.push_back(stored("actual", {"f32", d.dst_dims(), "ncx"}, e.dst));
    return arrays;
}

}  // namespace convcheck::runner::detail
