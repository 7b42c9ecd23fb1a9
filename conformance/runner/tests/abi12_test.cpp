// ABI 1.2 through the runner: the runner's workspace (a plan that writes past what it reported is a
// crash that says so; how far it wrote is recorded), the runner's thread pool (a plugin that runs its
// tasks there passes, and the pool counts them), and the descriptor's per-tensor dtypes, pass and
// extension chain (defaults for a plugin that does not claim them; the runner refuses what a
// plugin's claims do not cover instead of letting it read a mixed case as one dtype).
#include <gtest/gtest.h>

#include "convcheck/runner/abi_claims.hpp"
#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/runner/results.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

Case one_case(const std::string& descriptor) { return expand("abi12", {SuiteEntry(descriptor)}, 1, "exact").front(); }

CaseResult run(const std::string& backend, const std::vector<std::string>& options, const std::string& descriptor,
               int threads = 0) {
    auto s = open_backend(backend, options, threads, "none", 30.0);
    return check_case(s->backend, one_case(descriptor), CheckSettings{});
}

// ---- the workspace -------------------------------------------------------------------------------

// dst of n=2, o=4, 8x8 f32: 2048 bytes, a multiple of 64 (the byte past is the guard page), and of
// 5x5 f32: 200 bytes (the byte past is in the slack before it, under the canary).
TEST(Workspace, APlanThatWritesPastItsReportedWorkspaceCrashesSayingSo) {
    for (const char* descriptor : {"conv:n=2,c=3,o=4,in=10x10,k=3x3", "conv:n=2,c=3,o=4,in=7x7,k=3x3"}) {
        const CaseResult r = run("mutants", {"mutant=workspace_overrun"}, descriptor);
        EXPECT_EQ(r.status, Status::crashed) << descriptor << ": " << r.reason;
        EXPECT_NE(r.reason.find("write past the end of the runner's workspace"), std::string::npos) << r.reason;
        EXPECT_NE(r.reason.find("the plan reported workspace_bytes"), std::string::npos) << r.reason;
    }
}

TEST(Workspace, APlanThatKeepsToItsWorkspacePassesAndItsUseIsRecorded) {
    const CaseResult r = run("mutants", {"mutant=honest_workspace_pool"}, "conv:n=3,c=3,o=4,in=10x10,k=3x3,bias=1");
    ASSERT_EQ(r.status, Status::passed) << r.reason << "\n  reproducer: " << r.reproducer;
    ASSERT_TRUE(r.workspace_bytes.has_value());
    EXPECT_EQ(*r.workspace_bytes, 3u * 4 * 8 * 8 * 4);
    ASSERT_TRUE(r.workspace_used.has_value());
    EXPECT_GT(*r.workspace_used, *r.workspace_bytes - 64) << "it computes every output there";
    EXPECT_LE(*r.workspace_used, *r.workspace_bytes);
    const auto record = case_record(r, "mutants");
    EXPECT_EQ(record.at("workspace_used"), *r.workspace_used);
    // a plan that reports none is given none
    const CaseResult plain = run("mutants", {"mutant=none"}, "conv:n=3,c=3,o=4,in=10x10,k=3x3");
    EXPECT_FALSE(plain.workspace_used.has_value());
    EXPECT_FALSE(case_record(plain, "mutants").contains("workspace_used"));
}

// ---- the thread pool ------------------------------------------------------------------------------

TEST(ThreadPool, APluginThatRunsItsImagesOnThePoolPassesAndThePoolCountsThem) {
    for (const int threads : {1, 2}) {
        // the plan's execute and the one-shot conv_execute each run one task per image
        const CaseResult r = run("reference", {}, "conv:n=5,c=3,o=4,in=9x8,k=3x3,bias=1", threads);
        ASSERT_EQ(r.status, Status::passed) << r.reason << "\n  reproducer: " << r.reproducer;
        EXPECT_EQ(r.thread_pool_tasks, 10u) << threads << " threads";
        EXPECT_EQ(case_record(r, "reference").at("thread_pool_tasks"), 10u);
        const CaseResult m = run("mutants", {"mutant=honest_workspace_pool"}, "conv:n=5,c=3,o=4,in=9x8,k=3x3", threads);
        ASSERT_EQ(m.status, Status::passed) << m.reason;
        EXPECT_EQ(m.thread_pool_tasks, 10u);
    }
    // a plugin that does not use the pool: nothing counted, nothing recorded
    const CaseResult r = run("mutants", {"mutant=none"}, "conv:n=5,c=3,o=4,in=9x8,k=3x3");
    EXPECT_EQ(r.thread_pool_tasks, 0u);
    EXPECT_FALSE(case_record(r, "mutants").contains("thread_pool_tasks"));
}

