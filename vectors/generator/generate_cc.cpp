#include "generate_cc.hpp"

#include <random>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/chain.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"

namespace convcheck::vectors {

CcInputs cc_inputs(const CcDescriptor& d, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f), half(-0.5f, 0.5f);
    CcInputs in{std::vector<float>(d.src_elements()), std::vector<float>(d.theta_elements()),
                std::vector<float>(d.has_bias ? d.out_channels : 0)};
    for (auto& v : in.src) v = unit(rng);
    for (auto& v : in.theta) v = half(rng);
    for (auto& v : in.bias) v = unit(rng);
    return in;
}

VectorCase generate_cc_case(const nlohmann::json& spec, const std::filesystem::path& out_dir, VectorCase c) {
    (void)spec;
    const CcDescriptor d = parse_cc_descriptor(c.descriptor);
    c.descriptor = to_string(d);
    c.dtype = "f32";
    c.fill = "random";
    c.comparison = "bound";
    c.generated_by = "convcheck_vectors: CC reference (seed 004's four blocks, f64, one rounding to f32)";

    std::mt19937_64 rng(c.seed);
    const auto [src, theta, bias] = cc_inputs(d, rng);
    const auto result = reference::cc::continuous_convolution(d, src.data(), theta.empty() ? nullptr : theta.data(),
                                                              bias.empty() ? nullptr : bias.data());
    std::vector<float> dst(result.dst.size());
    for (std::size_t i = 0; i < dst.size(); ++i) dst[i] = static_cast<float>(result.dst[i]);  // one rounding (RNE)
    const std::vector<double> grid = reference::cc::projected_grid(d).tensor();

    const auto dst_dims = d.dst_dims();
    c.arrays.push_back(write_array(out_dir, c.name, "src", "f32", npy::from_bytes(npy::ElementType::f32, src.data(), d.src_dims())));
    if (!theta.empty())
        c.arrays.push_back(write_array(out_dir, c.name, "theta", "f32",
                                       npy::from_bytes(npy::ElementType::f32, theta.data(), {d.theta_elements()})));
    if (!bias.empty())
        c.arrays.push_back(write_array(out_dir, c.name, "bias", "f32",
                                       npy::from_bytes(npy::ElementType::f32, bias.data(), {d.out_channels})));
    c.arrays.push_back(write_array(out_dir, c.name, "grid", "f64",
                                   npy::from_f64(grid, {2, d.output_size[0], d.output_size[1]})));
    c.arrays.push_back(write_array(out_dir, c.name, "dst", "f32", npy::from_bytes(npy::ElementType::f32, dst.data(), dst_dims)));
    c.arrays.push_back(write_array(out_dir, c.name, "dst_f64", "f64", npy::from_f64(result.dst, dst_dims)));
    c.arrays.push_back(write_array(out_dir, c.name, "magnitude", "f64", npy::from_f64(result.magnitude, dst_dims)));
    c.arrays.push_back(write_array(out_dir, c.name, "terms", "i64", npy::from_i64(result.terms, dst_dims)));
    return c;
}

namespace {

Rational parse_rational(const std::string& text) {
    const auto slash = text.find('/');
    if (slash == std::string::npos) return Rational(std::stoll(text));
    return Rational(std::stoll(text.substr(0, slash)), std::stoll(text.substr(slash + 1)));
}

reference::cc::Scale2 parse_scale2(const nlohmann::json& pair) {
    return {parse_rational(pair.at(0).get<std::string>()), parse_rational(pair.at(1).get<std::string>())};
}

}  // namespace

std::vector<VectorCase> generate_cc_chain(const nlohmann::json& spec, const std::filesystem::path& out_dir,
                                          const VectorCase& base) {
    const auto& chain = spec.at("chain");
    const reference::cc::Shape2 input{chain.at("input").at(0).get<std::int64_t>(), chain.at("input").at(1).get<std::int64_t>()};
    std::vector<reference::cc::Scale2> scales;
    for (const auto& s : chain.at("scales")) scales.push_back(parse_scale2(s));
    const reference::cc::Scale2 target = parse_scale2(chain.at("target"));
    const CcDescriptor base_descriptor = parse_cc_descriptor(spec.at("base").get<std::string>());
    std::vector<VectorCase> cases;
    for (std::size_t j = 0; j < scales.size(); ++j) {
        VectorCase c = base;
        c.name = base.name + "_layer" + std::to_string(j + 1);
        c.seed = base.seed + j;
        c.descriptor = to_string(reference::cc::chain_layer(base_descriptor, input, scales, target, j));
        c.source = base.source + " (layer " + std::to_string(j + 1) + " of " + std::to_string(scales.size()) + ")";
        cases.push_back(generate_cc_case(spec, out_dir, c));
    }
    return cases;
}

}  // namespace convcheck::vectors
