#include "convcheck/runner/suites.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "convcheck/runner/invalid_case.hpp"
#include "convcheck/runner/operation_traits.hpp"

namespace convcheck::runner {

namespace {

// The suites generated in code; every other built-in suite is a case list (suite_lists.cpp).
struct GeneratedSuite {
    const char* name;
    const char* description;
    const char* source;
    std::vector<SuiteEntry> (*entries)();
};
const GeneratedSuite kGeneratedSuites[] = {
    {"full", "a fixed, seeded sweep of random small descriptors, each attribute's values at a stated share "
     "(list --suite full prints the distribution), in all three modes",
     "conformance/runner/suite_full.cpp", full_suite},
    {"models", "the convolution layers of ResNet-50, MobileNet-v2, VGG-16, DeepLab-v3 (atrous), a 3-D UNet "
     "and 1-D audio networks, batch 1, bound mode (slow: real sizes)",
     "conformance/runner/suite_models.cpp", models_suite},
    {"dialects", "descriptors produced by the framework dialect front ends (same-padding modes, oneDNN 0-based "
     "dilation, CNTK negative pads), as each framework computes them",
     "conformance/runner/suite_dialects.cpp", dialects_suite},
    {"quantized_dialects", "int8 convolutions in TFLite's (CONV_2D, DEPTHWISE_CONV_2D) and TOSA's (CONV2D + RESCALE) "
     "own words, read by the quantized dialects into exact-mode qconv: cases (the rule each framework specifies in "
     "the case name)",
     "conformance/runner/suite_quantized_dialects.cpp", quantized_dialects_suite},
    {"cc", "continuous convolution layers (seed 004): rational and real scales, analytic kernels and the "
     "Internal-Net",
     "conformance/runner/suite_cc.cpp", cc_suite},
    {"strides", "tensors that are not dense (ABI 1.2 memory strides): permuted views, padded rows and "
     "channels, a batch pitch, each tensor strided alone and all together; the OXI (OHWI) filter "
     "format with NCX and NXC",
     "conformance/runner/suite_strides.cpp", strides_suite},
    {"pairwise", "every pair of attribute values (rank, groups, dilation, stride, pads, kernel vs input, "
     "layouts, dtype, bias) in at least one case, with unequal per-axis values (list shows the "
     "pair coverage)",
     "conformance/runner/suite_pairwise.cpp", pairwise_suite},
};

}  // namespace

std::vector<SuiteInfo> builtin_suites() {
    std::vector<SuiteInfo> suites = builtin_case_lists();
    for (const GeneratedSuite& g : kGeneratedSuites) suites.push_back({g.name, g.description, g.source});
    // smoke first (the suite to start with), then by name
    std::sort(suites.begin(), suites.end(), [](const SuiteInfo& a, const SuiteInfo& b) {
        return std::make_pair(a.name != "smoke", a.name) < std::make_pair(b.name != "smoke", b.name);
    });
    return suites;
}

std::vector<SuiteEntry> builtin_suite_entries(const std::string& name) {
    for (const GeneratedSuite& g : kGeneratedSuites)
        if (name == g.name) return g.entries();
    if (std::optional<std::vector<SuiteEntry>> list = builtin_case_list_entries(name)) return *list;
    std::string names;
    for (const auto& s : builtin_suites()) names += (names.empty() ? "" : ", ") + s.name;
    throw std::invalid_argument("suite '" + name + "' is neither a built-in suite (" + names +
                                ") nor an existing file");
}

accuracy::Mode parse_mode(const std::string& text) {
    accuracy::Mode mode;
    if (accuracy::parse_mode_name(text, &mode)) return mode;
    std::string names;
    for (const std::string& n : accuracy::mode_names()) names += (names.empty() ? "" : ", ") + n;
    throw std::invalid_argument("mode '" + text + "' is not one of " + names);
}

std::vector<Case> expand(const std::string& suite, const std::vector<SuiteEntry>& entries, std::uint64_t run_seed,
                         const std::string& only_mode) {
    std::vector<Case> cases;
    std::uint64_t index = 0;
    for (const SuiteEntry& e : entries) {
        Case base;
        base.suite = suite;
        base.name = e.name;
        base.dialect = e.dialect;
        base.padding = e.padding;
        base.vector_dir = e.vector_dir;
        base.vector_case = e.vector_case;
        base.fill = e.fill;
        // as written: an invalid-mode case breaks a rule on purpose; every other mode validates below
        const OperationTraits& read_by = operation_of_descriptor(e.descriptor);
        read_by.read(e.descriptor, base);
        const OperationTraits& op = operation(base.op);  // a pass of read_by's operation, or it
        const std::string rule = op.broken_rule ? op.broken_rule(base) : "";
        std::vector<accuracy::Mode> modes;
        if (!only_mode.empty()) {
            // a special fill is exact-mode data: such an entry has no case in another mode
            if (e.fill != accuracy::Fill::standard && parse_mode(only_mode) != accuracy::Mode::exact) continue;
            // an invalid descriptor has a case in invalid mode only, and a valid one has none there
            if (e.modes == "i" && parse_mode(only_mode) != accuracy::Mode::invalid) continue;
            if (rule.empty() && parse_mode(only_mode) == accuracy::Mode::invalid) continue;
            modes.push_back(parse_mode(only_mode));
        } else {
            for (char m : e.modes) {
                accuracy::Mode mode;
                if (!accuracy::mode_from_letter(m, &mode))
                    throw std::invalid_argument("suite " + suite + ": entry '" + e.descriptor + "' has mode letter '" +
                                                std::string(1, m) + "' (b, e, p, s, r, i or l)");
                modes.push_back(mode);
            }
        }
        for (accuracy::Mode mode : modes) {
            if (e.fill != accuracy::Fill::standard && mode != accuracy::Mode::exact)
                throw std::invalid_argument("suite " + suite + ": entry '" + e.descriptor + "' has fill '" +
                                            accuracy::to_string(e.fill) + "' in mode " + accuracy::to_string(mode) +
                                            ": special fills are exact-mode data");
            if (mode == accuracy::Mode::invalid && !op.broken_rule)
                throw std::invalid_argument("suite " + suite + ": entry '" + e.descriptor +
                                            "' in mode invalid: the invalid-case mode has no " + op.words +
                                            " cases (conv and deconv descriptors only)");
            if (mode == accuracy::Mode::invalid && rule.empty())
                throw std::invalid_argument("suite " + suite + ": entry '" + e.descriptor +
                                            "' in mode invalid breaks no rule: that mode is for descriptors the backend "
                                            "must refuse");
            if (mode != accuracy::Mode::invalid) op.validate(base);  // ConvError names the rule
            // e.g. CC: a real-scale window the backend may decide either way (docs/cc.md). An entry that names the
            // mode is refused; one that --mode forces into it (a general-output quantized case in exact mode) has no
            // case there
            if (op.refused_entry)
                if (const std::string why = op.refused_entry(base, mode); !why.empty()) {
                    if (!only_mode.empty() && e.modes.find(accuracy::mode_letter(mode)) == std::string::npos) continue;
                    throw std::invalid_argument("suite " + suite + ": " + op.name + " entry '" + e.descriptor + "': " + why);
                }
            Case c = base;
            c.mode = mode;
            char id[32];
            std::snprintf(id, sizeof(id), "%04llu", static_cast<unsigned long long>(index));
            c.id = suite + "/" + id;
            c.seed = e.seed ? *e.seed : case_seed(run_seed, index);
            ++index;
            cases.push_back(std::move(c));
        }
    }
    return cases;
}

namespace {

LoadedSuite cases_of(const std::string& suite_or_file, std::uint64_t run_seed, const std::string& only_mode,
                     const SuiteReadOptions& read) {
    namespace fs = std::filesystem;
    // --benchdnn-driver deconv says how to read a benchdnn file: on anything else it would be dropped unread
    auto not_benchdnn = [&](const char* what) { refuse_unused_benchdnn_driver(read, "'" + suite_or_file + "'", what); };
    for (const auto& s : builtin_suites())
        if (s.name == suite_or_file) {
            not_benchdnn("a built-in suite");
            return {expand(s.name, builtin_suite_entries(s.name), run_seed, only_mode), {}};
        }
    std::error_code ec;
    if (fs::is_directory(suite_or_file, ec) && fs::is_regular_file(fs::path(suite_or_file) / "manifest.json", ec))
    {
        not_benchdnn("a golden-vector set");
        fs::path dir = fs::path(suite_or_file).lexically_normal();
        if (dir.filename().empty()) dir = dir.parent_path();  // "vectors/sets/seeds/"
        LoadedSuite loaded;
        loaded.cases = expand(dir.filename().string(), vector_suite_entries(suite_or_file, &loaded.skipped), run_seed, only_mode);
        return loaded;
    }
    if (!fs::is_regular_file(suite_or_file, ec)) builtin_suite_entries(suite_or_file);  // throws the error
    LoadedSuite loaded;
    const std::string name = fs::path(suite_or_file).stem().string();
    loaded.cases = expand(name, file_suite_entries(suite_or_file, &loaded.skipped, read), run_seed, only_mode);
    for (SkippedInput& s : loaded.skipped) s.suite = name;
    return loaded;
}

}  // namespace

LoadedSuite load_suite(const std::string& suite_or_file, std::uint64_t run_seed, const std::string& only_mode,
                       const SuiteReadOptions& read) {
    LoadedSuite loaded = cases_of(suite_or_file, run_seed, only_mode, read);
    // A run of nothing must not pass: an empty file, [], {"cases": []}, a results file without case
    // records or a vector set whose cases are all refused is a mistake in the input. (A file whose every
    // test case was skipped holds inputs: they are reported, and the run executes nothing, which fails.)
    if (loaded.cases.empty() && loaded.skipped.empty())
        throw std::invalid_argument("suite '" + suite_or_file +
                                    "' holds no cases: there is nothing to check (an empty file, [] or "
                                    "{\"cases\": []}, or no case records)");
    return loaded;
}

std::vector<Case> load_cases(const std::string& suite_or_file, std::uint64_t run_seed, const std::string& only_mode,
                             const SuiteReadOptions& read) {
    LoadedSuite loaded = load_suite(suite_or_file, run_seed, only_mode, read);
    if (!loaded.skipped.empty()) throw std::invalid_argument(suite_or_file + ": " + strict_benchdnn_message(loaded.skipped));
    return std::move(loaded.cases);
}

}  // namespace convcheck::runner
