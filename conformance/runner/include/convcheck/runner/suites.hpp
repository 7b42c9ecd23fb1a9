// Case sources: the built-in suites, benchdnn shape files and JSON case files. A suite is a list of
// entries (a descriptor, its name, the modes to run it in); expanding it gives the cases, numbered in
// order, each with a seed derived from the run's seed and its number, so case ids, order and data are
// the same for any shard count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "convcheck/formats/benchdnn.hpp"
#include "convcheck/runner/case.hpp"
#include "convcheck/runner/skipped_inputs.hpp"

namespace convcheck::runner {

struct SuiteEntry {
    SuiteEntry() = default;
    SuiteEntry(std::string descriptor_, std::string modes_ = "b", std::string name_ = {},
               accuracy::Fill fill_ = accuracy::Fill::standard)
        : descriptor(std::move(descriptor_)), modes(std::move(modes_)), name(std::move(name_)), fill(fill_) {}
    std::string descriptor;  // "conv:..." (the prefix is optional) or "cc:..."
    std::string modes = "b"; // letters: b(ound), e(xact), p(robe), s(tress), r (precision)
    std::string name;        // shape name, optional
    accuracy::Fill fill = accuracy::Fill::standard;  // a special fill (exact mode only, special_fill.hpp)
    std::string dialect, padding;
    std::optional<std::uint64_t> seed;  // a case file may pin the seed; else derived from the run seed
    std::string vector_dir, vector_case;  // a stored golden vector (vectors/sets/<set>/, case name), or empty
};

struct SuiteInfo {
    std::string name;
    std::string description;  // one paragraph (`convcheck list` prints it)
    std::string source;       // the case list conformance/data/suites/<name>.cases, or the file that generates it
};

// THE table of built-in suites: every case list conformance/data/suites/<name>.cases (built in: adding a list
// suite is adding its file; its description is the file's first comment paragraph) and the suites generated in
// code (kGeneratedSuites in suites.cpp). Smoke first, then by name.
std::vector<SuiteInfo> builtin_suites();
// The entries of one built-in suite; throws std::invalid_argument for an unknown name.
std::vector<SuiteEntry> builtin_suite_entries(const std::string& name);

// The generated suites (suite_<name>.cpp).
std::vector<SuiteEntry> full_suite();
std::vector<SuiteEntry> models_suite();
std::vector<SuiteEntry> dialects_suite();
std::vector<SuiteEntry> quantized_dialects_suite();
std::vector<SuiteEntry> cc_suite();
std::vector<SuiteEntry> pairwise_suite();
std::vector<SuiteEntry> strides_suite();

// The case lists built into the runner (suite_lists.cpp: part.cmake embeds each file's text, so that an
// installed `convcheck` needs no data folder): their rows of the table, and one list's entries (nullopt for
// a name that is no list).
std::vector<SuiteInfo> builtin_case_lists();
std::optional<std::vector<SuiteEntry>> builtin_case_list_entries(const std::string& name);

// A case list's entries (formats/include/convcheck/formats/case_list.hpp); throws std::invalid_argument naming the
// file, the line and the rule.
std::vector<SuiteEntry> case_list_entries(const std::string& path, const std::string& text);

// How a suite file is read where its format does not say: a benchdnn batch file is read by benchdnn's conv
// driver (the default) or its deconv driver (`--benchdnn-driver deconv`: benchdnn --deconv --batch=FILE), as
// current oneDNN's benchdnn reads it (the default) or v3.7.1's (`--benchdnn-version 3.7.1`).
struct SuiteReadOptions {
    BenchdnnDriver benchdnn_driver = BenchdnnDriver::conv;
    BenchdnnVersion benchdnn_version = BenchdnnVersion::current;
};
// A driver other than conv, or a version other than current, given for a source that is not a benchdnn file (`what`
// it is instead) would be dropped unread: throws std::invalid_argument naming both; nothing for the defaults.
void refuse_unused_benchdnn_driver(const SuiteReadOptions& read, const std::string& source, const std::string& what);

// Entries from a file: ".json" (a JSON case file), ".cases" (a case list), ".onnx" (an ONNX model's convolution nodes,
// suite_onnx.hpp) or anything else (a benchdnn batch file). Inputs that
// cannot be run exactly (benchdnn test cases, ONNX nodes convcheck does not model) go to *skipped; without
// `skipped`, any such input is an error (std::invalid_argument), never a silent drop.
std::vector<SuiteEntry> file_suite_entries(const std::string& path, std::vector<SkippedInput>* skipped = nullptr,
                                           const SuiteReadOptions& read = {});
// The same from the file's text (`path` chooses the format and names the file in errors). Throws
// std::invalid_argument (or ConvError) naming the file, the entry and the rule on bad input.
std::vector<SuiteEntry> suite_entries_from_text(const std::string& path, const std::string& text,
                                                std::vector<SkippedInput>* skipped = nullptr,
                                                const SuiteReadOptions& read = {});

// Entries from a golden-vector set folder (vectors/sets/<set>/ with manifest.json, docs/vectors.md):
// each stored case once, checked on its stored data against its stored result, in exact mode when
// the manifest says "bitwise", else in bound mode. Cases that must be refused are skipped.
std::vector<SuiteEntry> vector_suite_entries(const std::string& dir, std::vector<SkippedInput>* skipped);

// Builds the cases: every entry once per mode (or only `only_mode` when not empty: "exact", ...; an
// entry with a special fill, exact-mode data, then has no case in bound or probe mode).
// `suite` names the source in ids ("smoke/0042").
std::vector<Case> expand(const std::string& suite, const std::vector<SuiteEntry>& entries, std::uint64_t run_seed,
                         const std::string& only_mode);

// A suite name, a file path or a vector-set folder -> its cases, and the inputs skipped with their reasons.
// Throws std::invalid_argument when it holds neither (an empty suite is an error, never a run that passes).
struct LoadedSuite {
    std::vector<Case> cases;
    std::vector<SkippedInput> skipped;
};
LoadedSuite load_suite(const std::string& suite_or_file, std::uint64_t run_seed, const std::string& only_mode,
                       const SuiteReadOptions& read = {});
// Only the cases; a suite with skipped inputs is an error here (use load_suite to report them).
std::vector<Case> load_cases(const std::string& suite_or_file, std::uint64_t run_seed, const std::string& only_mode,
                             const SuiteReadOptions& read = {});

// Parses a mode name ("exact", "bound", "probe"); throws std::invalid_argument otherwise.
accuracy::Mode parse_mode(const std::string& text);

}  // namespace convcheck::runner
