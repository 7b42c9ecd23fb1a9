// An offline run's manifest (offline_manifest.hpp, docs/offline.md): the claims read as a negotiated plugin's,
// a case's entry with its descriptor in every dialect, and the manifest read back as untrusted input.
#include "convcheck/runner/offline_manifest.hpp"

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/abi/exec_messages.hpp"
#include "convcheck/formats/benchdnn.hpp"
#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::runner {

using nlohmann::json;

PluginInfo offline_info(const json& claims) {
    if (!claims.is_object()) throw std::invalid_argument("claims = " + claims.dump() + ": a JSON object");
    convcheck_plugin_info mine{};
    PluginInfo info;
    convcheck_exec::read_claims(claims, &mine, &info.name, &info.version);
    info.operations = mine.operations;
    info.dtypes = mine.dtypes;
    info.ranks = mine.ranks;
    info.data_formats = mine.data_formats;
    info.filter_formats = mine.filter_formats;
    info.accumulation_dtype = mine.accumulation_dtype;
    info.prop_kinds = mine.prop_kinds;
    info.mixed_dtypes = mine.mixed_dtypes != 0;
    info.strided_tensors = mine.strided_tensors;
    info.requantization = mine.requantization;  // protocol 1.1: the quantized cases' rule and accumulator
    info.integer_accumulator = mine.integer_accumulator;
    info.zero_points_outside_types = convcheck_exec::claims_zero_points_outside_types(claims);
    // what the exec bridge presents: this build's ABI, no post-op claims
    info.abi_major = CONVCHECK_ABI_MAJOR;
    info.abi_minor = CONVCHECK_ABI_MINOR;
    return info;
}

json default_offline_claims() {
    return {{"name", "offline"},
            {"dtypes", {"f32", "f16", "bf16", "f64"}},
            {"ranks", {1, 2, 3}},
            {"data_formats", {"ncx", "nxc"}},
            {"filter_formats", {"oix", "xio", "oxi"}},
            {"accumulation_dtype", "f32"},
            {"passes", {"forward", "backward_data", "backward_weights"}},
            {"mixed_dtypes", true}};
}

namespace {

// The descriptor in every framework dialect that can say it, and the benchdnn problem string.
json dialects_of(const ConvDescriptor& d) {
    json spelled = json::object(), not_spelled = json::object();
    spelled["convcheck"] = to_string(d);
    try {
        spelled["benchdnn"] = to_benchdnn(d);
    } catch (const std::exception& e) {
        not_spelled["benchdnn"] = e.what();
    }
    const reference::dialects::Request request = reference::dialects::request_from_descriptor(d);
    for (const reference::dialects::Dialect& dialect : reference::dialects::all_dialects()) {
        std::string why;
        const auto attributes = dialect.spell(request, &why);
        if (attributes) spelled[std::string(dialect.name)] = reference::dialects::to_string(*attributes);
        else not_spelled[std::string(dialect.name)] = why;
    }
    json j = {{"spelled", spelled}};
    if (!not_spelled.empty()) j["not_spelled"] = not_spelled;
    return j;
}

}  // namespace

json offline_case_entry(const Case& c) {
    json e = {{"id", c.id}, {"name", c.name}, {"seed", c.seed}, {"mode", accuracy::to_string(c.mode)},
              {"fill", accuracy::to_string(c.fill)}, {"canonical", c.descriptor()}};
    if (!c.vector_dir.empty()) e["vector"] = c.vector_dir + ":" + c.vector_case;
    if (c.op == Op::conv || c.op == Op::conv_bwd_data || c.op == Op::conv_bwd_weights) {
        try {
            e["descriptor"] = convcheck_exec::descriptor_json(to_abi(c.conv));
            e["pass"] = e["descriptor"]["pass"];
        } catch (const std::exception& x) {
            e["descriptor_error"] = x.what();
        }
        e["dialects"] = dialects_of(c.conv);
    }
    return e;
}

namespace {

[[noreturn]] void bad(const std::string& field, const json& value, const std::string& rule) {
    std::string v = value.dump();
    if (v.size() > 120) v = v.substr(0, 117) + "...";
    throw std::invalid_argument("manifest.json: " + field + " = " + v + ": " + rule);
}

const json& field(const json& object, const std::string& where, const std::string& key) {
    if (!object.contains(key)) bad(where + key, nullptr, "missing (docs/offline.md names every field)");
    return object[key];
}

std::string text_field(const json& object, const std::string& where, const std::string& key) {
    const json& v = field(object, where, key);
    if (!v.is_string()) bad(where + key, v, "a string");
    return v.get<std::string>();
}

std::uint64_t seed_field(const json& object, const std::string& where, const std::string& key) {
    const json& v = field(object, where, key);
    if (!v.is_number_unsigned()) bad(where + key, v, "a seed: an integer from 0 to 2^64-1");
    return v.get<std::uint64_t>();
}

}  // namespace

OfflineManifest read_offline_manifest(const std::filesystem::path& dir) {
    const std::filesystem::path path = dir / "manifest.json";
    std::ifstream in(path);
    if (!in) throw std::invalid_argument(path.string() + ": cannot be read (is " + dir.string() +
                                         " a folder `convcheck export` wrote?)");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const json m = json::parse(text, nullptr, false);
    if (m.is_discarded() || !m.is_object()) bad("(the whole file)", nullptr, "a JSON object (it does not parse as one)");
    if (const std::string f = text_field(m, "", "format"); f != kOfflineFormat)
        bad("format", f, std::string("must be \"") + kOfflineFormat + "\"");
    const json& version = field(m, "", "format_version");
    if (!version.is_number_integer() || version.get<int>() != kOfflineFormatVersion)
        bad("format_version", version, "this convcheck reads version " + std::to_string(kOfflineFormatVersion));
    OfflineManifest r;
    r.suite = text_field(m, "", "suite");
    r.seed = seed_field(m, "", "seed");
    r.mode_filter = text_field(m, "", "mode");
    r.suite_checksum = text_field(m, "", "suite_checksum");
    r.selection = field(m, "", "selection");
    if (!r.selection.is_object()) bad("selection", r.selection, "an object (what export was asked for)");
    r.claims = field(m, "", "claims");
    try {
        offline_info(r.claims);
    } catch (const std::invalid_argument& e) {
        bad("claims", r.claims, e.what());
    }
    const json& expectations = field(m, "", "expectations");
    if (!expectations.is_object()) bad("expectations", expectations, "an object with path and checksum");
    r.expectations = text_field(expectations, "expectations.", "path");
    r.expectations_checksum = text_field(expectations, "expectations.", "checksum");
    const json& cases = field(m, "", "cases");
    if (!cases.is_array()) bad("cases", cases, "a list of the run's cases");
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const std::string where = "cases[" + std::to_string(i) + "].";
        const json& c = cases[i];
        if (!c.is_object()) bad("cases[" + std::to_string(i) + "]", c, "an object");
        OfflineCaseEntry e;
        e.id = text_field(c, where, "id");
        e.descriptor = text_field(c, where, "canonical");
        e.mode = text_field(c, where, "mode");
        e.seed = seed_field(c, where, "seed");
        const json& exported = field(c, where, "exported");
        if (!exported.is_boolean()) bad(where + "exported", exported, "true or false");
        e.exported = exported.get<bool>();
        if (e.exported) {
            for (const char* key : {"inputs", "outputs"})
                if (!field(c, where, key).is_object()) bad(where + key, c[key], "an object naming the case's files");
        } else {
            text_field(c, where, "skipped");
        }
        r.cases.push_back(std::move(e));
    }
    return r;
}

}  // namespace convcheck::runner
