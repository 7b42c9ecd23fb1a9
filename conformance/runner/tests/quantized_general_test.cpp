// The quantized convolution's general output (quantized/general.cpp; docs/quantized.md, "General output: float dst,
// rounded s32, post-ops"), judged in bound mode against oneDNN's
//   dst = convert(post_ops(src_scale * weights_scale(oc) * acc + bias) / dst_scale + dst_zero_point)
// The reference plugin and the mutants baseline pass designed cases, each there for one way of getting the order or
// the conversion wrong: a relu and a sum on a u8 dst with a dst scale and zero point (the zero point added before
// the post-ops, or the post-ops run after the dst scale, moves most outputs), an f32 dst, and s32 dsts whose scaled
// sums lie far past s32's range (saturated at both ends, never wrapped). The mutant that applies the dst scale and
// zero point before the post-ops fails.
#include <gtest/gtest.h>

#include <string>

#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

const char* kReluSum =
    "qconv:c=4,o=8,in=6x6,k=3x3,pb=1x1,pe=1x1,bias=1,dt=u8:s8:u8,ssc=0.5,szp=100,wsc=0.125,dsc=64,dzp=20,"
    "po=relu+sum:0.5:4";
// linear's beta in real units: after the dst scale it would be 64 times too large in dst's units
const char* kLinearS8 =
    "qconv:c=3,o=4,in=5x5,k=3x3,pb=1x1,pe=1x1,dt=s8:s8:s8,ssc=0.25,szp=-3,wsc=0.5,dsc=16,dzp=-7,po=linear:1:40";
const char* kFloatDst = "qconv:c=4,o=8,in=6x6,k=3x3,pb=1x1,pe=1x1,bias=1,dt=u8:s8:f32,bdt=f32,ssc=0.5,szp=100,wsc=oc,dsc=0.5,po=relu";
// the same with an s32 bias, in the accumulator (the mutants plugin's)
const char* kFloatDstS32Bias = "qconv:c=4,o=8,in=6x6,k=3x3,pb=1x1,pe=1x1,bias=1,dt=u8:s8:f32,ssc=0.5,szp=100,wsc=oc,dsc=0.5,po=relu";
// ssc 2^20: |ssc * acc| reaches 2^31 from |acc| = 2048, which most sums of 36 s8 products pass, on both sides
const char* kS32Saturated = "qconv:c=4,o=8,in=6x6,k=3x3,pb=1x1,pe=1x1,dt=s8:s8:s32,ssc=1048576,szp=-3,dzp=5";
const char* kS32PostOps = "qconv:c=4,o=8,in=6x6,k=3x3,pb=1x1,pe=1x1,dt=s8:s8:s32,ssc=1048576,szp=-3,po=linear:1:-1000";

CaseResult run_one(const std::string& backend, const std::vector<std::string>& options, const std::string& descriptor,
                   std::uint64_t seed = 1) {
    auto s = open_backend(backend, options, 0, "none", 10.0);
    return check_case(s->backend, expand("general", {SuiteEntry(descriptor, "b")}, seed, "").front(), CheckSettings{});
}

void expect_passed(const std::string& backend, const std::vector<std::string>& options, const std::string& descriptor) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const CaseResult r = run_one(backend, options, descriptor, seed);
        EXPECT_EQ(r.status, Status::passed) << backend << " seed " << seed << ": " << r.reason << "\n  reproducer: "
                                            << r.reproducer;
    }
}

}  // namespace

// The reference plugin computes oneDNN's definition literally: every designed case passes on three seeds. Broken so
// that the zero point comes before the post-ops, the post-ops after the dst scale, or the s32 dst wraps, it fails.
TEST(QuantizedGeneral, ReferencePassesEveryDesignedCase) {
    for (const char* descriptor : {kReluSum, kLinearS8, kFloatDst, kFloatDstS32Bias, kS32Saturated, kS32PostOps})
        expect_passed("reference", {}, descriptor);
}

// The optimized plugin: its exact integer accumulator, then the general output in f32 (optimized_plugin.cpp).
TEST(QuantizedGeneral, OptimizedPassesTheCasesItTakes) {
    for (const char* descriptor : {kReluSum, kLinearS8, kFloatDstS32Bias, kS32PostOps}) expect_passed("optimized", {}, descriptor);
}

TEST(QuantizedGeneral, MutantsBaselinePasses) {
    for (const char* descriptor : {kReluSum, kLinearS8, kFloatDstS32Bias, kS32PostOps}) expect_passed("mutants", {"mutant=none"}, descriptor);
}

// post_ops(v / dst_scale + dzp): the relu no longer clips negative sums and the sum's term is not divided by dsc.
TEST(QuantizedGeneral, DstZeroPointBeforePostOpsFails) {
    for (const char* descriptor : {kReluSum, kLinearS8}) {
        const CaseResult r = run_one("mutants", {"mutant=q_dst_zero_point_before_post_ops"}, descriptor);
        EXPECT_EQ(r.status, Status::failed) << descriptor << ": " << r.reason;
        EXPECT_NE(r.reason.find("/ dsc"), std::string::npos) << r.reason;  // the steps of the first differing output
    }
}
