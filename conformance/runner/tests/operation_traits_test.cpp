// The table of operations: a descriptor string finds the entry that reads it, a "conv:" descriptor's
// dir= chooses the pass, every entry names the jobs every operation must have, and the backward passes
// name the jobs the table gives them (shrinking keeps the pass; determinism mode names a gradient
// element in the tensor's own layout; a transposed case's record says its own bias).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "convcheck/runner/operation_jobs.hpp"
#include "convcheck/runner/operation_traits.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

Case read(const std::string& text) {
    Case c;
    operation_of_descriptor(text).read(text, c);
    return c;
}

TEST(OperationTraits, ADescriptorFindsTheEntryThatReadsIt) {
    EXPECT_EQ(read("cc:n=1,cin=1,cout=2,in=7x6,scale=2/3,support=2x2,kernel=linear").op, Op::cc);
    EXPECT_EQ(read("conv:c=1,o=1,in=3,k=1").op, Op::conv);
    EXPECT_EQ(read("c=1,o=1,in=3,k=1").op, Op::conv);  // no prefix: the first entry's, discrete convolution
    EXPECT_EQ(read("conv:c=1,o=1,in=3,k=1,dir=bwd_d").op, Op::conv_bwd_data);
    EXPECT_EQ(read("conv:c=1,o=1,in=3,k=1,bias=1,dir=bwd_w").op, Op::conv_bwd_weights);
    // the canonical string round-trips through the entry of the case's own op
    EXPECT_EQ(read("deconv:c=2,o=3,in=4,k=3,s=2,op=1").op, Op::conv_transposed);
    for (const char* text : {"conv:c=2,o=3,in=5x4,k=3x2,dir=bwd_w", "cc:n=1,cin=1,cout=2,in=7x6,scale=2/3,support=2x2,kernel=linear",
                             "deconv:n=2,c=4,o=6,g=2,in=3x4,k=3x2,s=2x1,pb=1x0,pe=0x1,op=1x0,bias=1,data=nxc,wei=xio"}) {
        const Case c = read(text);
        EXPECT_EQ(read(c.descriptor()).descriptor(), c.descriptor()) << text;
    }
}

TEST(OperationTraits, EveryEntryNamesTheJobsEveryOperationHas) {
    for (const OperationTraits& t : operations()) {
        EXPECT_EQ(&operation(t.op), &t) << t.name;
        EXPECT_TRUE(t.prefix && t.read && t.descriptor && t.validate && t.output_dtype && t.memory && t.check &&
                    t.features)
            << t.name;
        // what issue 20 asks of every pass: shrunk, bundled, compared by determinism mode. Quantized convolution
        // (ABI 1.5) is shrunk, compared and has its benchdnn line; its failure bundles hold the manifest only until
        // they write integer arrays: named here, so that adding them must change this line
        const bool quantized = t.op == Op::conv_quantized;
        EXPECT_TRUE(t.smaller && t.benchdnn && t.output_element) << t.name;
        EXPECT_EQ(t.bundle_arrays == nullptr, quantized) << t.name;
        EXPECT_EQ(t.output_bytes != nullptr && t.output_value != nullptr, quantized) << t.name;
    }
    for (Op op : {Op::conv, Op::conv_bwd_data, Op::conv_bwd_weights}) {
        const OperationTraits& t = operation(op);
        EXPECT_TRUE(t.time && t.macs && t.design_geometry && t.broken_rule) << t.name;
    }
}

TEST(OperationTraits, ABackwardCaseShrinksWithinItsPass) {
    const Case c = read("conv:n=2,c=4,o=6,g=2,in=7x6,k=3x2,s=2x1,pb=1,pe=0,bias=1,data=nxc,wei=xio,dir=bwd_w");
    const auto smaller = operation(c.op).smaller(c);
    ASSERT_FALSE(smaller.empty());
    for (const Case& s : smaller) {
        EXPECT_EQ(s.conv.pass, Pass::backward_weights) << s.descriptor();
        EXPECT_EQ(conv_op(s.conv), c.op) << s.descriptor();
        EXPECT_NO_THROW(operation(s.op).validate(s)) << s.descriptor();
    }
}

TEST(OperationTraits, ABackwardOutputIsNamedInItsTensorsOwnLayout) {
    // backward weights, XIO: the recorded bytes are [k][i][o] (then diff_bias [o]); named [o, i, k]
    const Case w = read("conv:n=1,c=2,o=3,in=5,k=2,bias=1,wei=xio,dir=bwd_w");
    const OperationTraits& tw = operation(w.op);
    EXPECT_EQ(tw.output_element(w, 0), "diff_weights[0,0,0]");
    EXPECT_EQ(tw.output_element(w, 5), "diff_weights[2,1,0]");   // k=0, i=1, o=2
    EXPECT_EQ(tw.output_element(w, 7), "diff_weights[1,0,1]");   // k=1, i=0, o=1
    EXPECT_EQ(tw.output_element(w, 12 + 1), "diff_bias[1]");     // past the 12 weights
    // backward data, NXC: [n][x][c] named [n, c, x]
    const Case d = read("conv:n=2,c=3,o=4,in=5,k=1,data=nxc,dir=bwd_d");
    EXPECT_EQ(operation(d.op).output_element(d, 3 * 5 + 2 * 3 + 1), "diff_src[1,1,2]");
    // the forward's dst, for comparison: [n][c][x] as it is
    const Case f = read("conv:n=2,c=3,o=4,in=5,k=1");
    EXPECT_EQ(operation(f.op).output_element(f, 5 * 4 + 7), "[1,1,2]");
}

