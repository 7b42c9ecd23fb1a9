// The options of benchdnn's convolution and deconvolution drivers (tests/benchdnn/conv/bench_conv.cpp,
// deconv/bench_deconv.cpp, utils/parser.cpp; current oneDNN or v3.7.1, BenchdnnVersion: current adds `--bia-dt`
// and the global options `--summary`, `--execution-mode`, `--buffer-prefix`, and drops `--fast-ref-gpu`; `--cfg` as
// v3.3 read it: both drivers had it; the deconv driver has no `--strides`), held as benchdnn holds them: a list of values per option,
// each value as written. `--reset` restores the driver options; the global options (parse_bench_settings)
// are never reset. Which option maps to what, and why the others are skipped: docs/benchdnn.md.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/formats/benchdnn.hpp"

namespace convcheck {

// The attribute options, in the order benchdnn multiplies them (settings.hpp, attributes.init).
enum class BenchdnnAttr : int {
    scales, zero_points, post_ops, scratchpad, fpmath, acc_mode, deterministic, dropout, rounding_mode, count
};
inline constexpr int kBenchdnnAttrCount = static_cast<int>(BenchdnnAttr::count);
// "attr-scales", ...: the option's name without "--".
const char* benchdnn_attr_option(BenchdnnAttr a);

// The driver options; a default-constructed value holds benchdnn's defaults.
struct BenchdnnDriverOptions {
    std::vector<std::string> dir{"FWD_B"};
    std::vector<std::string> dt{"f32"};   // each entry "f32" or "SRC:WEI:DST"
    std::vector<std::string> bia_dt{"undef"};  // current oneDNN's --bia-dt (v3.7.1 has no such option)
    std::vector<std::string> cfg{""};     // v3.3's deprecated --cfg ("" = not given)
    std::vector<std::string> stag{"any"}, wtag{"any"}, dtag{"any"};
    std::vector<std::string> strides{""}; // "" = benchdnn's default (dense)
    std::vector<std::string> alg{"direct"};
    std::vector<std::string> mb{"0"};     // 0 keeps the problem's mb
    std::array<std::vector<std::string>, kBenchdnnAttrCount> attr;  // each {""}: the default
    std::vector<std::string> ctx_init{""}, ctx_exe{""};
    std::string impl_filter;              // "--impl=..." or "--skip-impl=..." as written, or ""
    std::optional<std::string> match;     // --match=REGEX
    BenchdnnDriverOptions();
};

// The global options that matter to convcheck; the rest are remembered as written.
struct BenchdnnGlobalOptions {
    long long start = 0;                   // --start: benchdnn skips the test cases before this index
    bool allow_enum_tags_only = true;
    bool check_ref_impl = false;
    std::vector<std::string> others;       // other global options given, as written (some make --match inexact)
    std::string stop;                      // set when benchdnn would stop reading: the option and why
};

struct BenchdnnOptionState {
    BenchdnnDriverOptions driver;
    BenchdnnGlobalOptions global;
    BenchdnnDriver which = BenchdnnDriver::conv;  // whose options (the deconv driver has no --strides)
    BenchdnnVersion version = BenchdnnVersion::current;  // whose grammar (v3.7.1 has no --bia-dt)
};

// What a token did to the state.
enum class BenchdnnOptionResult {
    applied,   // a driver or global option, now in the state
    batch,     // `--batch=FILE`: the caller reads FILE (the value is returned in *batch_file)
    unknown,   // not an option of the driver: the caller records it (state.global.stop)
};

// Applies one option token (it starts with '-'). benchdnn's own rules: an option matches by its
// prefix (`--dir=`, `--reset`), an empty value restores that option's default, a list is split at ','.
BenchdnnOptionResult apply_benchdnn_option(BenchdnnOptionState& state, const std::string& token,
                                           std::string* batch_file);

// benchdnn's split of a list value at `delimiter` (an empty value gives {""}).
std::vector<std::string> split_benchdnn_list(const std::string& value, char delimiter = ',');

// benchdnn's stof_safe / stoll_safe: true when the whole text is one number (std::stof / std::stoll), else false
// (benchdnn refuses the option).
bool read_benchdnn_float(const std::string& text, float* value);
bool read_benchdnn_integer(const std::string& text, long long* value);

}  // namespace convcheck
