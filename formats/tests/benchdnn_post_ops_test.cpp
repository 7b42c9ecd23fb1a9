// benchdnn's --attr-post-ops (formats/benchdnn_post_ops.hpp): each setup of data/benchdnn/post_ops is a conv:
// descriptor with its po= chain where the mapping is exact, or a skip whose reason names the entry.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/formats/benchdnn_driver.hpp"

using namespace convcheck;

namespace {

const std::filesystem::path kData = CONVCHECK_BENCHDNN_TEST_DATA;

struct Want {
    const char* name;
    const char* po;    // the chain of the descriptor that runs, or nullptr
    const char* skip;  // the start of the skip reason, or nullptr
};

}  // namespace

TEST(BenchdnnPostOps, ChainsAreMappedExactlyOrSkippedWithTheirReason) {
    const auto got = read_benchdnn_batch((kData / "post_ops").string());
    const std::vector<Want> want = {
        {"eltwise", "relu", nullptr},
        {"eltwise", "relu:0.5", nullptr},
        {"eltwise", "linear:2:1", nullptr},
        {"eltwise", "clip:0:6", nullptr},
        {"eltwise", "round+tanh+logistic", nullptr},
        {"eltwise", "gelu_tanh+gelu_erf", nullptr},
        {"eltwise", "swish:0", nullptr},  // benchdnn's alpha is 0 unless written
        {"eltwise", "elu:1", nullptr},    // elu_dst: the same forward formula
        {"sum_binary", "sum", nullptr},
        {"sum_binary", "sum:0.5:2", nullptr},
        {"sum_binary", "sum", nullptr},   // sum:1:0:f32 on an f32 dst
        {"sum_binary", "add:per_oc+mul:per_tensor+max:full", nullptr},
        {"masks", "add:full", nullptr},        // mask 14 with one image
        {"masks", nullptr, "--attr-post-ops: `add:f32:12`: the operand mask 12"},
        {"masks", "add:per_tensor", nullptr},  // mask 1 with one image
        // benchdnn's own skip: "Sum must have data type with the same size like dst" (skip_unimplemented_sum_po)
        {"skipped", nullptr, "--attr-post-ops: `sum:1:0:bf16`: a sum data type (bf16) of another size than dst's (f32): "
                             "benchdnn skips it"},
        {"skipped", nullptr, "--attr-post-ops: `dw:k3s1p1`: a fused depthwise convolution"},
        {"sum_same_size", nullptr, "--attr-post-ops: `sum:1:0:bf16`: a sum data type (bf16) other than dst's (f16); "
                                   "convcheck's sum reads"},
        {"skipped", nullptr, "--attr-post-ops: `clip:1:0`: clip with alpha > beta"},
        {"skipped", nullptr, "--attr-post-ops=sum+sum: po = sum+sum: at most one sum"},
        {"skipped", nullptr, "--attr-post-ops: `add:f32:2:abcd`: an operand memory tag"},
        {"skipped", nullptr, "--attr-post-ops: `eq:f32`: the binary eq"},
        {"skipped", nullptr, "--attr-post-ops: `softmax`: a post-op kind benchdnn does not know"},
        {"skipped", nullptr, "--attr-post-ops=soft_relu: po = soft_relu:0: soft_relu's alpha must not be 0"},
        {"skipped", nullptr, "--attr-post-ops: `prelu:1`: the weights' mask 1 over dst's dims"},
        // current oneDNN's hardswish (alpha, beta; benchdnn's are 0 unless written) is convcheck's hardswish_ab
        {"eltwise_current", "hardswish_ab:0:0", nullptr},
        {"eltwise_current", "hardswish_ab:-2:3", nullptr},
        {"eltwise_current", "hardsigmoid:-2:3", nullptr},
        {"eltwise_current", "mish", nullptr},
        {"eltwise_current", "log", nullptr},
        {"eltwise_current", "soft_relu:-2", nullptr},
        {"eltwise_current", "pow:1:0.5", nullptr},
        {"eltwise_current", "tanh", nullptr},  // benchdnn leaves the eltwise SCALE unread (oneDNN v3.0 removed it)
        {"eltwise_current", "relu", nullptr},
        {"prelu_operand_types", "prelu:per_oc", nullptr},
        {"prelu_operand_types", "prelu:per_tensor", nullptr},  // no mask: common
        {"prelu_operand_types", "add:per_oc:bf16", nullptr},
        {"prelu_operand_types", "mul:per_oc:s8+sub:per_tensor:u8+add:per_tensor:s32+div:per_tensor:f16", nullptr},
        {"backward", nullptr, "--attr-post-ops on --dir=BWD_D: oneDNN's post-ops apply to forward propagation only"},
    };
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const BenchdnnCase& c = got[i];
        SCOPED_TRACE("case " + std::to_string(i) + ": " + c.source + " `" + c.input + "` -> " +
                     (c.descriptor ? to_string(*c.descriptor) : "skip: " + c.skip_reason));
        EXPECT_EQ(c.name, want[i].name);
        if (want[i].po) {
            ASSERT_TRUE(c.descriptor.has_value());
            EXPECT_EQ(c.descriptor->post_ops, parse_post_ops(want[i].po));
        } else {
            EXPECT_FALSE(c.descriptor.has_value());
            EXPECT_TRUE(c.skip_reason.starts_with(want[i].skip)) << "want a reason starting `" << want[i].skip << "`";
        }
    }
}
