// The backward and transposed golden vectors reproduced by the C++ reference (reference_vectors_test):
// from the stored inputs, every gradient (or the transposed output) equals the stored f64 truth,
// magnitude and term counts exactly, and the stored tensor is that truth rounded once to the dtype in
// the descriptor's layout, bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/transposed.hpp"
#include "convcheck/formats/gradient_case_data.hpp"

namespace convcheck::vectors {

// The reference's values, magnitude and terms against one stored gradient; `rounded` is the reference's
// result rounded to the stored tensor's dtype and layout.
inline void expect_same_gradient(const std::string& role, const std::vector<double>& values,
                                 const std::vector<double>& magnitude, const std::vector<std::int64_t>& terms,
                                 const std::vector<std::byte>& rounded, const npy::Array& stored, const npy::Array& f64,
                                 const npy::Array& stored_magnitude, const npy::Array& stored_terms, const std::string& repro) {
    ASSERT_EQ(static_cast<std::int64_t>(values.size()), f64.elements()) << role << "\n" << repro;
    for (std::int64_t i = 0; i < f64.elements(); ++i)
        if (values[i] != f64.get(i) || magnitude[i] != stored_magnitude.get(i) || double(terms[i]) != stored_terms.get(i)) {
            ADD_FAILURE() << role << " canonical index " << i << ": reference " << values[i] << " (sum|term| " << magnitude[i]
                          << ", " << terms[i] << " terms), stored " << f64.get(i) << " (" << stored_magnitude.get(i) << ", "
                          << stored_terms.get(i) << ")\n" << repro;
            return;
        }
    EXPECT_EQ(rounded.size(), stored.data.size()) << role << "\n" << repro;
    EXPECT_EQ(std::memcmp(rounded.data(), stored.data.data(), std::min(rounded.size(), stored.data.size())), 0)
        << role << ": the stored tensor is not the exact result rounded once\n" << repro;
}

inline void check_backward(const VectorSet& set, const VectorCase& c, const std::string& repro) {
    const BackwardCaseData data = load_backward_case_data(set, c);
    const ConvDescriptor& d = data.descriptor;
    if (d.pass == Pass::backward_data) {
        const auto g = reference::backward_data(d, data.diff_dst.data.data(), data.weights.data.data());
        std::vector<std::byte> rounded(static_cast<std::size_t>(d.src_elements() * size_of(d.dtype)));
        reference::ncx_to_src(d, g.values, rounded.data());
        const StoredGradient& s = data.gradients.at(0);
        return expect_same_gradient(s.role, g.values, g.magnitude, g.terms, rounded, s.stored, s.f64, s.magnitude, s.terms, repro);
    }
    reference::GradientResult bias;
    const auto w = reference::backward_weights(d, data.src.data.data(), data.diff_dst.data.data(), &bias);
    std::vector<std::byte> rounded(static_cast<std::size_t>(d.weights_elements() * size_of(d.dtype)));
    reference::oix_to_weights(d, w.values, rounded.data());
    const StoredGradient& sw = data.gradients.at(0);
    expect_same_gradient(sw.role, w.values, w.magnitude, w.terms, rounded, sw.stored, sw.f64, sw.magnitude, sw.terms, repro);
    ASSERT_EQ(data.gradients.size(), d.has_bias ? 2u : 1u) << repro;
    if (!d.has_bias) return;
    std::vector<std::byte> b(static_cast<std::size_t>(d.out_channels * size_of(d.dtype)));
    reference::round_bias_to_output(d, bias.values, b.data());
    const StoredGradient& sb = data.gradients.at(1);
    expect_same_gradient(sb.role, bias.values, bias.magnitude, bias.terms, b, sb.stored, sb.f64, sb.magnitude, sb.terms, repro);
}

inline void check_transposed(const VectorSet& set, const VectorCase& c, const std::string& repro) {
    const TransposedCaseData data = load_transposed_case_data(set, c);
    const TransposedDescriptor& t = data.descriptor;
    const auto r = reference::transposed_convolution(t, data.src.data.data(), data.weights.data.data(),
                                                     t.has_bias ? data.bias.data.data() : nullptr);
    std::vector<std::byte> rounded(static_cast<std::size_t>(t.dst_elements() * size_of(t.dtype)));
    reference::round_transposed_to_output(t, r.dst, rounded.data());
    expect_same_gradient("dst", r.dst, r.magnitude, r.terms, rounded, data.dst, data.dst_f64, data.magnitude, data.terms, repro);
}

}  // namespace convcheck::vectors
