#include "generate.hpp"
#include "generate_cc.hpp"
#include "generate_cc_backward.hpp"
#include "generate_gradients.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/formats/sha256.hpp"

namespace convcheck::vectors {

// How a dtype is stored in .npy (bf16 as uint16 bit patterns): the manifest's own rule.
static npy::ElementType element_type_of(DataType t) { return storage_type(to_string(t)); }

namespace {

using nlohmann::json;

constexpr const char* kGeneratedBy =
    "convcheck_vectors: reference reading 1 (oneDNN Graph summation, f64, one rounding to dtype)";

[[noreturn]] void fail(const std::string& where, const std::string& what) {
    throw std::runtime_error("convcheck_vectors: " + where + ": " + what);
}

// The input data of a case, canonical order (src NCX, weights OIX, bias [O]).
struct Inputs {
    std::vector<double> src, weights, bias;
};

// "iota": values a reader can follow by hand. src counts 1, 2, ..., 16, 1, 2, ... in NCX order;
// weights cycle -1, 0, 1 in OIX order (a 3-tap row reads as a gradient); bias[o] = o + 1.
Inputs iota_fill(const ConvDescriptor& d) {
    Inputs in;
    in.src.resize(d.src_elements());
    for (std::size_t i = 0; i < in.src.size(); ++i) in.src[i] = double(i % 16 + 1);
    in.weights.resize(d.weights_elements());
    for (std::size_t i = 0; i < in.weights.size(); ++i) in.weights[i] = double(int(i % 3) - 1);
    in.bias.resize(d.bias_elements());
    for (std::size_t i = 0; i < in.bias.size(); ++i) in.bias[i] = double(i + 1);
    return in;
}

std::vector<double> explicit_values(const json& spec, const char* key, std::size_t count, const std::string& where) {
    auto it = spec.find(key);
    if (count == 0 && it == spec.end()) return {};
    if (it == spec.end() || !it->is_array() || it->size() != count)
        fail(where, std::string("\"") + key + "\" must list " + std::to_string(count) + " numbers (canonical order)");
    std::vector<double> v;
    for (const auto& x : *it) {
        if (!x.is_number()) fail(where, std::string("\"") + key + "\" must hold numbers");
        v.push_back(x.get<double>());
    }
    return v;
}

Inputs make_inputs(const ConvDescriptor& d, const std::string& fill, std::uint64_t seed, const json& spec,
                   const std::string& where) {
    if (fill == "iota") return iota_fill(d);
    if (fill == "exact") {
        accuracy::Contract contract{d.dtype, DataType::f32};
        auto f = accuracy::make_exact_fill(d, contract, seed);
        return {f.src, f.weights, f.bias};
    }
    if (fill == "random") {
        auto f = accuracy::make_random_fill(d, seed);
        return {f.src, f.weights, f.bias};
    }
    if (fill == "values") {
        return {explicit_values(spec, "src", d.src_elements(), where),
                explicit_values(spec, "weights", d.weights_elements(), where),
                explicit_values(spec, "bias", d.bias_elements(), where)};
    }
    fail(where, "fill = " + fill + ": must be iota, exact, random or values");
}


}  // namespace

ArrayEntry write_array(const std::filesystem::path& dir, const std::string& case_name, const std::string& role,
                       const std::string& dtype, const npy::Array& array) {
    ArrayEntry e;
    e.role = role;
    e.file = case_name + "." + role + ".npy";
    e.dtype = dtype;
    e.shape = array.shape;
    const auto bytes = npy::serialize(array);
    e.sha256 = sha256_hex(bytes);
    std::ofstream out(dir / e.file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) fail(case_name, "cannot write " + (dir / e.file).string());
    return e;
}

namespace {

std::string string_or(const json& j, const char* key, const std::string& fallback) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

VectorCase generate_case(const json& spec, const std::filesystem::path& out_dir) {
    VectorCase c;
    c.name = string_or(spec, "name", "");
    const std::string where = c.name.empty() ? "(unnamed case)" : c.name;
    c.descriptor = string_or(spec, "descriptor", "");
    c.fill = string_or(spec, "fill", "exact");
    c.source = string_or(spec, "source", "");
    c.seed = spec.contains("seed") ? spec["seed"].get<std::uint64_t>() : 0;
    c.generated_by = kGeneratedBy;
    if (auto it = spec.find("dialect"); it != spec.end() && it->is_object()) c.dialect_json = it->dump();

    // A case given by a framework's attributes: the dialect layer turns them into the canonical
    // descriptor, or into that framework's refusal (recorded as an expect_error case).
    if (c.descriptor.empty()) {
        auto it = spec.find("dialect");
        if (it == spec.end() || !it->contains("attributes") || !(*it)["attributes"].is_string())
            fail(where, "needs a descriptor or dialect.attributes (a string)");
        const std::string framework = it->value("framework", "");
        const auto* dialect = reference::dialects::find_dialect(framework);
        if (!dialect) fail(where, "unknown dialect framework '" + framework + "'");
        const auto result = dialect->read(reference::dialects::parse_attributes((*it)["attributes"].get<std::string>()));
        const bool expect_refusal = spec.value("expect_dialect_error", false);
        if (result.error) {
            if (!expect_refusal)
                fail(where, framework + " refuses the attributes: " + result.error->attribute + " = " +
                                result.error->value + ": " + result.error->message);
            c.expect_error_attribute = result.error->attribute;
            c.fill = "values";
            c.comparison = "bitwise";
            c.dtype = "f32";
            c.source += " [" + framework + ": " + result.error->message + "]";
            return c;
        }
        if (expect_refusal) fail(where, framework + " accepts the attributes, the spec expects a refusal");
        if (!result.ok()) fail(where, framework + " gives an empty output: not a storable vector");
        c.descriptor = to_string(result.descriptor);
    }

    if (c.descriptor.rfind("cc:", 0) == 0)
        return split_cc_pass(c.descriptor).backward ? generate_cc_backward_case(out_dir, c) : generate_cc_case(spec, out_dir, c);
    if (c.descriptor.rfind("deconv:", 0) == 0) return generate_transposed_case(out_dir, c);
    if (c.descriptor.find("dir=bwd_") != std::string::npos && !spec.contains("expect_error"))
        return generate_backward_case(out_dir, c);

    if (auto it = spec.find("expect_error"); it != spec.end()) {
        // The descriptor must be refused, naming this attribute.
        const std::string attribute = it->get<std::string>();
        try {
            parse_descriptor(c.descriptor);
        } catch (const ConvError& e) {
            if (e.attribute() != attribute)
                fail(where, "refused naming '" + e.attribute() + "', the spec expects '" + attribute + "'");
            c.expect_error_attribute = attribute;
            c.fill = "values";
            c.comparison = "bitwise";
            DataType dt = DataType::f32;
            const auto pos = c.descriptor.find("dt=");
            if (pos != std::string::npos) parse_data_type(c.descriptor.substr(pos + 3, c.descriptor.find(',', pos) - pos - 3), &dt);
            c.dtype = std::string(to_string(dt));
            return c;
        }
        fail(where, "the descriptor is accepted but the spec expects an error naming " + attribute);
    }

    const ConvDescriptor d = parse_descriptor(c.descriptor);
    c.descriptor = to_string(d);  // canonical form
    c.dtype = std::string(to_string(d.dtype));
    // Exact fills and hand-made values are exact in any accumulation order: a backend must match bitwise.
    c.comparison = c.fill == "random" ? "bound" : "bitwise";
    const Inputs in = make_inputs(d, c.fill, c.seed, spec, where);
    auto check_representable = [&](const std::vector<double>& v, const char* role) {
        for (std::size_t i = 0; i < v.size(); ++i)
            if (round_to(d.dtype, v[i]) != v[i] && !std::isnan(v[i]))
                fail(where, std::string(role) + "[" + std::to_string(i) + "] = " + std::to_string(v[i]) +
                                " is not representable in " + c.dtype);
    };
    check_representable(in.src, "src");
    check_representable(in.weights, "weights");
    check_representable(in.bias, "bias");

    // Buffers in the descriptor's dtype and formats, exactly what a backend receives.
    const int bytes = size_of(d.dtype);
    std::vector<std::byte> src(d.src_elements() * bytes), weights(d.weights_elements() * bytes),
        bias(d.bias_elements() * bytes), dst(d.dst_elements() * bytes);
    reference::ncx_to_src(d, in.src, src.data());
    reference::oix_to_weights(d, in.weights, weights.data());
    for (std::size_t i = 0; i < in.bias.size(); ++i) store_from_double(bias.data(), d.dtype, std::int64_t(i), in.bias[i]);
    const auto result = reference::convolution(d, src.data(), weights.data(), d.has_bias ? bias.data() : nullptr);
    reference::round_dst_to_output(d, result.dst, dst.data());

    if (c.fill == "exact" || c.fill == "iota") {
        // Exact by construction only if every partial sum is an integer below 2^p of the output type.
        const double limit = std::ldexp(1.0, accuracy::significand_bits(d.dtype));
        for (std::size_t i = 0; i < result.magnitude.size(); ++i)
            if (result.magnitude[i] > limit)
                fail(where, "sum|x*w| = " + std::to_string(result.magnitude[i]) + " at output " + std::to_string(i) +
                                " exceeds 2^p of " + c.dtype + ": the fill is not exact; use a smaller case");
    }

    std::vector<std::int64_t> ncx_dst{d.batch, d.out_channels};
    for (int a = 0; a < d.rank; ++a) ncx_dst.push_back(d.output_size(a));
    const auto type = element_type_of(d.dtype);
    c.arrays.push_back(write_array(out_dir, c.name, "src", c.dtype, npy::from_bytes(type, src.data(), d.src_dims())));
    c.arrays.push_back(
        write_array(out_dir, c.name, "weights", c.dtype, npy::from_bytes(type, weights.data(), d.weights_dims())));
    if (d.has_bias)
        c.arrays.push_back(write_array(out_dir, c.name, "bias", c.dtype, npy::from_bytes(type, bias.data(), {d.out_channels})));
    c.arrays.push_back(write_array(out_dir, c.name, "dst", c.dtype, npy::from_bytes(type, dst.data(), d.dst_dims())));
    c.arrays.push_back(write_array(out_dir, c.name, "dst_f64", "f64", npy::from_f64(result.dst, ncx_dst)));
    c.arrays.push_back(write_array(out_dir, c.name, "magnitude", "f64", npy::from_f64(result.magnitude, ncx_dst)));
    c.arrays.push_back(write_array(out_dir, c.name, "terms", "i64", npy::from_i64(result.terms, ncx_dst)));
    return c;
}

}  // namespace

VectorSet generate_set(const std::filesystem::path& spec_path, const std::filesystem::path& out_dir) {
    std::ifstream in(spec_path);
    if (!in) fail(spec_path.string(), "cannot be opened");
    std::stringstream text;
    text << in.rdbuf();
    json spec;
    try {
        spec = json::parse(text.str());
    } catch (const json::exception& e) {
        fail(spec_path.string(), e.what());
    }
    std::filesystem::create_directories(out_dir);
    for (const auto& entry : std::filesystem::directory_iterator(out_dir))
        if (entry.path().extension() == ".npy") std::filesystem::remove(entry.path());

    VectorSet set;
    set.dir = out_dir;
    set.name = spec.at("set").get<std::string>();
    set.description = string_or(spec, "description", "");
    for (const auto& case_spec : spec.at("cases")) {
        try {
            if (case_spec.contains("chain")) {
                VectorCase base;
                base.name = string_or(case_spec, "name", "");
                base.source = string_or(case_spec, "source", "");
                base.seed = case_spec.value("seed", std::uint64_t{0});
                for (auto& c : generate_cc_chain(case_spec, out_dir, base)) set.cases.push_back(std::move(c));
                continue;
            }
            set.cases.push_back(generate_case(case_spec, out_dir));
        } catch (const ConvError& e) {
            fail(string_or(case_spec, "name", "(unnamed)"), e.what());
        }
    }
    // Round trip through the loader: what we write must be what we read.
    const std::string manifest = to_json(set);
    parse_manifest(manifest, out_dir);
    std::ofstream out(out_dir / "manifest.json", std::ios::trunc);
    out << manifest;
    if (!out) fail(out_dir.string(), "cannot write manifest.json");
    return set;
}

}  // namespace convcheck::vectors
