// Plugins built against the ABI 1.0 to 1.8 headers (old_abi_plugin.c, compiled with the frozen
// headers) load into today's runner and pass as they did: the runner reads no table entry past the
// plugin's struct_size (the table is followed by non-NULL bytes: reading them would call garbage),
// takes every entry added since as its documented default (no error codes, no plan: the one-shot
// conv_execute), and runs their cases to the same verdicts.
#include <gtest/gtest.h>

#include <string>

#include "convcheck/runner/abi_claims.hpp"
#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

struct OldPlugin {
    const char* path;
    int minor;
};

class OldAbi : public ::testing::TestWithParam<OldPlugin> {};

TEST_P(OldAbi, LoadsWithTheDefaultsOfEveryLaterEntry) {
    const Plugin plugin = Plugin::load(GetParam().path);
    EXPECT_EQ(plugin.api().abi_major, 1);
    EXPECT_EQ(plugin.api().abi_minor, GetParam().minor);
    EXPECT_EQ(plugin.api().error_code, nullptr);
    EXPECT_FALSE(plugin.has_conv_plan());
    EXPECT_EQ(plugin.api().conv_plan_destroy, nullptr);
}

TEST_P(OldAbi, PassesItsCasesThroughTheOneShotCall) {
    auto session = open_backend(GetParam().path, {}, 0, "none", 10.0);
    EXPECT_EQ(session->backend.info.abi_minor, GetParam().minor);
    EXPECT_EQ(session->backend.info.accumulation_dtype, CONVCHECK_F32);
    CheckSettings settings;
    int passed = 0;
    for (const Case& c : expand("old", {SuiteEntry("conv:n=2,c=4,o=6,g=2,in=7x6,k=3x2,s=2x1,d=1x2,pb=1x0,pe=0x1,bias=1", "bep"),
                                        SuiteEntry("conv:c=3,o=2,in=9,k=4,pb=2,pe=-1", "be"),
                                        SuiteEntry("conv:c=2,o=2,in=4x3x5,k=2x2x3,bias=1", "be")},
                                1, "")) {
        const CaseResult r = check_case(session->backend, c, settings);
        EXPECT_EQ(to_string(r.status), std::string("passed")) << r.reason << "\n  reproducer: " << r.reproducer;
        EXPECT_EQ(r.implementation, "abi_" + std::to_string(1) + "_" + std::to_string(GetParam().minor) + "_direct_loops");
        EXPECT_FALSE(r.workspace_bytes.has_value()) << "no plan, no workspace report";
        passed += r.status == Status::passed;
    }
    EXPECT_EQ(passed, 7);
}

// The 1.2 claims it cannot write read as their defaults (forward only, one dtype), so the runner never
// sends it a backward pass, differing dtypes or an extension chain (a field it cannot see).
TEST_P(OldAbi, IsSentNothingBeyondWhatItsVersionCanRead) {
    auto session = open_backend(GetParam().path, {}, 0, "none", 10.0);
    const PluginInfo& info = session->backend.info;
    EXPECT_EQ(info.prop_kinds, CONVCHECK_BIT(CONVCHECK_FORWARD));
    EXPECT_FALSE(info.mixed_dtypes);
    const convcheck_conv_desc base = to_abi(parse_descriptor("conv:c=2,o=3,in=5,k=3"));
    EXPECT_EQ(unclaimed_abi(info, base), "");
    convcheck_conv_desc backward = base;
    backward.prop_kind = CONVCHECK_BACKWARD_WEIGHTS;
    EXPECT_NE(unclaimed_abi(info, backward), "");
    convcheck_conv_desc mixed = base;
    mixed.dtype = CONVCHECK_DTYPE_MIXED;
    mixed.bias_dtype = CONVCHECK_F16;
    EXPECT_NE(unclaimed_abi(info, mixed), "");
    if (GetParam().minor < 2) {  // 1.2 has the chain (and declines a tag it does not know itself)
        const convcheck_extension extension{sizeof(convcheck_extension), 1, nullptr};
        convcheck_conv_desc extended = base;
        extended.next = &extension;
        EXPECT_NE(unclaimed_abi(info, extended).find("built against ABI 1." + std::to_string(GetParam().minor)),
                  std::string::npos);
    }
}

