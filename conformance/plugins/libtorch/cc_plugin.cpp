// The libtorch plugin's CC entry points (cc_plugin.hpp).
#include "cc_plugin.hpp"

#include <ATen/Parallel.h>
#include <ATen/ops/from_blob.h>
#include <c10/core/InferenceMode.h>

#include <string>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/plugin_cc_backward.hpp"
#include "convcheck/plugin_support.hpp"
#include "libtorch_tensors.hpp"
#include "libtorch_threads.hpp"

namespace convcheck_libtorch {

namespace {

namespace support = convcheck_plugin_support;

bool covers_desc(const convcheck_cc_desc* desc) {
    return desc != nullptr && desc->struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_cc_desc, dtype);
}

// A read-only f32 tensor over runner memory (from_blob does not copy; nothing writes through it).
at::Tensor over_f32(const void* data, at::IntArrayRef sizes) {
    return at::from_blob(const_cast<void*>(data), sizes, at::TensorOptions().dtype(at::kFloat));
}

}  // namespace

convcheck_error* cc_query(const CcSettings& settings, const convcheck_cc_desc* desc, convcheck_support* out) {
    return support::guarded("cc_query", [&]() -> convcheck_error* {
        if (!covers_desc(desc)) return support::invalid_argument("cc_desc: NULL or smaller than ABI 1.0's convcheck_cc_desc");
        const convcheck::CcDescriptor d = convcheck::runner::from_abi(*desc);
        convcheck::validate(d);
        const std::string why = cc::why_unavailable(d, cc::chosen_method(d, settings.method));
        return why.empty() ? support::supported(out) : support::unsupported(out, why);
    });
}

convcheck_error* cc_execute(const CcSettings& settings, const convcheck_cc_desc* desc, const convcheck_cc_args* args) {
    return support::guarded("cc_execute", [&]() -> convcheck_error* {
        if (!covers_desc(desc) || args == nullptr || args->src == nullptr || args->dst == nullptr)
            return support::invalid_argument("cc_execute: NULL descriptor or buffers");
        const convcheck::CcDescriptor d = convcheck::runner::from_abi(*desc);
        convcheck::validate(d);
        if (d.kernel == convcheck::CcKernel::internal_net && args->theta == nullptr)
            return support::invalid_argument("cc_execute: kernel=net and theta is NULL");
        if (d.has_bias && args->bias == nullptr) return support::invalid_argument("cc_execute: has_bias and bias is NULL");
        return aten_errors([&]() -> convcheck_error* {
            use_threads(settings.num_threads);
            const c10::InferenceMode no_autograd;
            const cc::CcMethod method = cc::chosen_method(d, settings.method);
            cc::CcParameters p;
            if (d.kernel == convcheck::CcKernel::internal_net) p.theta = over_f32(args->theta, {d.theta_elements()});
            if (d.has_bias) p.bias = over_f32(args->bias, {d.out_channels});
            const at::Tensor dst = cc::cc_forward(d, over_f32(args->src, d.src_dims()), p, method);
            over_f32(args->dst, d.dst_dims()).copy_(dst);
            support::write_implementation(args, "libtorch_cc_" + std::string(cc::to_string(method)));
            return nullptr;
        });
    });
}

convcheck_error* cc_backward_query(const CcSettings& settings, const convcheck_cc_desc& desc, convcheck_support* out) {
    const convcheck::CcDescriptor d = convcheck::runner::from_abi(desc);
    convcheck::validate(d);
    const std::string why = cc::why_unavailable(d, cc::chosen_method(d, settings.method));
    return why.empty() ? support::supported(out) : support::unsupported(out, why);
}

convcheck_error* cc_backward_execute(const CcSettings& settings, const convcheck_cc_desc& desc,
                                     const convcheck_cc_backward_args& args) {
    const convcheck::CcDescriptor d = convcheck::runner::from_abi(desc);
    convcheck::validate(d);
    return aten_errors([&]() -> convcheck_error* {
        use_threads(settings.num_threads);
        const cc::CcMethod method = cc::cc_backward_buffers(
            d, settings.method, static_cast<const float*>(args.src), args.theta, static_cast<const float*>(args.diff_dst),
            static_cast<float*>(args.diff_src), args.diff_theta, static_cast<float*>(args.diff_bias));
        support::write_implementation(&args, "libtorch_cc_" + std::string(cc::to_string(method)) + "_autograd");
        return nullptr;
    });
}

}  // namespace convcheck_libtorch
