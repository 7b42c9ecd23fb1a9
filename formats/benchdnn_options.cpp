// benchdnn's conv and deconv driver option parsing (bench_conv.cpp, bench_deconv.cpp: the parse_* chain;
// utils/parser.cpp), current oneDNN's or v3.7.1's (BenchdnnVersion).
#include "convcheck/formats/benchdnn_options.hpp"

#include <cstring>
#include <span>
#include <stdexcept>

namespace convcheck {

const char* benchdnn_attr_option(BenchdnnAttr a) {
    static const char* const names[] = {"attr-scales",   "attr-zero-points", "attr-post-ops",
                                        "attr-scratchpad", "attr-fpmath",     "attr-acc-mode",
                                        "attr-deterministic", "attr-dropout", "attr-rounding-mode"};
    return names[static_cast<int>(a)];
}

BenchdnnDriverOptions::BenchdnnDriverOptions() {
    for (auto& a : attr) a = {""};
}

std::vector<std::string> split_benchdnn_list(const std::string& value, char delimiter) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = value.find(delimiter, start);
        out.push_back(value.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

bool read_benchdnn_float(const std::string& text, float* value) {
    try {
        std::size_t used = 0;
        *value = std::stof(text, &used);
        return used == text.size();
    } catch (const std::exception&) {
        return false;
    }
}

bool read_benchdnn_integer(const std::string& text, long long* value) {
    try {
        std::size_t used = 0;
        *value = std::stoll(text, &used);
        return used == text.size();
    } catch (const std::exception&) {
        return false;
    }
}

namespace {

// benchdnn's prefix match: the token starts with "--name=" (or "--name" for a flag).
bool value_of(const std::string& token, const char* name, std::string* value) {
    const std::string pattern = std::string("--") + name + "=";
    if (!token.starts_with(pattern)) return false;
    *value = token.substr(pattern.size());
    return true;
}

// parse_vector_str: an empty value restores the default.
void set_list(std::vector<std::string>& list, const std::vector<std::string>& def, const std::string& value) {
    list = value.empty() ? def : split_benchdnn_list(value);
}

bool parse_bool(const std::string& v) { return v == "true" || v == "1"; }  // str2bool

// parse_bench_settings: the global options, in benchdnn's order (v3.7.1, then current oneDNN's).
constexpr const char* kGlobalOptions371[] = {
    "allow-enum-tags-only", "attr-same-pd-check", "canonical",        "check-ref-impl",   "cold-cache",
    "cpu-isa-hints",        "engine",             "fast-ref",         "fast-ref-gpu",     "fix-times-per-prb",
    "global-impl",          "global-skip-impl",   "max-ms-per-prb",   "num-streams",      "repeats-per-prb",
    "mem-check",            "memory-kind",        "mode",             "mode-modifier",    "start",
    "stream-kind",          "verbose",
};
constexpr const char* kGlobalOptionsCurrent[] = {
    "allow-enum-tags-only", "attr-same-pd-check", "canonical",        "check-ref-impl",   "cold-cache",
    "cpu-isa-hints",        "engine",             "fast-ref",         "fix-times-per-prb", "global-impl",
    "global-skip-impl",     "max-ms-per-prb",     "num-streams",      "repeats-per-prb",  "mem-check",
    "memory-kind",          "mode",               "mode-modifier",    "start",            "stream-kind",
    "summary",              "verbose",            "execution-mode",   "buffer-prefix",
};

bool apply_global(BenchdnnGlobalOptions& g, BenchdnnVersion version, const std::string& token) {
    std::string value;
    const auto& names = version == BenchdnnVersion::current ? std::span<const char* const>(kGlobalOptionsCurrent)
                                                            : std::span<const char* const>(kGlobalOptions371);
    for (const char* name : names) {
        if (!value_of(token, name, &value)) continue;
        if (!std::strcmp(name, "start")) {
            try {
                std::size_t used = 0;
                g.start = value.empty() ? 0 : std::stoll(value, &used);
                if (!value.empty() && used != value.size()) throw std::invalid_argument(value);
            } catch (const std::exception&) {
                g.stop = token + ": not an integer; benchdnn exits there";
            }
        } else if (!std::strcmp(name, "allow-enum-tags-only")) {
            g.allow_enum_tags_only = value.empty() ? true : parse_bool(value);
        } else if (!std::strcmp(name, "check-ref-impl")) {
            g.check_ref_impl = value.empty() ? false : parse_bool(value);
        } else {
            g.others.push_back(token);
        }
        return true;
    }
    if (token.starts_with("-v") && !token.starts_with("--")) {  // -vN, the short --verbose
        g.others.push_back(token);
        return true;
    }
    return false;
}

}  // namespace

BenchdnnOptionResult apply_benchdnn_option(BenchdnnOptionState& state, const std::string& token,
                                           std::string* batch_file) {
    if (apply_global(state.global, state.version, token)) return BenchdnnOptionResult::applied;
    BenchdnnDriverOptions& o = state.driver;
    const BenchdnnDriverOptions def;
    std::string v;
    if (value_of(token, "batch", &v)) {
        *batch_file = v;
        return BenchdnnOptionResult::batch;
    }
    if (value_of(token, "dir", &v)) return set_list(o.dir, def.dir, v), BenchdnnOptionResult::applied;
    if (value_of(token, "dt", &v)) return set_list(o.dt, def.dt, v), BenchdnnOptionResult::applied;
    if (state.version == BenchdnnVersion::current && value_of(token, "bia-dt", &v))  // parse_dt: a list of str2dt names
        return set_list(o.bia_dt, def.bia_dt, v), BenchdnnOptionResult::applied;
    if (value_of(token, "cfg", &v)) return set_list(o.cfg, def.cfg, v), BenchdnnOptionResult::applied;
    if (value_of(token, "stag", &v)) return set_list(o.stag, def.stag, v), BenchdnnOptionResult::applied;
    if (value_of(token, "wtag", &v)) return set_list(o.wtag, def.wtag, v), BenchdnnOptionResult::applied;
    if (value_of(token, "dtag", &v)) return set_list(o.dtag, def.dtag, v), BenchdnnOptionResult::applied;
    if (state.which == BenchdnnDriver::conv && value_of(token, "strides", &v)) return set_list(o.strides, def.strides, v), BenchdnnOptionResult::applied;
    if (value_of(token, "alg", &v)) return set_list(o.alg, def.alg, v), BenchdnnOptionResult::applied;
    if (value_of(token, "mb", &v)) return set_list(o.mb, def.mb, v), BenchdnnOptionResult::applied;
    for (int a = 0; a < kBenchdnnAttrCount; ++a)
        if (value_of(token, benchdnn_attr_option(static_cast<BenchdnnAttr>(a)), &v))
            return set_list(o.attr[a], def.attr[a], v), BenchdnnOptionResult::applied;
    if (value_of(token, "ctx-init", &v)) return set_list(o.ctx_init, def.ctx_init, v), BenchdnnOptionResult::applied;
    if (value_of(token, "ctx-exe", &v)) return set_list(o.ctx_exe, def.ctx_exe, v), BenchdnnOptionResult::applied;
    if (value_of(token, "match", &v)) {
        o.match = v.empty() ? std::nullopt : std::optional<std::string>(v);
        return BenchdnnOptionResult::applied;
    }
    if (value_of(token, "impl", &v) || value_of(token, "skip-impl", &v)) {
        o.impl_filter = v.empty() ? std::string() : token;
        return BenchdnnOptionResult::applied;
    }
    if (value_of(token, "perf-template", &v)) return BenchdnnOptionResult::applied;  // perf output only
    if (token.starts_with("--reset")) {  // settings.reset(): every driver option back to its default
        o = BenchdnnDriverOptions{};
        return BenchdnnOptionResult::applied;
    }
    if (token.starts_with("--help")) {
        state.global.stop = token + ": benchdnn prints its help and exits";
        return BenchdnnOptionResult::applied;
    }
    return BenchdnnOptionResult::unknown;
}

}  // namespace convcheck
