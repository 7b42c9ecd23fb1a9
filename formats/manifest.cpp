#include "convcheck/formats/manifest.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/formats/sha256.hpp"

namespace convcheck::vectors {

namespace {

using nlohmann::json;

constexpr std::string_view kFormat = "convcheck-vectors";
constexpr int kFormatVersion = 1;
constexpr const char* kRoles[] = {"src", "weights", "bias", "dst", "dst_f64", "magnitude", "terms", "theta", "grid",
                                  // the backward passes: inputs and each gradient with its f64 truth and bound terms
                                  "diff_dst", "diff_src", "diff_src_f64", "diff_src_magnitude", "diff_src_terms",
                                  "diff_weights", "diff_weights_f64", "diff_weights_magnitude", "diff_weights_terms",
                                  "diff_bias", "diff_bias_f64", "diff_bias_magnitude", "diff_bias_terms",
                                  // the CC backward pass (dir=bwd): block 2's distances, the Internal-Net's
                                  // gradient, and each gradient's rigorous reference bound
                                  "distances", "diff_theta", "diff_theta_f64", "diff_theta_magnitude", "diff_theta_terms",
                                  "diff_src_bound", "diff_theta_bound", "diff_bias_bound"};

constexpr const char* kDtypes[] = {"f32", "f16", "bf16", "f64", "i64"};
constexpr const char* kFills[] = {"exact", "random", "iota", "values", "external"};
constexpr const char* kComparisons[] = {"bitwise", "bound"};

[[noreturn]] void fail(const std::string& where, const std::string& field, const std::string& rule) {
    throw ManifestError("manifest: " + where + ": " + field + ": " + rule);
}

// The arrays a case of this descriptor must have: forward and transposed src, weights, dst; CC src and dst
// (its kernel is theta or analytic), CC backward (dir=bwd) src, diff_dst, diff_src; backward data diff_dst,
// weights, diff_src; backward weights src, diff_dst, diff_weights.
std::vector<const char*> required_roles(const std::string& where, const std::string& descriptor) {
    if (descriptor.rfind("cc:", 0) == 0) {
        try {
            if (split_cc_pass(descriptor).backward) return {"src", "diff_dst", "diff_src"};
        } catch (const ConvError& e) {
            fail(where, "descriptor", e.what());
        }
        return {"src", "dst"};
    }
    if (descriptor.find("dir=bwd_d") != std::string::npos) return {"diff_dst", "weights", "diff_src"};
    if (descriptor.find("dir=bwd_w") != std::string::npos) return {"src", "diff_dst", "diff_weights"};
    return {"src", "weights", "dst"};
}

bool one_of(std::string_view value, std::initializer_list<const char*> options) {
    for (const char* o : options)
        if (value == o) return true;
    return false;
}
template <std::size_t N>
bool one_of(std::string_view value, const char* const (&options)[N]) {
    for (const char* o : options)
        if (value == o) return true;
    return false;
}

const json& member(const json& object, const std::string& where, const char* key) {
    auto it = object.find(key);
    if (it == object.end()) fail(where, key, "the key is required");
    return *it;
}

std::string string_member(const json& object, const std::string& where, const char* key) {
    const json& v = member(object, where, key);
    if (!v.is_string()) fail(where, key, "must be a string");
    return v.get<std::string>();
}

std::string optional_string(const json& object, const std::string& where, const char* key) {
    auto it = object.find(key);
    if (it == object.end()) return "";
    if (!it->is_string()) fail(where, key, "must be a string");
    return it->get<std::string>();
}

// Names become file names and test names: keep them plain.
bool plain_name(std::string_view name) {
    if (name.empty() || name.size() > 200 || name == "." || name == "..") return false;
    for (char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
            return false;
    return name.find("..") == std::string_view::npos;
}

bool hex64(std::string_view s) {
    if (s.size() != 64) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

ArrayEntry parse_array(const std::string& where, const std::string& role, const json& j) {
    if (!j.is_object()) fail(where, "arrays." + role, "must be an object");
    if (!one_of(role, kRoles))
        fail(where, "arrays." + role, "unknown role (known: src weights bias dst dst_f64 magnitude terms theta grid diff_dst diff_src* diff_weights* diff_bias* distances diff_theta*)");
    ArrayEntry a;
    a.role = role;
    const std::string at = where + ": arrays." + role;
    a.file = string_member(j, at, "file");
    if (!plain_name(a.file)) fail(at, "file = " + a.file, "must be a plain file name ([A-Za-z0-9_.-], no '..')");
    a.dtype = string_member(j, at, "dtype");
    if (!one_of(a.dtype, kDtypes)) fail(at, "dtype = " + a.dtype, "must be f32, f16, bf16, f64 or i64");
    const json& shape = member(j, at, "shape");
    if (!shape.is_array() || shape.size() > 8) fail(at, "shape", "must be an array of at most 8 integers");
    for (const auto& d : shape) {
        if (!d.is_number_integer() || d.get<std::int64_t>() < 0) fail(at, "shape", "dimensions must be integers >= 0");
        a.shape.push_back(d.get<std::int64_t>());
    }
    a.sha256 = string_member(j, at, "sha256");
    if (!hex64(a.sha256)) fail(at, "sha256", "must be 64 lower-case hex digits");
    return a;
}

VectorCase parse_case(const json& j, std::size_t index) {
    std::string where = "cases[" + std::to_string(index) + "]";
    if (!j.is_object()) fail(where, "case", "must be an object");
    VectorCase c;
    c.name = string_member(j, where, "name");
    if (!plain_name(c.name)) fail(where, "name", "must be a plain name ([A-Za-z0-9_.-])");
    where += " (" + c.name + ")";
    c.descriptor = string_member(j, where, "descriptor");
    c.dtype = string_member(j, where, "dtype");
    if (!one_of(c.dtype, {"f32", "f16", "bf16"})) fail(where, "dtype = " + c.dtype, "must be f32, f16 or bf16");
    const json& seed = member(j, where, "seed");
    if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<std::int64_t>() >= 0))
        fail(where, "seed", "must be an integer >= 0");
    c.seed = seed.get<std::uint64_t>();
    c.fill = string_member(j, where, "fill");
    if (!one_of(c.fill, kFills)) fail(where, "fill = " + c.fill, "must be exact, random, iota, values or external");
    c.comparison = string_member(j, where, "comparison");
    if (!one_of(c.comparison, kComparisons)) fail(where, "comparison = " + c.comparison, "must be bitwise or bound");
    c.source = optional_string(j, where, "source");
    if (auto it = j.find("dialect"); it != j.end() && !it->is_null()) {
        if (!it->is_object()) fail(where, "dialect", "must be an object");
        c.dialect_json = it->dump();
    }
    if (auto it = j.find("expect_error"); it != j.end() && !it->is_null()) {
        if (!it->is_object()) fail(where, "expect_error", "must be an object");
        c.expect_error_attribute = string_member(*it, where + ": expect_error", "attribute");
    }
    const json& provenance = member(j, where, "provenance");
    if (!provenance.is_object()) fail(where, "provenance", "must be an object");
    c.generated_by = string_member(provenance, where + ": provenance", "generated_by");
    if (auto it = provenance.find("verified_by"); it != provenance.end()) {
        if (!it->is_array()) fail(where, "provenance.verified_by", "must be an array of strings");
        for (const auto& v : *it) {
            if (!v.is_string()) fail(where, "provenance.verified_by", "must be an array of strings");
            c.verified_by.push_back(v.get<std::string>());
        }
    }
    const json& arrays = member(j, where, "arrays");
    if (!arrays.is_object()) fail(where, "arrays", "must be an object keyed by role");
    for (const auto& [role, entry] : arrays.items()) c.arrays.push_back(parse_array(where, role, entry));
    const bool error_case = c.expect_error_attribute.has_value();
    for (const char* required : required_roles(where, c.descriptor))
        if (!error_case && !c.array(required)) fail(where, std::string("arrays.") + required, "the array is required");
    if (error_case && !c.arrays.empty()) fail(where, "arrays", "an expect_error case has no arrays");
    return c;
}

std::string read_text(const std::filesystem::path& path, std::int64_t limit) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw ManifestError("manifest: " + path.string() + ": cannot be read: " + ec.message());
    if (size > static_cast<std::uintmax_t>(limit))
        throw ManifestError("manifest: " + path.string() + ": " + std::to_string(size) + " bytes exceeds the limit of " +
                            std::to_string(limit));
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

const ArrayEntry* VectorCase::array(std::string_view role) const {
    for (const auto& a : arrays)
        if (a.role == role) return &a;
    return nullptr;
}

VectorSet parse_manifest(std::string_view text, const std::filesystem::path& dir) {
    if (static_cast<std::int64_t>(text.size()) > kMaxManifestBytes)
        throw ManifestError("manifest: " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                            std::to_string(kMaxManifestBytes));
    json j;
    try {
        j = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
        throw ManifestError(std::string("manifest: not valid JSON: ") + e.what());
    }
    try {
        if (!j.is_object()) fail("top level", "manifest", "must be a JSON object");
        if (string_member(j, "top level", "format") != kFormat)
            fail("top level", "format", "must be \"convcheck-vectors\"");
        const json& version = member(j, "top level", "format_version");
        if (!version.is_number_integer() || version.get<std::int64_t>() != kFormatVersion)
            fail("top level", "format_version", "must be 1");
        VectorSet set;
        set.dir = dir;
        set.name = string_member(j, "top level", "set");
        if (!plain_name(set.name)) fail("top level", "set", "must be a plain name");
        set.description = optional_string(j, "top level", "description");
        const json& cases = member(j, "top level", "cases");
        if (!cases.is_array()) fail("top level", "cases", "must be an array");
        std::set<std::string> names, files;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            set.cases.push_back(parse_case(cases[i], i));
            const auto& c = set.cases.back();
            if (!names.insert(c.name).second) fail("cases[" + std::to_string(i) + "]", "name = " + c.name, "appears twice");
            for (const auto& a : c.arrays)
                if (!files.insert(a.file).second) fail(c.name, "file = " + a.file, "is used by two arrays");
        }
        return set;
    } catch (const json::exception& e) {
        throw ManifestError(std::string("manifest: ") + e.what());
    }
}

VectorSet load_vector_set(const std::filesystem::path& dir) {
    return parse_manifest(read_text(dir / "manifest.json", kMaxManifestBytes), dir);
}

npy::ElementType storage_type(std::string_view dtype) {
    if (dtype == "f32") return npy::ElementType::f32;
    if (dtype == "f16") return npy::ElementType::f16;
    if (dtype == "bf16") return npy::ElementType::u16;
    if (dtype == "f64") return npy::ElementType::f64;
    if (dtype == "i64") return npy::ElementType::i64;
    throw ManifestError("manifest: dtype = " + std::string(dtype) + ": must be f32, f16, bf16, f64 or i64");
}

npy::Array load_array(const VectorSet& set, const VectorCase& c, const ArrayEntry& entry) {
    const auto path = set.dir / entry.file;
    const std::string where = "manifest: " + set.name + "/" + c.name + ": arrays." + entry.role + " (" + entry.file + ")";
    npy::Limits limits;
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw ManifestError(where + ": cannot be read: " + ec.message());
    if (size > static_cast<std::uintmax_t>(limits.max_data_bytes))
        throw ManifestError(where + ": " + std::to_string(size) + " bytes exceeds the limit");
    std::ifstream in(path, std::ios::binary);
    std::vector<std::byte> bytes(size);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
    if (!in) throw ManifestError(where + ": short read");
    const std::string digest = sha256_hex(bytes);
    if (digest != entry.sha256)
        throw ManifestError(where + ": sha256 = " + digest + ": does not match the manifest's " + entry.sha256);
    npy::Array array = npy::parse(bytes, limits);
    if (array.type != storage_type(entry.dtype))
        throw ManifestError(where + ": descr = " + std::string(npy::descr(array.type)) + ": dtype " + entry.dtype +
                            " is stored as " + std::string(npy::descr(storage_type(entry.dtype))));
    if (array.shape != entry.shape) throw ManifestError(where + ": shape: differs from the manifest's");
    return array;
}

std::string to_json(const VectorSet& set) {
    json j;
    j["format"] = kFormat;
    j["format_version"] = kFormatVersion;
    j["set"] = set.name;
    j["description"] = set.description;
    json cases = json::array();
    for (const auto& c : set.cases) {
        json jc;
        jc["name"] = c.name;
        jc["descriptor"] = c.descriptor;
        jc["dtype"] = c.dtype;
        jc["seed"] = c.seed;
        jc["fill"] = c.fill;
        jc["comparison"] = c.comparison;
        jc["source"] = c.source;
        if (!c.dialect_json.empty()) jc["dialect"] = json::parse(c.dialect_json);
        if (c.expect_error_attribute) jc["expect_error"] = {{"attribute", *c.expect_error_attribute}};
        jc["provenance"] = {{"generated_by", c.generated_by}, {"verified_by", c.verified_by}};
        json arrays = json::object();
        for (const auto& a : c.arrays)
            arrays[a.role] = {{"file", a.file}, {"dtype", a.dtype}, {"shape", a.shape}, {"sha256", a.sha256}};
        jc["arrays"] = arrays;
        cases.push_back(jc);
    }
    j["cases"] = cases;
    return j.dump(2) + "\n";
}

}  // namespace convcheck::vectors
