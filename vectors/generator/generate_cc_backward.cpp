#include "generate_cc_backward.hpp"

#include <random>
#include <stdexcept>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"
#include "convcheck/runner/cc_window_margin.hpp"
#include "generate_cc.hpp"

namespace convcheck::vectors {

namespace {

std::vector<float> rounded(const std::vector<double>& values) {
    std::vector<float> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);  // one rounding (RNE)
    return out;
}

// g, g_f64, g_magnitude, g_terms and g_bound of one gradient.
void write_gradient(VectorCase& c, const std::filesystem::path& out_dir, const std::string& role,
                    const std::vector<double>& values, const std::vector<double>& magnitude,
                    const std::vector<std::int64_t>& terms, const std::vector<double>& bound,
                    const std::vector<std::int64_t>& dims) {
    const std::vector<float> f32 = rounded(values);
    c.arrays.push_back(write_array(out_dir, c.name, role, "f32", npy::from_bytes(npy::ElementType::f32, f32.data(), dims)));
    c.arrays.push_back(write_array(out_dir, c.name, role + "_f64", "f64", npy::from_f64(values, dims)));
    c.arrays.push_back(write_array(out_dir, c.name, role + "_magnitude", "f64", npy::from_f64(magnitude, dims)));
    c.arrays.push_back(write_array(out_dir, c.name, role + "_terms", "i64", npy::from_i64(terms, dims)));
    c.arrays.push_back(write_array(out_dir, c.name, role + "_bound", "f64", npy::from_f64(bound, dims)));
}

}  // namespace

VectorCase generate_cc_backward_case(const std::filesystem::path& out_dir, VectorCase c) {
    const CcPassText pass = split_cc_pass(c.descriptor);
    if (!pass.backward) throw std::runtime_error("convcheck_vectors: " + c.name + ": not a CC backward case (dir=bwd)");
    const CcDescriptor d = parse_cc_descriptor(pass.layer);
    c.descriptor = to_string(d) + ",dir=bwd";
    c.dtype = "f32";
    c.fill = "random";
    c.comparison = "bound";
    c.generated_by = "convcheck_vectors: CC backward reference (the chain rule through seed 004's four blocks, f64, "
                     "one rounding to f32) and its rigorous bound";

    // the runner's rule (docs/cc.md): a real-scale window an f32 backend may decide either way is no test
    if (const std::string why = runner::ambiguous_real_scale_window(d, accuracy::Mode::bound); !why.empty())
        throw std::runtime_error("convcheck_vectors: " + c.name + ": " + why);

    std::mt19937_64 rng(c.seed);
    const CcInputs in = cc_inputs(d, rng);  // the bias is drawn (the forward's stream) and not stored
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::vector<float> diff_dst(static_cast<std::size_t>(d.dst_elements()));
    for (float& v : diff_dst) v = unit(rng);

    namespace ref = reference::cc;
    const float* theta = in.theta.empty() ? nullptr : in.theta.data();
    const ref::CcBackward r = ref::cc_backward(d, in.src.data(), theta, diff_dst.data());
    if (!(r.leaky_relu_margin > 1.0))
        throw std::runtime_error("convcheck_vectors: " + c.name + ": a LeakyReLU pre-activation is undecided (margin " +
                                 std::to_string(r.leaky_relu_margin) + "): the theta bound does not hold; choose another seed");
    const ref::ContinuousKernel kernel = ref::ContinuousKernel::for_buffer(d, theta);
    const std::vector<double> dd64(diff_dst.begin(), diff_dst.end());
    const ref::CcBackwardBound bound = ref::cc_backward_error_bound(d, kernel, dd64, r);
    const std::vector<double> zeros(static_cast<std::size_t>(d.src_elements()), 0.0);
    const ref::Neighbours nb = ref::extract_neighbours(d, ref::projected_grid(d), zeros);

    const std::vector<std::int64_t> dst_dims = d.dst_dims(), src_dims = d.src_dims();
    c.arrays.push_back(write_array(out_dir, c.name, "src", "f32", npy::from_bytes(npy::ElementType::f32, in.src.data(), src_dims)));
    if (theta)
        c.arrays.push_back(write_array(out_dir, c.name, "theta", "f32",
                                       npy::from_bytes(npy::ElementType::f32, theta, {d.theta_elements()})));
    c.arrays.push_back(write_array(out_dir, c.name, "diff_dst", "f32",
                                   npy::from_bytes(npy::ElementType::f32, diff_dst.data(), dst_dims)));
    c.arrays.push_back(write_array(out_dir, c.name, "distances", "f64",
                                   npy::from_f64(nb.distances, {d.neighbours(), 2, d.output_size[0], d.output_size[1]})));
    write_gradient(c, out_dir, "diff_src", r.diff_src, r.diff_src_magnitude, r.diff_src_terms, bound.diff_src, src_dims);
    if (theta)
        write_gradient(c, out_dir, "diff_theta", r.diff_theta, r.diff_theta_magnitude,
                       std::vector<std::int64_t>(r.diff_theta.size(), r.diff_theta_roundings), bound.diff_theta,
                       {d.theta_elements()});
    if (d.has_bias)
        write_gradient(c, out_dir, "diff_bias", r.diff_bias, r.diff_bias_magnitude,
                       std::vector<std::int64_t>(r.diff_bias.size(), r.diff_bias_terms), bound.diff_bias, {d.out_channels});
    return c;
}

}  // namespace convcheck::vectors