// 1.3's transposed convolution: an older table has no conv_transposed entries (the runner reads none past
// its struct_size: the bytes after it are not NULL), and every transposed case is declined by its claims.
TEST_P(OldAbi, HasNoTransposedConvolution) {
    const Plugin plugin = Plugin::load(GetParam().path);
    EXPECT_EQ(plugin.api().conv_transposed_query, nullptr);
    EXPECT_EQ(plugin.api().conv_transposed_execute, nullptr);
    auto session = open_backend(GetParam().path, {}, 0, "none", 10.0);
    CheckSettings settings;
    for (const Case& c : expand("old", {SuiteEntry("deconv:c=2,o=3,in=4,k=3,s=2,op=1", "be")}, 1, "")) {
        const CaseResult r = check_case(session->backend, c, settings);
        EXPECT_EQ(r.status, Status::unsupported) << r.reason;
        EXPECT_NE(r.reason.find("does not claim transposed convolution"), std::string::npos) << r.reason;
    }
}

// 1.4's CC backward pass: an older table has no cc_backward entries (none is read past its struct_size),
// and every CC backward case is declined, counted, never sent: by the missing bit, or, for the 1.3 build
// that sets bit 8 (undefined in 1.3), by the plugin's version.
TEST_P(OldAbi, HasNoCcBackward) {
    const Plugin plugin = Plugin::load(GetParam().path);
    EXPECT_EQ(plugin.api().cc_backward_query, nullptr);
    EXPECT_EQ(plugin.api().cc_backward_execute, nullptr);
    auto session = open_backend(GetParam().path, {}, 0, "none", 10.0);
    CheckSettings settings;
    for (const Case& c :
         expand("old", {SuiteEntry("cc:n=2,cin=2,cout=2,in=6x7,scale=3/2,support=3x3,kernel=net,bias=1,dir=bwd", "b")}, 1, "")) {
        ASSERT_EQ(c.op, Op::cc_backward);
        const CaseResult r = check_case(session->backend, c, settings);
        EXPECT_EQ(r.status, Status::unsupported) << r.reason;
        const std::string why = GetParam().minor == 3 ? "built against ABI 1.3, which has no CC backward pass (ABI 1.4)"
                                                      : "does not claim the backward pass of continuous convolution";
        EXPECT_NE(r.reason.find(why), std::string::npos) << r.reason;
    }
}

// 1.5's integer data types: every quantized case is declined by the plugin's version, never sent; also by the 1.4
// build that sets the dtype bits 4 to 6 (undefined in 1.4: 1.5 gives them to u8, s8 and s32).
TEST_P(OldAbi, HasNoIntegerTypes) {
    auto session = open_backend(GetParam().path, {}, 0, "none", 10.0);
    CheckSettings settings;
    for (const Case& c : expand("old", {SuiteEntry("qconv:c=2,o=3,in=5,k=3,bias=1,dt=u8:s8:u8,szp=3", "e")}, 1, "")) {
        ASSERT_EQ(c.op, Op::conv_quantized);
        const CaseResult r = check_case(session->backend, c, settings);
        EXPECT_EQ(r.status, Status::unsupported) << r.reason;
        EXPECT_NE(r.reason.find("built against ABI 1." + std::to_string(GetParam().minor) +
                                ", which has no integer data types (quantized convolution: ABI 1.5)"),
                  std::string::npos)
            << r.reason;
    }
}

