// convcheck plugin for libtorch on a CUDA device (cuDNN through ATen): the forward pass of convolution of ranks 1-3
// in f32, f16, bf16 and f64, groups, dilation, explicit pads, through at::convolution on tensors moved to the GPU
// (`.to(device)`), the result moved back to the CPU and copied into the runner's dst. The translation of a case is
// the libtorch plugin's (libtorch_plugin.cpp): layouts as strides, equal pads to ATen, the excess of a larger pad
// as explicit zeros and a negative pad as a crop (the adaptation); a result of another shape is not copied.
//
// Its name carries what the backends.json declarations need (docs/backends.md, "libtorch_cuda"):
//   torch-cuda-tf32  TF32 on (torch.backends.cudnn.allow_tf32, ATen's default for convolutions): f32 inputs are
//                    rounded to TF32 on tensor cores (declared input_precision tf32)
//   torch-cuda       TF32 off
// Both are declared with cuDNN's transform-based algorithms (a whole-tensor bound) and with the bias added after
// the convolution is rounded to dst, which at::convolution on cuDNN does as PyTorch does (SPEC-NOTES §9).
// The backward passes (data, weights + bias) and transposed convolution run the libtorch plugin's code
// (libtorch_backward.cpp, libtorch_transposed.cpp) with the device as an argument, so the libtorch plugin's tests
// cover the path; here the runner's tensors move to the GPU and the results back.
// Options (--backend-option): tf32=on|off (default: ATen's own setting, at::globalContext().allowTF32CuDNN());
// device=N, the CUDA device index (default 0).
//
// The source builds against any libtorch (torch/cuda.h is in CPU-only builds too). Where libtorch sees no CUDA
// device, torch::cuda::is_available() is false and every case is declined with that reason: Debian's libtorch is
// CPU-only, so there this plugin computes nothing.
#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/convolution.h>
#include <torch/cuda.h>

#include <memory>
#include <string>
#include <vector>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/plugin_backward.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/plugin_transposed.hpp"
#include "libtorch_backward.hpp"
#include "libtorch_tensors.hpp"
#include "libtorch_transposed.hpp"

#ifndef CONVCHECK_LIBTORCH_VERSION
#define CONVCHECK_LIBTORCH_VERSION "unknown"
#endif

namespace support = convcheck_plugin_support;

struct convcheck_plugin {
    bool tf32 = true;
    int device = 0;
};

using convcheck_libtorch::aten_errors;
using convcheck_libtorch::over;

namespace {

const char* const kNoDevice = "no CUDA device (torch::cuda::is_available() is false)";

// "" where the plugin can run a case on the device; else why not.
std::string no_device(const convcheck_plugin& plugin) {
    if (!torch::cuda::is_available()) return kNoDevice;
    const auto count = torch::cuda::device_count();
    if (static_cast<std::size_t>(plugin.device) >= count)
        return "no CUDA device " + std::to_string(plugin.device) + ": torch::cuda::device_count() is " + std::to_string(count);
    return "";
}

std::string not_computable(const convcheck_conv_desc& d) {
    if (d.dtype != CONVCHECK_F32 && d.dtype != CONVCHECK_F16 && d.dtype != CONVCHECK_BF16 && d.dtype != CONVCHECK_F64)
        return std::string("the libtorch_cuda plugin computes f32, f16, bf16 and f64, not ") + support::dtype_name(d.dtype);
    if (d.rank < 1 || d.rank > 3) return "libtorch convolution has spatial ranks 1-3, not " + std::to_string(d.rank);
    if (d.groups == 0)
        return "the libtorch_cuda plugin cannot express groups = 0 to ATen: the weights tensor at::convolution takes is "
               "[O, C/G, k...], and C/G has no value for G = 0";
    for (int a = 0; a < d.rank; ++a)
        if (d.strides[a] < 1) return "the libtorch_cuda plugin passes no stride below 1: the spec's dst shape is undefined there";
    return "";
}

at::ScalarType scalar_type(const convcheck_conv_desc& d) { return convcheck_libtorch::scalar_type_of(d.dtype); }

// The options: tf32=on|off, device=N, comma-separated items.
convcheck_error* parse_options(const std::string& text, convcheck_plugin& plugin) {
    for (const auto& [key, value] : support::option_items(text)) {
        if (key == "tf32") {
            if (value != "on" && value != "off") return support::invalid_argument("libtorch_cuda: tf32='" + value + "' is not on or off");
            plugin.tf32 = value == "on";
        } else if (key == "device") {
            if (value.empty() || value.size() > 3 || value.find_first_not_of("0123456789") != std::string::npos)
                return support::invalid_argument("libtorch_cuda: device='" + value + "' is not a CUDA device index (0, 1, ...)");
            plugin.device = std::stoi(value);
        } else {
            return support::invalid_argument("libtorch_cuda: unknown option '" + key + "' (tf32, device)");
        }
    }
    return nullptr;
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return support::guarded("libtorch_cuda create", [&]() -> convcheck_error* {
        auto plugin = std::make_unique<convcheck_plugin>();
        plugin->tf32 = at::globalContext().allowTF32CuDNN();
        if (CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options != nullptr)
            if (auto* e = parse_options(args->options, *plugin)) return e;
        *out = plugin.release();
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete plugin; }

convcheck_error* describe(convcheck_plugin* plugin, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = plugin->tf32 ? "torch-cuda-tf32" : "torch-cuda";  // keys its declarations in backends.json
    mine.version = CONVCHECK_LIBTORCH_VERSION;
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CONV_TRANSPOSED;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16) |
                  CONVCHECK_BIT(CONVCHECK_F64);
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO);
    mine.accumulation_dtype = CONVCHECK_F32;
    mine.prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD) | CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) |
                      CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS);
    return support::fill_info(info, mine);
}

