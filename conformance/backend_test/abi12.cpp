// ABI 1.2 at the plugin's boundary: a plugin that does not claim a backward pass, differing dtypes
// or an extension declines them at query, with a reason (it never computes them as a forward pass of
// one dtype), and reads the descriptor's 1.2 fields as their defaults when struct_size does not
// cover them. (The runner refuses what a plugin's claims do not cover before asking it: abi12_test.)
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "harness.hpp"

namespace convcheck::backend_test {
namespace {

// The core case (f32 2-D) in the formats the plugin claims, as the runner writes it.
convcheck_conv_desc core_desc() {
    ConvDescriptor d = parse_descriptor("conv:c=3,o=4,in=6x5,k=3x3,pb=1x1,pe=1x1,bias=1");
    if (!(plugin->info().data_formats & CONVCHECK_BIT(CONVCHECK_NCX))) d.data_format = DataFormat::nxc;
    if (!(plugin->info().filter_formats & CONVCHECK_BIT(CONVCHECK_OIX))) d.filter_format = FilterFormat::xio;
    return to_abi(d);
}

// In a child's body: conv_query's `supported` for a, its reason in `reason`; a finding on an error value.
std::string ask(const convcheck_api& api, convcheck_plugin* instance, const convcheck_conv_desc& a, int& supported,
                std::string& reason) {
    convcheck_support support{};
    support.struct_size = sizeof(support);
    support.supported = 1;
    if (std::string e = take_error(api, api.conv_query(instance, &a, &support)); !e.empty())
        return "conv_query returned an error: " + e;
    supported = support.supported;
    reason.assign(support.reason, strnlen(support.reason, sizeof(support.reason)));
    return "";
}

bool before_1_2() { return plugin->api().abi_minor < 2; }

// In one child: the core case is supported, then `a` is declined with a reason.
void expect_declined(const convcheck_conv_desc& a, const std::string& what) {
    const convcheck_conv_desc core = core_desc();
    EXPECT_KEPT(in_child([&](const convcheck_api& api, convcheck_plugin* instance) -> std::string {
                  int supported = 0;
                  std::string reason;
                  if (std::string e = ask(api, instance, core, supported, reason); !e.empty()) return e;
                  if (supported != 1) return "the core case is declined: " + reason;
                  if (std::string e = ask(api, instance, a, supported, reason); !e.empty()) return e;
                  if (supported != 0) return what + ": a plugin that does not claim it must decline it";
                  if (reason.empty()) return what + ": declined without a reason";
                  return "";
              }));
}

TEST(Abi12, DeclinesABackwardPassItDoesNotClaim) {
    if (before_1_2()) GTEST_SKIP() << "built before ABI 1.2: the runner sends it forward passes only";
    for (const int32_t kind : {int32_t{CONVCHECK_BACKWARD_DATA}, int32_t{CONVCHECK_BACKWARD_WEIGHTS}}) {
        if (plugin->info().prop_kinds & CONVCHECK_BIT(kind)) continue;
        convcheck_conv_desc a = core_desc();
        a.prop_kind = kind;
        expect_declined(a, "prop_kind " + std::to_string(kind));
    }
}

TEST(Abi12, DeclinesDifferingDtypesUnlessItClaimsThem) {
    if (before_1_2()) GTEST_SKIP() << "built before ABI 1.2: the runner sends it one dtype for every tensor";
    if (plugin->info().mixed_dtypes) GTEST_SKIP() << "it claims mixed dtypes";
    convcheck_conv_desc a = core_desc();
    a.dtype = CONVCHECK_DTYPE_MIXED;
    a.dst_dtype = CONVCHECK_BF16;
    expect_declined(a, "f32 inputs with a bf16 dst");
    a.dtype = CONVCHECK_F32;  // a writer that forgot CONVCHECK_DTYPE_MIXED: the tensor fields still rule
    expect_declined(a, "f32 inputs with a bf16 dst, dtype f32");
}

TEST(Abi12, DeclinesAnExtensionItDoesNotKnow) {
    if (before_1_2()) GTEST_SKIP() << "built before ABI 1.2: it cannot see the chain, and the runner sends none";
    const convcheck_extension scales{sizeof(convcheck_extension), 0x7ffe, nullptr};
    convcheck_conv_desc a = core_desc();
    a.next = &scales;
    expect_declined(a, "an extension with an unknown tag");
}

// A descriptor from a writer before 1.2: whatever lies past its struct_size (here values that no
// plugin could take) is not read; the answer is the full descriptor's.
TEST(Abi12, FieldsPastTheStructSizeAreTheirDefaults) {
    const convcheck_conv_desc full = core_desc();
    convcheck_conv_desc old = full;
    old.struct_size = CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, filter_format);
    old.src_dtype = old.weights_dtype = old.bias_dtype = old.dst_dtype = 99;
    old.prop_kind = 7;
    static const unsigned char garbage[64] = {0xab};
    old.next = reinterpret_cast<const convcheck_extension*>(garbage);
    EXPECT_KEPT(in_child([&](const convcheck_api& api, convcheck_plugin* instance) -> std::string {
                  int old_supported = 0, full_supported = 0;
                  std::string reason;
                  if (std::string e = ask(api, instance, old, old_supported, reason); !e.empty()) return e;
                  if (std::string e = ask(api, instance, full, full_supported, reason); !e.empty()) return e;
                  if (old_supported != full_supported)
                      return "a descriptor that ends before ABI 1.2's fields is answered " + std::to_string(old_supported) +
                             ", the full one " + std::to_string(full_supported) + ": fields past struct_size were read";
                  return "";
              }));
}

}  // namespace
}  // namespace convcheck::backend_test