INSTANTIATE_TEST_SUITE_P(Versions, OldAbi, ::testing::Values(OldPlugin{ABI_1_0_PLUGIN, 0}, OldPlugin{ABI_1_1_PLUGIN, 1},
                                                           OldPlugin{ABI_1_2_PLUGIN, 2}, OldPlugin{ABI_1_3_PLUGIN, 3},
                                                           OldPlugin{ABI_1_4_PLUGIN, 4}),
                         [](const auto& info) { return "abi_1_" + std::to_string(info.param.minor); });

// An error from a plugin before 1.2 has no code: the message is the plugin's, with no code named.
TEST(OldAbiErrors, AnErrorCarriesNoCode) {
    try {
        open_backend(ABI_1_1_PLUGIN, {"x=1"}, 0, "none", 10.0);
        FAIL() << "the 1.1 plugin refuses options";
    } catch (const PluginError& e) {
        EXPECT_NE(std::string(e.what()).find("create: abi_1_1 takes no options"), std::string::npos) << e.what();
    }
    // a 1.0 plugin never sees the options (its struct_size check stops before them)
    EXPECT_NO_THROW(open_backend(ABI_1_0_PLUGIN, {"x=1"}, 0, "none", 10.0));
}

}  // namespace

// 1.6's post-ops: a case with a chain is declined by the plugin's version, never sent (the 1.5 build too, whose
// plugin_info ends before the post-op claims).
TEST(OldAbiPostOps, EveryVersionBefore16DeclinesAChain) {
    const std::pair<const char*, int> plugins[] = {{ABI_1_0_PLUGIN, 0}, {ABI_1_1_PLUGIN, 1}, {ABI_1_2_PLUGIN, 2},
                                                   {ABI_1_3_PLUGIN, 3}, {ABI_1_4_PLUGIN, 4}, {ABI_1_5_PLUGIN, 5}};
    for (const auto& [path, minor] : plugins) {
        auto session = open_backend(path, {}, 0, "none", 10.0);
        CheckSettings settings;
        for (const Case& c : expand("old", {SuiteEntry("conv:c=2,o=3,in=5,k=3,po=relu+add:per_oc", "be")}, 1, "")) {
            const CaseResult r = check_case(session->backend, c, settings);
            EXPECT_EQ(r.status, Status::unsupported) << r.reason;
            EXPECT_NE(r.reason.find("built against ABI 1." + std::to_string(minor) +
                                    ", which has no post-ops (fused post-ops: ABI 1.6)"),
                      std::string::npos)
                << r.reason;
        }
    }
}

// 1.7's fp8 data types: a case with an fp8 tensor is declined by the plugin's version, never sent (also the 1.6 build
// that sets the dtype bits 7 and 8, undefined in 1.6: 1.7 gives them to f8_e4m3 and f8_e5m2).
TEST(OldAbiFp8, EveryVersionBefore17DeclinesFp8) {
    const std::pair<const char*, int> plugins[] = {{ABI_1_0_PLUGIN, 0}, {ABI_1_1_PLUGIN, 1}, {ABI_1_2_PLUGIN, 2},
                                                   {ABI_1_3_PLUGIN, 3}, {ABI_1_4_PLUGIN, 4}, {ABI_1_5_PLUGIN, 5},
                                                   {ABI_1_6_PLUGIN, 6}};
    for (const auto& [path, minor] : plugins) {
        auto session = open_backend(path, {}, 0, "none", 10.0);
        CheckSettings settings;
        for (const Case& c : expand("old", {SuiteEntry("conv:c=2,o=3,in=5,k=3,dt=f8_e4m3", "be")}, 1, "")) {
            const CaseResult r = check_case(session->backend, c, settings);
            EXPECT_EQ(r.status, Status::unsupported) << r.reason;
            EXPECT_NE(r.reason.find("built against ABI 1." + std::to_string(minor) +
                                    ", which has no fp8 data types (f8_e4m3, f8_e5m2: ABI 1.7)"),
                      std::string::npos)
                << r.reason;
        }
    }
}

