// The CC layer with torch operations (conformance/plugins/libtorch/include/convcheck/libtorch/cc_torch.hpp) beside the optimized one, on the
// paper's layer (seed 004, Tables 5 and 6: 32 -> 32 channels, 3x3 support, Internal-Net 16x16), as CC / conv
// time ratios: ours against our discrete convolution, torch's against torch's own at::conv2d of the same
// output size, forward and forward+backward (torch autograd), beside the paper's published ratios.
// Built into convcheck_bench_table when the libtorch plugin is (bench/CMakeLists.txt).
#pragma once

#include <vector>

namespace convcheck::bench {

void cc_torch_table(const std::vector<int>& threads, const std::vector<int>& batches, double min_seconds);

}  // namespace convcheck::bench
