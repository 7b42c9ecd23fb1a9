// Fuzz target: the runner's case files and expectations file (conformance/runner): a JSON case file
// (an array, {"cases": [...]}, or JSON lines of a results file), a benchdnn shape file, and the
// backends' expectations (conformance/data/backends.json). The first input byte picks which (mod 4:
// .json, .jsonl, benchdnn, expectations); the rest is the file's text. Properties: the text either
// loads or throws std::invalid_argument (ConvError is one) with a non-empty message: never another
// exception (a JSON library type error, std::out_of_range), a crash or UB. Loaded case-file entries
// are expanded into cases as `convcheck run --suite FILE` does, under the same rule.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "convcheck/runner/expectations.hpp"
#include "fuzz_input.hpp"
#include "convcheck/runner/suites.hpp"

namespace {

void check_message(const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) convcheck::fuzz::property_failed("case_files", "an error with an empty message");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace r = convcheck::runner;
    if (size == 0) return 0;
    const int kind = data[0] % 4;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        if (kind == 3) {
            (void)r::Expectations::parse(text, "fuzz.json");
            return 0;
        }
        const char* path = kind == 0 ? "fuzz.json" : kind == 1 ? "fuzz.jsonl" : "fuzz.txt";
        const std::vector<r::SuiteEntry> entries = r::suite_entries_from_text(path, text);
        (void)r::expand("fuzz", entries, 1, "");
    } catch (const std::invalid_argument& e) {
        check_message(e);
    } catch (const std::exception& e) {
        convcheck::fuzz::property_failed("case_files", std::string("threw an undocumented error type: ") + e.what());
    }
    return 0;
}
