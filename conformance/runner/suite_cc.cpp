// The cc suite: the continuous convolution layers of accuracy/include/convcheck/accuracy/cc_suite_layers.hpp (which says what they
// cover). Bound and probe modes; then every layer's backward pass (dir=bwd, ABI 1.4, docs/cc-backward.md) in
// bound mode and, where the forward has it, probe mode, named <layer>/backward.
#include "convcheck/accuracy/cc_suite_layers.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> cc_suite() {
    std::vector<SuiteEntry> entries;
    for (const CcSuiteLayer& layer : kCcSuiteLayers) entries.emplace_back(layer.descriptor, layer.modes, layer.name);
    for (const CcSuiteLayer& layer : kCcSuiteLayers)
        entries.emplace_back(std::string(layer.descriptor) + ",dir=bwd", layer.modes, std::string(layer.name) + "/backward");
    return entries;
}

}  // namespace convcheck::runner
