#include "generate_gradients.hpp"

#include <cmath>
#include <random>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/transposed.hpp"
#include "generate_cc.hpp"
#include "convcheck/formats/gradient_case_data.hpp"

namespace convcheck::vectors {

// How a dtype is stored in .npy (bf16 as uint16 bit patterns): the manifest's own rule.
static npy::ElementType element_type_of(DataType t) { return storage_type(to_string(t)); }

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
    throw std::runtime_error("convcheck_vectors: " + where + ": " + what);
}

// One input tensor of `n` canonical values: "iota" counts 1, 2, ..., 16, 1, ... (data) or cycles
// -1, 0, 1 (weights); "random" draws uniform [-1, 1] rounded to the dtype (one stream per case).
std::vector<double> fill(const std::string& how, bool weights_like, std::size_t n, DataType dt, std::mt19937_64& rng,
                         const std::string& where) {
    std::vector<double> v(n);
    if (how == "iota") {
        for (std::size_t i = 0; i < n; ++i) v[i] = weights_like ? double(int(i % 3) - 1) : double(i % 16 + 1);
        return v;
    }
    if (how != "random") fail(where, "fill = " + how + ": a gradient or transposed case takes iota or random");
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (double& x : v) x = round_to(dt, u(rng));
    return v;
}

// iota data are exact only if every partial sum is an integer below 2^p of the output type.
void require_exact(const VectorCase& c, DataType dt, const std::vector<double>& magnitude, const char* what) {
    if (c.fill != "iota") return;
    const double limit = std::ldexp(1.0, accuracy::significand_bits(dt));
    for (std::size_t i = 0; i < magnitude.size(); ++i)
        if (magnitude[i] > limit)
            fail(c.name, std::string(what) + ": sum|terms| = " + std::to_string(magnitude[i]) + " at element " +
                             std::to_string(i) + " exceeds 2^p of " + c.dtype + ": use a smaller case");
}

// A canonical-order double tensor in a dtype buffer of the given layout, through `store` (the
// reference's own edge functions), as an npy array of `dims`.
template <class Store>
npy::Array stored(DataType dt, std::int64_t elements, const std::vector<std::int64_t>& dims, Store store) {
    std::vector<std::byte> bytes(static_cast<std::size_t>(elements * size_of(dt)));
    store(bytes.data());
    return npy::from_bytes(element_type_of(dt), bytes.data(), dims);
}

// The gradient's arrays: <role> in the dtype and layout, <role>_f64 / _magnitude / _terms canonical.
void write_gradient(VectorCase& c, const std::filesystem::path& out_dir, const std::string& role, const npy::Array& rounded,
                    const reference::GradientResult& g, const std::vector<std::int64_t>& canonical_dims) {
    c.arrays.push_back(write_array(out_dir, c.name, role, c.dtype, rounded));
    c.arrays.push_back(write_array(out_dir, c.name, role + "_f64", "f64", npy::from_f64(g.values, canonical_dims)));
    c.arrays.push_back(write_array(out_dir, c.name, role + "_magnitude", "f64", npy::from_f64(g.magnitude, canonical_dims)));
    c.arrays.push_back(write_array(out_dir, c.name, role + "_terms", "i64", npy::from_i64(g.terms, canonical_dims)));
}


}  // namespace

