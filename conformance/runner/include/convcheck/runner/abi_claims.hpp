// The ABI 1.2 claims (convcheck_plugin_info.prop_kinds, mixed_dtypes) against a descriptor: the
// runner sends a backward pass only to a plugin that claims it, differing dtypes only to one that
// claims mixed_dtypes, and an extension chain only to a plugin built against 1.2 or later (an older
// one cannot see the field, so could not decline an unknown tag). A case beyond them is refused
// (unsupported, with the reason) before any plugin call: no plugin ever reads a mixed-dtype case as
// one dtype, or a backward pass as forward. (The claims of 1.0 — dtypes, ranks, formats — are
// checked on the canonical descriptor: check.cpp.)
#pragma once

#include <string>

#include "convcheck/plugin.h"
#include "convcheck/runner/plugin_loader.hpp"

namespace convcheck::runner {

// "" when the plugin's claims cover the descriptor's 1.2 fields; else why not.
std::string unclaimed_abi(const PluginInfo& info, const convcheck_conv_desc& desc);
// "" when the plugin claims the pass (convcheck_prop_kind) in prop_kinds; else why not. A case of a pass the
// plugin does not claim is declined before anything else is looked at, and counted apart by the coverage
// (coverage.hpp: the floor applies to the cases of the passes a backend claims).
std::string unclaimed_pass(const PluginInfo& info, int32_t prop_kind);

}  // namespace convcheck::runner
