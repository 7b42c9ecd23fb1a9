// A discrete convolution's case as the runner hands it to a plugin: whether the plugin claims it, and
// its canonical data in guarded buffers in the case's layouts and dtype. The runner's convolution
// pipeline (conformance/runner/conv/) uses them, and backend_test too, so that it sends a plugin exactly
// the cases `convcheck run` sends.
#pragma once

#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/runner/guarded_buffer.hpp"
#include "convcheck/runner/operation_calls.hpp"
#include "convcheck/runner/plugin_loader.hpp"

namespace convcheck::runner {

// What the plugin's describe claims against what the case needs, the operation included; "" when claimed.
std::string unclaimed(const PluginInfo& info, const ConvDescriptor& d);
struct Buffers {
    GuardedBuffer src, weights, bias, dst;
    // ABI 1.6 post-ops: each op's f32 operand (empty for ops without one), and dst_prev for a sum (dst's
    // bytes before each execute; dst is filled with it too).
    std::vector<GuardedBuffer> operands;
    GuardedBuffer prior_dst;
};
// Canonical data (src NCX, weights OIX, bias [O]) in the case's layouts and dtype; dst "never written".
Buffers make_buffers(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                     const std::vector<double>& bias);
// Adds d's post-op inputs (reference/post_ops.hpp, canonical) to b: the operands in the ABI's layout, and the
// prior dst in dst's layout and dtype, copied into dst as well.
void add_post_op_buffers(const ConvDescriptor& d, const std::vector<std::vector<double>>& operands,
                         const std::vector<double>& prior_dst_ncx, Buffers& b);
// The execution of buffers b (descriptor and buffers; timing, limits and the leak check at their defaults).
ConvExecution conv_execution(const ConvDescriptor& d, const Buffers& b);

}  // namespace convcheck::runner