VectorCase generate_backward_case(const std::filesystem::path& out_dir, VectorCase c) {
    const ConvDescriptor d = parse_descriptor(c.descriptor);
    c.descriptor = to_string(d);
    c.dtype = std::string(to_string(d.dtype));
    c.comparison = c.fill == "random" ? "bound" : "bitwise";
    c.generated_by = "convcheck_vectors: reference backward reading 1 (sums over the forward's index set, f64, one "
                     "rounding to dtype)";
    std::mt19937_64 rng(c.seed);
    const auto type = element_type_of(d.dtype);
    // diff_dst is stored like dst: the descriptor's dtype and data format (backward.hpp)
    const auto diff_dst = fill(c.fill, false, static_cast<std::size_t>(d.dst_elements()), d.dtype, rng, c.name);
    std::vector<std::byte> dd_bytes(static_cast<std::size_t>(d.dst_elements() * size_of(d.dtype)));
    reference::round_dst_to_output(d, diff_dst, dd_bytes.data());
    c.arrays.push_back(write_array(out_dir, c.name, "diff_dst", c.dtype, npy::from_bytes(type, dd_bytes.data(), d.dst_dims())));

    if (d.pass == Pass::backward_data) {
        const auto weights = fill(c.fill, true, static_cast<std::size_t>(d.weights_elements()), d.dtype, rng, c.name);
        const npy::Array w = stored(d.dtype, d.weights_elements(), d.weights_dims(),
                                    [&](void* p) { reference::oix_to_weights(d, weights, p); });
        c.arrays.push_back(write_array(out_dir, c.name, "weights", c.dtype, w));
        const auto g = reference::backward_data(d, dd_bytes.data(), w.data.data());
        require_exact(c, d.dtype, g.magnitude, "diff_src");
        write_gradient(c, out_dir, "diff_src",
                       stored(d.dtype, d.src_elements(), d.src_dims(), [&](void* p) { reference::ncx_to_src(d, g.values, p); }),
                       g, ncx_dims(d.batch, d.in_channels, d.input_size, d.rank));
        return c;
    }
    if (d.pass != Pass::backward_weights) fail(c.name, "not a backward descriptor (dir=bwd_d or dir=bwd_w)");
    const auto src = fill(c.fill, false, static_cast<std::size_t>(d.src_elements()), d.dtype, rng, c.name);
    const npy::Array s = stored(d.dtype, d.src_elements(), d.src_dims(), [&](void* p) { reference::ncx_to_src(d, src, p); });
    c.arrays.push_back(write_array(out_dir, c.name, "src", c.dtype, s));
    reference::GradientResult bias;
    const auto g = reference::backward_weights(d, s.data.data(), dd_bytes.data(), &bias);
    require_exact(c, d.dtype, g.magnitude, "diff_weights");
    write_gradient(c, out_dir, "diff_weights",
                   stored(d.dtype, d.weights_elements(), d.weights_dims(), [&](void* p) { reference::oix_to_weights(d, g.values, p); }),
                   g, ncx_dims(d.out_channels, d.in_channels_per_group(), d.kernel_size, d.rank));
    if (d.has_bias) {
        require_exact(c, d.dtype, bias.magnitude, "diff_bias");
        write_gradient(c, out_dir, "diff_bias",
                       stored(d.dtype, d.out_channels, {d.out_channels}, [&](void* p) { reference::round_bias_to_output(d, bias.values, p); }),
                       bias, {d.out_channels});
    }
    return c;
}

VectorCase generate_transposed_case(const std::filesystem::path& out_dir, VectorCase c) {
    const TransposedDescriptor t = parse_transposed_descriptor(c.descriptor);
    c.descriptor = to_string(t);
    c.dtype = std::string(to_string(t.dtype));
    c.comparison = c.fill == "random" ? "bound" : "bitwise";
    c.generated_by = "convcheck_vectors: reference transposed convolution (the backward data of its forward, f64, one "
                     "rounding to dtype)";
    std::mt19937_64 rng(c.seed);
    const ConvDescriptor f = t.forward();
    const auto src = fill(c.fill, false, static_cast<std::size_t>(t.src_elements()), t.dtype, rng, c.name);
    const auto weights = fill(c.fill, true, static_cast<std::size_t>(t.weights_elements()), t.dtype, rng, c.name);
    const std::size_t bias_n = t.has_bias ? static_cast<std::size_t>(t.out_channels) : 0;
    std::vector<double> bias = fill(c.fill, false, bias_n, t.dtype, rng, c.name);  // iota: 1, 2, ...
    // src is the forward's dst (data format), weights the forward's, bias out_channels values
    const npy::Array s = stored(t.dtype, t.src_elements(), t.src_dims(), [&](void* p) { reference::round_dst_to_output(f, src, p); });
    const npy::Array w = stored(t.dtype, t.weights_elements(), f.weights_dims(), [&](void* p) { reference::oix_to_weights(f, weights, p); });
    std::vector<std::byte> b(bias.size() * static_cast<std::size_t>(size_of(t.dtype)));
    for (std::size_t i = 0; i < bias.size(); ++i) store_from_double(b.data(), t.dtype, std::int64_t(i), bias[i]);
    const auto r = reference::transposed_convolution(t, s.data.data(), w.data.data(), t.has_bias ? b.data() : nullptr);
    require_exact(c, t.dtype, r.magnitude, "dst");
    c.arrays.push_back(write_array(out_dir, c.name, "src", c.dtype, s));
    c.arrays.push_back(write_array(out_dir, c.name, "weights", c.dtype, w));
    if (t.has_bias)
        c.arrays.push_back(write_array(out_dir, c.name, "bias", c.dtype, npy::from_bytes(element_type_of(t.dtype), b.data(), {t.out_channels})));
    SpatialDims out{};
    for (int a = 0; a < t.rank; ++a) out[a] = t.output_size(a);
    const auto dst_ncx = ncx_dims(t.batch, t.out_channels, out, t.rank);
    c.arrays.push_back(write_array(out_dir, c.name, "dst", c.dtype,
                                   stored(t.dtype, t.dst_elements(), t.dst_dims(),
                                          [&](void* p) { reference::round_transposed_to_output(t, r.dst, p); })));
    c.arrays.push_back(write_array(out_dir, c.name, "dst_f64", "f64", npy::from_f64(r.dst, dst_ncx)));
    c.arrays.push_back(write_array(out_dir, c.name, "magnitude", "f64", npy::from_f64(r.magnitude, dst_ncx)));
    c.arrays.push_back(write_array(out_dir, c.name, "terms", "i64", npy::from_i64(r.terms, dst_ncx)));
    return c;
}

}  // namespace convcheck::vectors
