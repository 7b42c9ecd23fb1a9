// The CC backward golden vectors (the cc_backward set) reproduced by the C++ reference
// (reference_vectors_test): from the stored src, theta and diff_dst, reference::cc::cc_backward gives every
// gradient's f64 value, magnitude and term count, cc_backward_error_bound its bound, and block 2 its
// distances, all equal to the stored ones exactly; the stored f32 gradient is the f64 one rounded once.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "convcheck/formats/cc_backward_case_data.hpp"
#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"
#include "gradient_vectors.hpp"

namespace convcheck::vectors {

inline const float* f32_data(const npy::Array& a) {
    return a.data.empty() ? nullptr : reinterpret_cast<const float*>(a.data.data());
}

inline std::vector<double> as_f64(const npy::Array& a) {
    std::vector<double> v(static_cast<std::size_t>(a.elements()));
    for (std::int64_t i = 0; i < a.elements(); ++i) v[i] = a.get(i);
    return v;
}

inline void expect_equal_f64(const std::string& what, const std::vector<double>& got, const npy::Array& stored,
                             const std::string& repro) {
    ASSERT_EQ(static_cast<std::int64_t>(got.size()), stored.elements()) << what << "\n" << repro;
    for (std::int64_t i = 0; i < stored.elements(); ++i)
        if (got[i] != stored.get(i)) {
            ADD_FAILURE() << what << "[" << i << "]: reference " << got[i] << ", stored " << stored.get(i) << "\n" << repro;
            return;
        }
}

inline void check_cc_backward(const VectorSet& set, const VectorCase& c, const std::string& repro) {
    namespace ref = reference::cc;
    const CcBackwardCaseData data = load_cc_backward_case_data(set, c);
    const CcDescriptor& d = data.descriptor;
    const float* theta = f32_data(data.theta);
    const ref::CcBackward r = ref::cc_backward(d, f32_data(data.src), theta, f32_data(data.diff_dst));
    EXPECT_GT(r.leaky_relu_margin, 1.0) << "a LeakyReLU branch is undecided: the stored theta bound does not hold\n" << repro;
    const ref::CcBackwardBound b = ref::cc_backward_error_bound(d, ref::ContinuousKernel::for_buffer(d, theta),
                                                                as_f64(data.diff_dst), r);
    const std::vector<double> zeros(static_cast<std::size_t>(d.src_elements()), 0.0);
    expect_equal_f64("distances", ref::extract_neighbours(d, ref::projected_grid(d), zeros).distances, data.distances, repro);
    struct Want {
        const std::vector<double>& values;
        const std::vector<double>& magnitude;
        std::vector<std::int64_t> terms;
        const std::vector<double>& bound;
    };
    std::vector<Want> want{{r.diff_src, r.diff_src_magnitude, r.diff_src_terms, b.diff_src}};
    if (!r.diff_theta.empty())
        want.push_back({r.diff_theta, r.diff_theta_magnitude,
                        std::vector<std::int64_t>(r.diff_theta.size(), r.diff_theta_roundings), b.diff_theta});
    if (d.has_bias)
        want.push_back({r.diff_bias, r.diff_bias_magnitude, std::vector<std::int64_t>(r.diff_bias.size(), r.diff_bias_terms),
                        b.diff_bias});
    ASSERT_EQ(want.size(), data.gradients.size()) << repro;
    for (std::size_t g = 0; g < want.size(); ++g) {
        const StoredCcGradient& s = data.gradients[g];
        std::vector<float> rounded(want[g].values.size());
        for (std::size_t i = 0; i < rounded.size(); ++i) rounded[i] = static_cast<float>(want[g].values[i]);
        std::vector<std::byte> bytes(rounded.size() * sizeof(float));
        if (!bytes.empty()) std::memcpy(bytes.data(), rounded.data(), bytes.size());
        expect_same_gradient(s.role, want[g].values, want[g].magnitude, want[g].terms, bytes, s.stored, s.f64, s.magnitude,
                             s.terms, repro);
        expect_equal_f64(s.role + "_bound", want[g].bound, s.bound, repro);
    }
}

}  // namespace convcheck::vectors