// ---- per-tensor dtypes, the pass, the extension chain -----------------------------------------------

TEST(Descriptor, TheRunnerWritesTheDefaultsOfThe12Fields) {
    const convcheck_conv_desc a = to_abi(parse_descriptor("conv:c=2,o=3,in=5,k=3,dt=bf16"));
    EXPECT_EQ(a.struct_size, sizeof(convcheck_conv_desc));
    EXPECT_EQ(a.dtype, CONVCHECK_BF16);
    EXPECT_EQ(a.src_dtype, CONVCHECK_BF16);
    EXPECT_EQ(a.weights_dtype, CONVCHECK_BF16);
    EXPECT_EQ(a.bias_dtype, CONVCHECK_BF16);
    EXPECT_EQ(a.dst_dtype, CONVCHECK_BF16);
    EXPECT_EQ(a.prop_kind, CONVCHECK_FORWARD);
    EXPECT_EQ(a.next, nullptr);
}

// Mixed per-tensor dtypes travel as themselves, with dtype = CONVCHECK_DTYPE_MIXED, and come back the same;
// a bias dtype is read only with a bias.
TEST(Descriptor, MixedDtypesRoundTripThroughTheAbi) {
    const ConvDescriptor d = parse_descriptor("conv:c=2,o=3,in=5,k=3,bias=1,dt=bf16:bf16:f32,bdt=f32");
    const convcheck_conv_desc a = to_abi(d);
    EXPECT_EQ(a.dtype, CONVCHECK_DTYPE_MIXED);
    EXPECT_EQ(a.src_dtype, CONVCHECK_BF16);
    EXPECT_EQ(a.weights_dtype, CONVCHECK_BF16);
    EXPECT_EQ(a.bias_dtype, CONVCHECK_F32);
    EXPECT_EQ(a.dst_dtype, CONVCHECK_F32);
    EXPECT_EQ(from_abi(a), d);
    const ConvDescriptor bias_only = parse_descriptor("conv:c=2,o=3,in=5,k=3,bias=1,dt=f16,bdt=f32");
    EXPECT_EQ(to_abi(bias_only).dtype, CONVCHECK_DTYPE_MIXED);
    EXPECT_EQ(from_abi(to_abi(bias_only)), bias_only);
    convcheck_conv_desc no_bias = to_abi(parse_descriptor("conv:c=2,o=3,in=5,k=3,dt=f16"));
    no_bias.bias_dtype = CONVCHECK_F32;  // no bias: not read
    EXPECT_EQ(from_abi(no_bias).bias_dtype(), DataType::f16);
    EXPECT_FALSE(from_abi(no_bias).mixed());
}

