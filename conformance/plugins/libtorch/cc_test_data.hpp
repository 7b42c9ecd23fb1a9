// Test data for the torch CC layer's tests (cc_forward_test.cpp, cc_backward_test.cpp): one layer's f32 buffers
// from a seed, and tensors over them.
#pragma once

#include <ATen/ops/from_blob.h>

#include <cstdint>
#include <random>
#include <vector>

#include "convcheck/libtorch/cc_torch.hpp"
#include "convcheck/reference/cc/internal_net.hpp"

namespace convcheck_libtorch::cc::testing {

inline std::vector<float> uniform(std::int64_t count, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(static_cast<std::size_t>(count));
    for (float& x : v) x = u(rng);
    return v;
}

// A tensor holding a copy of v.
inline at::Tensor tensor(std::vector<float>& v, at::IntArrayRef sizes) {
    return at::from_blob(v.data(), sizes, at::TensorOptions().dtype(at::kFloat)).clone();
}

inline std::vector<double> widened(const at::Tensor& t) {
    const at::Tensor c = t.contiguous();
    return std::vector<double>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// One layer's data from `seed`: src, diff_dst and bias uniform in [-1, 1); theta the reference's initialisation
// (internal_net.hpp) rounded to f32.
struct LayerData {
    LayerData(const CcDescriptor& d, std::uint64_t seed) {
        std::mt19937_64 rng(seed);
        src = uniform(d.src_elements(), rng);
        diff_dst = uniform(d.dst_elements(), rng);
        bias = uniform(d.has_bias ? d.out_channels : 0, rng);
        if (d.kernel == convcheck::CcKernel::internal_net)
            for (double t : convcheck::reference::cc::initialise_internal_net(d, seed).theta())
                theta.push_back(static_cast<float>(t));
    }
    const float* theta_or_null() const { return theta.empty() ? nullptr : theta.data(); }
    // The layer's parameters as tensors (copies).
    CcParameters parameters(const CcDescriptor& d) {
        CcParameters p;
        if (!theta.empty()) p.theta = tensor(theta, {d.theta_elements()});
        if (d.has_bias) p.bias = tensor(bias, {d.out_channels});
        return p;
    }
    std::vector<float> src, theta, bias, diff_dst;
};

}  // namespace convcheck_libtorch::cc::testing
