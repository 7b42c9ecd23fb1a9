// benchdnn batch files, read by formats/benchdnn_driver.hpp as benchdnn's conv driver (the default) or its
// deconv driver (`--benchdnn-driver deconv`) reads them, in current oneDNN's grammar (the default) or v3.7.1's
// (`--benchdnn-version 3.7.1`): every test case benchdnn would run becomes a case
// (bound mode; a `deconv:` case for the deconv driver; a `qconv:` case for an int8 one, in exact mode where its
// scales allow) exactly as benchdnn defines it, or a skipped input with
// its reason. `--batch=` files are looked for as benchdnn does, last in the driver's inputs folder, named by
// the environment variable CONVCHECK_BENCHDNN_INPUTS (conv: oneDNN's tests/benchdnn/inputs/conv) or
// CONVCHECK_BENCHDNN_DECONV_INPUTS (deconv: inputs/deconv).
#include <cstdlib>
#include <stdexcept>

#include "convcheck/formats/benchdnn_driver.hpp"
#include "convcheck/runner/suites.hpp"
#include "quantized/operation.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> benchdnn_entries(const std::string& path, const std::string& text,
                                         std::vector<SkippedInput>* skipped, BenchdnnDriver driver,
                                         BenchdnnVersion version) {
    BenchdnnReadOptions options;
    options.driver = driver;
    options.version = version;
    if (const char* inputs = std::getenv(benchdnn_inputs_variable(driver))) options.inputs_dir = inputs;
    std::vector<SuiteEntry> entries;
    std::vector<SkippedInput> skips;
    const std::vector<BenchdnnCase> cases = read_benchdnn_batch_text(text, path, options);
    for (const BenchdnnCase& c : cases) {
        if (c.descriptor) entries.emplace_back(to_string(*c.descriptor), "b", c.name);
        else if (c.transposed) entries.emplace_back(to_string(*c.transposed), "b", c.name);
        // an int8 case: exact mode (the backend's declared rule, bit for bit) where its scales allow it
        else if (c.quantized)
            entries.emplace_back(to_string(*c.quantized), detail::quantized_exact_refusal(*c.quantized).empty() ? "e" : "b",
                                 c.name);
        else skips.push_back({"", c.source, c.input, c.skip_reason});
    }
    if (cases.empty()) throw std::invalid_argument(path + ": no benchdnn problems in the file (nor in the files it includes)");
    if (!skips.empty() && !skipped) {  // a caller that cannot report skips must not drop them silently
        throw std::invalid_argument(path + ": " + std::to_string(skips.size()) +
                                    " benchdnn test case(s) cannot be run exactly (e.g. " + skips.front().source + ": " +
                                    skips.front().reason + "); `convcheck list --suite " + path + "` lists them");
    }
    if (skipped) skipped->insert(skipped->end(), skips.begin(), skips.end());
    return entries;
}

}  // namespace convcheck::runner
