// The libtorch plugin's CC entry points (ABI 1.0 cc_query / cc_execute; libtorch_plugin.cpp hands them the
// instance's settings): the torch CC layer of cc_torch.hpp on the runner's buffers.
#pragma once

#include "convcheck/libtorch/cc_torch.hpp"
#include "convcheck/plugin.h"

namespace convcheck_libtorch {

struct CcSettings {
    int num_threads = 0;                           // 0: ATen's default
    cc::CcMethod method = cc::CcMethod::automatic;  // --backend-option cc_method=standard|discrete_convs
};

// Supported unless the forced method cannot compute the layer (cc::why_unavailable), with its reason.
convcheck_error* cc_query(const CcSettings& settings, const convcheck_cc_desc* desc, convcheck_support* out);
// dst = the layer on src; the implementation string names the method ("libtorch_cc_standard",
// "libtorch_cc_discrete_convs").
convcheck_error* cc_execute(const CcSettings& settings, const convcheck_cc_desc* desc, const convcheck_cc_args* args);
// The CC backward pass (ABI 1.4): the same layer through torch autograd (cc::cc_backward_buffers); the query
// answers as cc_query does. The implementation string names the method ("libtorch_cc_standard_autograd", ...).
convcheck_error* cc_backward_query(const CcSettings& settings, const convcheck_cc_desc& desc, convcheck_support* out);
convcheck_error* cc_backward_execute(const CcSettings& settings, const convcheck_cc_desc& desc,
                                     const convcheck_cc_backward_args& args);

}  // namespace convcheck_libtorch
