// benchdnn shape files, read by core/benchdnn.hpp exactly as benchdnn reads them (0-based dilation,
// deduced pads, 2 as the default batch). The problem strings carry no dtype, layout or bias: the
// cases take benchdnn's defaults (--dir=FWD_B: with bias, --dt=f32, plain layouts), bound mode.
#include "benchdnn.hpp"
#include "suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> benchdnn_entries(const std::string& path, const std::string&) {
    std::vector<SuiteEntry> entries;
    for (const BenchdnnFileProblem& p : parse_benchdnn_file(path).problems)
        entries.emplace_back(to_string(p.problem.descriptor), "b", p.problem.name);
    if (entries.empty()) throw std::invalid_argument(path + ": no benchdnn problems in the file");
    return entries;
}

}  // namespace convcheck::runner
