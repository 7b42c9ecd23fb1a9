// The CC paper table: the CC layer with torch operations (conformance/plugins/libtorch/include/convcheck/libtorch/
// cc_torch.hpp) and our optimized CC (CcPlan, CcBackwardPlan) on the paper's layer (seed 004, Tables 5 and 6:
// 32 -> 32 channels, 3x3 support, Internal-Net 16x16), each as CC / conv time ratios against one baseline,
// torch's own at::conv2d of the same output size measured in the same run, forward and forward+backward, with
// each pass's peak workspace (cc_passes.hpp), beside the paper's published ratios.
// Built into convcheck_bench_table when the libtorch plugin is (bench/CMakeLists.txt).
#pragma once

#include <vector>

namespace convcheck::bench {

void cc_torch_table(const std::vector<int>& threads, const std::vector<int>& batches, double min_seconds);

}  // namespace convcheck::bench