convcheck_error* conv_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = support::check_conv_call(desc, nullptr)) return e;
    if (const std::string why = no_device(*plugin); !why.empty()) return support::unsupported(out, why);
    if (const std::string why = support::dense_only(*desc, "libtorch_cuda"); !why.empty()) return support::unsupported(out, why);
    const std::string why = not_computable(*desc);
    return why.empty() ? support::supported(out) : support::unsupported(out, why);
}

// The prepared case: the adaptation, the device, and the arguments of at::convolution.
struct Prepared : convcheck_conv_plan {
    Prepared(const convcheck_plugin& plugin, const convcheck_conv_desc& desc)
        : convcheck_conv_plan(desc), tf32(plugin.tf32), device(at::kCUDA, static_cast<c10::DeviceIndex>(plugin.device)),
          type(scalar_type(desc)),
          adaptation(support::plan_adaptation(
              desc, {desc.data_format, desc.filter_format, false, false, support::PadsRule::symmetric_nonnegative})),
          l(support::library_desc(desc, adaptation)) {
        std::string why = no_device(plugin);
        if (why.empty()) why = not_computable(desc);
        if (!why.empty()) throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, "prepare of an unsupported case: " + why);
        src_dims = {l.batch, l.in_channels};
        dst_dims = {l.batch, l.out_channels};
        wei_dims = {l.out_channels, l.in_channels / l.groups};
        for (int a = 0; a < l.rank; ++a) {
            src_dims.push_back(l.input_size[a]);
            dst_dims.push_back(support::output_size(l, a));
            wei_dims.push_back(l.kernel_size[a]);
            strides.push_back(l.strides[a]);
            dilations.push_back(l.dilations[a]);
            pads.push_back(l.pads_begin[a]);  // == pads_end[a] >= 0
        }
        no_output_padding.assign(l.rank, 0);
    }

    convcheck_error* execute(const convcheck_conv_args& args) override {
        return aten_errors([&] { return run(args); });
    }

    convcheck_error* run(const convcheck_conv_args& args) {
        at::globalContext().setAllowTF32CuDNN(tf32);
        support::LibraryBuffers buffers(desc, adaptation, args);
        const at::Tensor src = over(buffers.src(), src_dims, support::activation_order(l), type).to(device);
        const at::Tensor weights = over(buffers.weights(), wei_dims, support::weights_order(l), type).to(device);
        const c10::optional<at::Tensor> bias =
            desc.has_bias ? c10::optional<at::Tensor>(over(buffers.bias(), {l.out_channels}, {0}, type).to(device)) : c10::nullopt;
        const at::Tensor result =
            at::convolution(src, weights, bias, strides, pads, dilations, false, no_output_padding, l.groups).to(at::kCPU);
        std::string implementation = std::string("libtorch_cuda:") + device.str() + (tf32 ? " tf32" : "") +
                                     support::adaptation_note(desc, adaptation);
        // copied only when the shape and type are exactly the spec's (copy_ would broadcast anything smaller)
        if (result.sizes() == at::IntArrayRef(dst_dims) && result.scalar_type() == type) {
            over(buffers.dst(), dst_dims, support::activation_order(l), type).copy_(result);
            buffers.return_dst();
        } else {
            implementation += " (at::convolution returned shape " + c10::str(result.sizes()) + " " +
                              c10::toString(result.scalar_type()) + ", the spec's dst is " + c10::str(at::IntArrayRef(dst_dims)) +
                              ": nothing written)";
        }
        support::write_implementation(&args, implementation);
        return nullptr;
    }

    const bool tf32;
    const at::Device device;
    const at::ScalarType type;
    const support::Adaptation adaptation;
    const convcheck_conv_desc l;  // the case ATen computes
    std::vector<int64_t> src_dims, dst_dims, wei_dims, strides, dilations, pads, no_output_padding;
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const support::PrepareInputs&) {
    return std::make_unique<Prepared>(*plugin, desc);
}