// A transposed case shrinks to valid transposed cases (the forward's reductions read back, output padding and
// the bias dropped); a transposed convolution has no pass and no memory strides of its own (refused, exit 2).
TEST(OperationTraits, ATransposedCaseShrinksWithinItsOperation) {
    const Case c = read("deconv:n=2,c=4,o=6,g=2,in=3x4,k=3x2,s=2x1,pb=1x0,pe=0x1,op=1x0,bias=1,data=nxc,wei=xio");
    const auto smaller = operation(c.op).smaller(c);
    ASSERT_GE(smaller.size(), 5u);
    bool without_op = false, without_bias = false;
    for (const Case& s : smaller) {
        EXPECT_EQ(s.op, Op::conv_transposed) << s.descriptor();
        EXPECT_NO_THROW(operation(s.op).validate(s)) << s.descriptor();
        EXPECT_LE(s.deconv.dst_elements(), c.deconv.dst_elements()) << s.descriptor();
        without_op = without_op || s.deconv.output_padding[0] == 0;
        without_bias = without_bias || !s.deconv.has_bias;
    }
    EXPECT_TRUE(without_op && without_bias);
    EXPECT_THROW(read("deconv:c=2,o=3,in=4,k=3,dir=bwd_d"), ConvError);
}

TEST(OperationTraits, ATransposedOutputIsNamedInDstsOwnLayout) {
    // NXC dst [n][x][o], out = (4-1)*2 - 0 - 0 + 3 + 1 = 10: flat (1*10 + 2)*3 + 1 is [n=1, o=1, x=2]
    const Case c = read("deconv:n=2,c=2,o=3,in=4,k=3,s=2,op=1,data=nxc");
    EXPECT_EQ(operation(c.op).output_element(c, (1 * 10 + 2) * 3 + 1), "[1,1,2]");
    EXPECT_EQ(operation(c.op).macs(c), 2 * 2 * 4 * 3 * 3);  // N * C * in * O * k
}

TEST(OperationTraits, ATransposedCaseRecordSaysItsOwnBias) {
    // the features are the forward geometry's, whose descriptor has no bias (its bias would have C values)
    const auto features = [](const char* text) { return operation(read(text).op).features(read(text)); };
    EXPECT_TRUE(features("deconv:c=2,o=3,in=4,k=3,s=2,op=1,bias=1")["bias"].get<bool>());
    EXPECT_FALSE(features("deconv:c=2,o=3,in=4,k=3,s=2,op=1")["bias"].get<bool>());
    EXPECT_TRUE(features("deconv:c=2,o=3,in=4,k=3,s=2,op=1")["output_padding"].get<bool>());
}

}  // namespace

// Per-channel zero points (ABI 1.7): a plugin built against 1.6 claims the integer dtypes but has one zero point per
// tensor in its quantization extension: such a case is refused before any call, saying why; a 1.7 plugin is sent it.
TEST(OperationTraits, PerChannelZeroPointsGoOnlyToPluginsOf17) {
    PluginInfo info;
    info.dtypes = CONVCHECK_BIT(CONVCHECK_U8) | CONVCHECK_BIT(CONVCHECK_S8) | CONVCHECK_BIT(CONVCHECK_S32);
    info.ranks = CONVCHECK_BIT(2);
    info.data_formats = CONVCHECK_BIT(CONVCHECK_NCX);
    info.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX);
    info.abi_major = 1;
    info.abi_minor = 6;
    const Case per_channel = read("qconv:c=3,o=5,in=6x6,k=3x3,pb=1x1,pe=1x1,dt=u8:s8:u8,szp=ic,dzp=oc");
    const Case per_tensor = read("qconv:c=3,o=5,in=6x6,k=3x3,pb=1x1,pe=1x1,dt=u8:s8:u8,szp=3,dzp=5");
    const OperationTraits& op = operation(Op::conv_quantized);
    EXPECT_EQ(op.unclaimed(info, per_tensor), "");
    EXPECT_NE(op.unclaimed(info, per_channel).find("built against ABI 1.6, which has one src and one dst zero point per "
                                                   "tensor (per-channel zero points: ABI 1.7"),
              std::string::npos)
        << op.unclaimed(info, per_channel);
    info.abi_minor = 7;
    EXPECT_EQ(op.unclaimed(info, per_channel), "");
}
