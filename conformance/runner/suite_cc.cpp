// The cc suite: the continuous convolution layers of accuracy/include/convcheck/accuracy/cc_suite_layers.hpp (which says what they
// cover). Bound and probe modes.
#include "convcheck/accuracy/cc_suite_layers.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> cc_suite() {
    std::vector<SuiteEntry> entries;
    for (const CcSuiteLayer& layer : kCcSuiteLayers) entries.emplace_back(layer.descriptor, layer.modes, layer.name);
    return entries;
}

}  // namespace convcheck::runner
