// Shrinking a failing CC case (the CC counterpart of shrink.hpp's smaller_descriptors): candidates
// one step smaller than a CC layer, each valid, largest reduction first. shrink() tries them
// exactly as it tries discrete ones: the first that fails the same way (failure_signature) is
// taken and the search starts again from it, with the same seed.
#pragma once

#include <vector>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck::runner {

// Batch 1; fewer input or output channels; a smaller input on one axis (the output following
// ceil(s * in) when it did, else kept, and also put back to ceil(s * in)); a smaller explicit output;
// scale 1 on one axis; a smaller support; the linear kernel instead of the Internal-Net, or a
// narrower Internal-Net; no bias. A candidate whose real-scale window the runner would refuse as
// ambiguous in `mode` (cc_window_margin.hpp) is left out: it would judge luck, not conformance.
std::vector<CcDescriptor> smaller_cc_descriptors(const CcDescriptor& d, accuracy::Mode mode);

}  // namespace convcheck::runner