at::Device cuda_device(const convcheck_plugin& plugin) { return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(plugin.device)); }

// Backward data and backward weights (+ bias): at::convolution_backward on the device (libtorch_backward.cpp).
convcheck_error* backward_execute(convcheck_plugin* plugin, const convcheck_conv_desc& desc, const convcheck_conv_args& args) {
    std::string why = no_device(*plugin);
    if (why.empty()) why = support::dense_only(desc, "libtorch_cuda");
    if (why.empty()) why = not_computable(desc);
    if (!why.empty()) return support::make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    return aten_errors([&] {
        at::globalContext().setAllowTF32CuDNN(plugin->tf32);
        const at::Device device = cuda_device(*plugin);
        return convcheck_libtorch::backward_compute(desc, scalar_type(desc), device,
                                                    "libtorch_cuda:" + device.str() + (plugin->tf32 ? " tf32" : ""), args);
    });
}

// Transposed convolution: at::convolution (transposed = true) on the device (libtorch_transposed.cpp). "" where the
// plugin computes t; else why not.
std::string transposed_not_computable(const convcheck_plugin& plugin, const convcheck_conv_transposed_desc& t) {
    if (const std::string why = no_device(plugin); !why.empty()) return why;
    if (t.dtype != CONVCHECK_F32 && t.dtype != CONVCHECK_F16 && t.dtype != CONVCHECK_BF16 && t.dtype != CONVCHECK_F64)
        return std::string("the libtorch_cuda plugin computes f32, f16, bf16 and f64, not ") + support::dtype_name(t.dtype);
    if (t.filter_format != CONVCHECK_OIX && t.filter_format != CONVCHECK_XIO) return "OIX or XIO weights only";
    if ((t.dtype == CONVCHECK_F16 || t.dtype == CONVCHECK_BF16) && !convcheck_libtorch::transposed_direct(t))
        return "ATen's padding and output_padding cannot say this case's pads (pb >= 0 and output_padding + pb - pe "
               "below the stride or the dilation); the plugin crops an f32 or f64 result only (an f16 or bf16 one would "
               "be rounded before the bias is added)";
    return "";
}

convcheck_error* transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t, convcheck_support* out) {
    if (const std::string why = no_device(*plugin); !why.empty()) return support::unsupported(out, why);
    if (const std::string why = convcheck_libtorch::transposed_inexpressible(t); !why.empty()) return support::invalid_argument(why);
    const std::string why = transposed_not_computable(*plugin, t);
    return why.empty() ? support::supported(out) : support::unsupported(out, why);
}

convcheck_error* transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc& t,
                                    const convcheck_conv_args& args) {
    if (const std::string why = convcheck_libtorch::transposed_inexpressible(t); !why.empty()) return support::invalid_argument(why);
    if (const std::string why = transposed_not_computable(*plugin, t); !why.empty())
        return support::make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    return aten_errors([&] {
        at::globalContext().setAllowTF32CuDNN(plugin->tf32);
        const at::Device device = cuda_device(*plugin);
        return convcheck_libtorch::transposed_compute(t, device, "libtorch_cuda:" + device.str() + (plugin->tf32 ? " tf32" : ""),
                                                      args);
    });
}

const convcheck_api api = [] {
    convcheck_api a = support::basic_api(create, destroy, describe);
    support::add_conv<prepare>(a, conv_query);
    support::add_backward<prepare, conv_query, backward_execute>(a);  // the same query: the same limits
    support::add_conv_transposed<transposed_query, transposed_execute>(a);
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