// 1.7's general output of a quantized case (a float dst, a rounded s32 dst, post-ops beside the quantization): a
// plugin of 1.5 or 1.6, which knows the quantization extension, is never sent one; its version declines it.
TEST(OldAbiQuantizedGeneral, Versions15And16DeclineTheGeneralOutput) {
    const std::pair<const char*, int> plugins[] = {{ABI_1_5_PLUGIN, 5}, {ABI_1_6_PLUGIN, 6}};
    for (const auto& [path, minor] : plugins) {
        auto session = open_backend(path, {}, 0, "none", 10.0);
        CheckSettings settings;
        for (const char* descriptor : {"qconv:c=2,o=3,in=5,k=3,dt=u8:s8:f32,ssc=0.5", "qconv:c=2,o=3,in=5,k=3,dt=u8:s8:s32,ssc=0.5",
                                       "qconv:c=2,o=3,in=5,k=3,dt=u8:s8:u8,po=relu"})
            for (const Case& c : expand("old", {SuiteEntry(descriptor, "b")}, 1, "")) {
                const CaseResult r = check_case(session->backend, c, settings);
                EXPECT_EQ(r.status, Status::unsupported) << r.reason;
                EXPECT_NE(r.reason.find("built against ABI 1." + std::to_string(minor) +
                                        ", which has no float dst, rounded s32 dst or post-ops for a quantized case"),
                          std::string::npos)
                    << descriptor << ": " << r.reason;
            }
    }
}

// 1.8's per-output-channel weights zero points: a plugin of 1.5 to 1.7, which has one weights_zero_point per tensor,
// is never sent them; its version declines the case (before its dtype claims are read).
TEST(OldAbiQuantizedWeightsZeroPoints, Versions15To17DeclinePerChannelWeightsZeroPoints) {
    const std::pair<const char*, int> plugins[] = {{ABI_1_5_PLUGIN, 5}, {ABI_1_6_PLUGIN, 6}, {ABI_1_7_PLUGIN, 7}};
    for (const auto& [path, minor] : plugins) {
        auto session = open_backend(path, {}, 0, "none", 10.0);
        CheckSettings settings;
        for (const Case& c : expand("old", {SuiteEntry("qconv:c=2,o=3,in=5,k=3,dt=u8:s8:u8,wzp=oc", "e")}, 1, "")) {
            const CaseResult r = check_case(session->backend, c, settings);
            EXPECT_EQ(r.status, Status::unsupported) << r.reason;
            EXPECT_NE(r.reason.find("built against ABI 1." + std::to_string(minor) +
                                    ", which has one weights zero point per tensor (per-output-channel weights zero "
                                    "points: ABI 1.8"),
                      std::string::npos)
                << r.reason;
        }
    }
}

// 1.9's per-output-channel dst scales (an ONNX QDQ model's per-axis y_scale): a plugin of 1.5 to 1.8, which has one
// dst_scale per tensor, is never sent them; its version declines the case (before its dtype claims are read).
TEST(OldAbiQuantizedDstScales, Versions15To18DeclinePerChannelDstScales) {
    const std::pair<const char*, int> plugins[] = {
        {ABI_1_5_PLUGIN, 5}, {ABI_1_6_PLUGIN, 6}, {ABI_1_7_PLUGIN, 7}, {ABI_1_8_PLUGIN, 8}};
    for (const auto& [path, minor] : plugins) {
        auto session = open_backend(path, {}, 0, "none", 10.0);
        CheckSettings settings;
        for (const Case& c :
             expand("old", {SuiteEntry("qconv:c=2,o=3,in=5,k=3,dt=u8:s8:u8,acc=f32,dsc=0.5:0.25:2", "b")}, 1, "")) {
            const CaseResult r = check_case(session->backend, c, settings);
            EXPECT_EQ(r.status, Status::unsupported) << r.reason;
            EXPECT_NE(r.reason.find("built against ABI 1." + std::to_string(minor) +
                                    ", which has one dst scale per tensor (per-output-channel dst scales: ABI 1.9"),
                      std::string::npos)
                << r.reason;
        }
    }
}