// from_abi (what the in-tree plugins read the descriptor with) never takes a case the canonical
// descriptor cannot hold as one it can; fields past struct_size are not read.
TEST(Descriptor, TheCanonicalReaderRefusesWhatItCannotHold) {
    const convcheck_conv_desc base = to_abi(parse_descriptor("conv:c=2,o=3,in=5,k=3"));
    convcheck_conv_desc mixed = base;
    mixed.dst_dtype = CONVCHECK_BF16;
    EXPECT_THROW(from_abi(mixed), ConvError);  // differing dtypes need dtype = CONVCHECK_DTYPE_MIXED
    mixed.dtype = CONVCHECK_DTYPE_MIXED;
    EXPECT_EQ(from_abi(mixed).dst_dtype(), DataType::bf16);
    convcheck_conv_desc not_mixed = base;
    not_mixed.dtype = CONVCHECK_DTYPE_MIXED;  // MIXED when every tensor agrees
    EXPECT_THROW(from_abi(not_mixed), ConvError);
    convcheck_conv_desc integer = mixed;
    integer.weights_dtype = CONVCHECK_S8;  // not a type the float descriptor holds (quantization.h's)
    EXPECT_THROW(from_abi(integer), ConvError);
    convcheck_conv_desc backward = base;
    backward.prop_kind = CONVCHECK_BACKWARD_DATA;  // the pass round-trips (docs/passes.md)
    EXPECT_EQ(from_abi(backward).pass, Pass::backward_data);
    EXPECT_EQ(to_abi(from_abi(backward)).prop_kind, CONVCHECK_BACKWARD_DATA);
    backward.prop_kind = CONVCHECK_BACKWARD_WEIGHTS;
    EXPECT_EQ(from_abi(backward).pass, Pass::backward_weights);
    convcheck_conv_desc unknown_pass = base;
    unknown_pass.prop_kind = 9;
    EXPECT_THROW(from_abi(unknown_pass), ConvError);
    const convcheck_extension extension{sizeof(convcheck_extension), 0x7ffe, nullptr};
    convcheck_conv_desc extended = base;
    extended.next = &extension;
    EXPECT_THROW(from_abi(extended), ConvError);
    // a writer before 1.2: whatever lies past its struct_size is not read
    convcheck_conv_desc old = backward;
    old.struct_size = CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, filter_format);
    old.dst_dtype = 77;
    old.next = &extension;
    EXPECT_EQ(from_abi(old).pass, Pass::forward);
}

TEST(Descriptor, TheRunnerRefusesWhatThePluginDoesNotClaim) {
    PluginInfo info;  // the defaults of a plugin that writes no 1.2 claim
    info.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_BF16);
    info.abi_major = 1;
    info.abi_minor = 2;
    const convcheck_conv_desc base = to_abi(parse_descriptor("conv:c=2,o=3,in=5,k=3"));
    EXPECT_EQ(unclaimed_abi(info, base), "");
    convcheck_conv_desc mixed = base;
    mixed.dtype = CONVCHECK_DTYPE_MIXED;
    mixed.dst_dtype = CONVCHECK_BF16;
    EXPECT_NE(unclaimed_abi(info, mixed).find("does not claim mixed_dtypes"), std::string::npos);
    for (const int32_t kind : {int32_t{CONVCHECK_BACKWARD_DATA}, int32_t{CONVCHECK_BACKWARD_WEIGHTS}, int32_t{9}}) {
        convcheck_conv_desc backward = base;
        backward.prop_kind = kind;
        EXPECT_NE(unclaimed_abi(info, backward).find("does not claim prop_kind"), std::string::npos) << kind;
    }
    // claimed: let through (the plugin's query decides); a tensor's dtype must still be claimed
    info.mixed_dtypes = true;
    info.prop_kinds |= CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA);
    EXPECT_EQ(unclaimed_abi(info, mixed), "");
    convcheck_conv_desc f16 = mixed;
    f16.weights_dtype = CONVCHECK_F16;
    EXPECT_NE(unclaimed_abi(info, f16).find("does not claim dtype f16"), std::string::npos);
    convcheck_conv_desc backward = base;
    backward.prop_kind = CONVCHECK_BACKWARD_DATA;
    EXPECT_EQ(unclaimed_abi(info, backward), "");
    // an extension chain never goes to a plugin that cannot see the field
    const convcheck_extension extension{sizeof(convcheck_extension), 0x7ffe, nullptr};
    convcheck_conv_desc extended = base;
    extended.next = &extension;
    EXPECT_EQ(unclaimed_abi(info, extended), "");  // 1.2: its query must decline the unknown tag
    info.abi_minor = 1;
    EXPECT_NE(unclaimed_abi(info, extended).find("built against ABI 1.1"), std::string::npos);
}

// A plugin that writes none of the 1.2 claims negotiates to the defaults; the reference, the optimized
// plugin and the mutants claim the backward passes they compute (docs/passes.md).
TEST(Descriptor, ThePluginsClaimTheDefaults) {
    for (const char* backend : {"reference", "optimized", "mutants"}) {
        auto s = open_backend(backend, {}, 0, "none", 30.0);
        EXPECT_EQ(s->backend.info.prop_kinds, CONVCHECK_BIT(CONVCHECK_FORWARD) | CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) |
                                                  CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS))
            << backend;
        // each tensor in its own dtype: the reference and the mutants read them so, the optimized plugin widens them
        EXPECT_TRUE(s->backend.info.mixed_dtypes) << backend;
    }
}

}  // namespace
