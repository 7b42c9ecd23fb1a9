// convcheck plugin for XNNPACK (libxnnpack, the operator API of the 2022-02 snapshot Debian ships):
// 2-D convolution, NHWC, f32 and f16, groups, dilation, explicit pads.
//
// The translation (xnnpack.h, xnn_create_convolution2d_nhwc_f32 / _f16):
//   pads        input_padding_top/right/bottom/left = pads_begin[0], pads_end[1], pads_end[0],
//               pads_begin[1]; they are unsigned, so a negative pad is unsupported.
//   strides     subsampling_height/width; dilations dilation_height/width, 1-based like ours.
//   groups      groups, group_input_channels = C/G, group_output_channels = O/G; the channel strides
//               of the dense NHWC tensors are C and O.
//   weights     XNNPACK reads [G][O/G][kh][kw][I/G] ("OHWI per group"): we reorder OIX or XIO into
//               it here (a permutation of elements, part of calling the backend); bias is [O].
//   data        NHWC only (XNNPACK's operator is NHWC): only NXC is claimed.
//   output      no clamping: output_min/max = -inf/+inf.
// XNNPACK may read up to XNN_EXTRA_BYTES past the end of an input array (xnnpack.h); the runner's
// buffers are exactly sized, so the input goes through a padded copy owned by the plugin.
#include <pthreadpool.h>
#include <xnnpack.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugin_support.hpp"

#ifndef CONVCHECK_XNNPACK_VERSION
#define CONVCHECK_XNNPACK_VERSION "unknown"
#endif

namespace support = convcheck_plugin_support;

struct convcheck_plugin {
    pthreadpool_t threadpool = nullptr;
};

namespace {

const char* status_name(xnn_status s) {
    switch (s) {
        case xnn_status_success: return "success";
        case xnn_status_uninitialized: return "uninitialized";
        case xnn_status_invalid_parameter: return "invalid_parameter";
        case xnn_status_invalid_state: return "invalid_state";
        case xnn_status_unsupported_parameter: return "unsupported_parameter";
        case xnn_status_unsupported_hardware: return "unsupported_hardware";
        case xnn_status_out_of_memory: return "out_of_memory";
    }
    return "unknown status";
}

// What this XNNPACK cannot express, as a reason; "" when it can.
std::string inexpressible(const convcheck_conv_desc& d) {
    if (d.dtype != CONVCHECK_F32 && d.dtype != CONVCHECK_F16)
        return std::string("XNNPACK's convolution2d_nhwc operators take f32 or f16, not ") + support::dtype_name(d.dtype);
    if (d.rank != 2) return "XNNPACK has 2-D convolution only (convolution2d_nhwc), rank " + std::to_string(d.rank) + " asked";
    if (d.data_format != CONVCHECK_NXC) return "XNNPACK's convolution operators are NHWC only; NCX data asked";
    for (int a = 0; a < 2; ++a)
        if (d.pads_begin[a] < 0 || d.pads_end[a] < 0)
            return "XNNPACK's input_padding_* are unsigned: negative pad " +
                   std::to_string(d.pads_begin[a] < 0 ? d.pads_begin[a] : d.pads_end[a]) + " on axis " + std::to_string(a) +
                   " cannot be expressed";
    for (int a = 0; a < 2; ++a)
        for (int64_t v : {d.kernel_size[a], d.strides[a], d.dilations[a], d.pads_begin[a], d.pads_end[a]})
            if (v > UINT32_MAX) return "XNNPACK's kernel, stride, dilation and pad parameters are uint32_t: " + std::to_string(v) + " does not fit";
    if (d.groups > UINT32_MAX) return "XNNPACK's groups is uint32_t: " + std::to_string(d.groups) + " does not fit";
    return "";
}

// Weights in XNNPACK's [G][O/G][kh][kw][I/G] order, from OIX ([O][I/G][kh][kw]) or XIO
// ([kh][kw][I/G][O]); O = g * O/G + oc in both. Elements are moved as bytes: no arithmetic.
std::vector<unsigned char> weights_for_xnnpack(const convcheck_conv_desc& d, const void* weights) {
    const size_t bytes = d.dtype == CONVCHECK_F32 ? 4 : 2;
    const int64_t O = d.out_channels, I = d.in_channels / d.groups, KH = d.kernel_size[0], KW = d.kernel_size[1];
    std::vector<unsigned char> out(O * I * KH * KW * bytes + XNN_EXTRA_BYTES);
    const auto* in = static_cast<const unsigned char*>(weights);
    for (int64_t o = 0; o < O; ++o)
        for (int64_t i = 0; i < I; ++i)
            for (int64_t kh = 0; kh < KH; ++kh)
                for (int64_t kw = 0; kw < KW; ++kw) {
                    const int64_t from = d.filter_format == CONVCHECK_OIX ? ((o * I + i) * KH + kh) * KW + kw
                                                                          : ((kh * KW + kw) * I + i) * O + o;
                    const int64_t to = ((o * KH + kh) * KW + kw) * I + i;  // G and O/G are contiguous in o
                    std::memcpy(out.data() + to * bytes, in + from * bytes, bytes);
                }
    return out;
}

std::vector<unsigned char> padded_copy(const void* data, size_t bytes) {
    std::vector<unsigned char> out(bytes + XNN_EXTRA_BYTES);
    std::memcpy(out.data(), data, bytes);
    return out;
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return support::guarded("xnnpack create", [&]() -> convcheck_error* {
        int num_threads = 0;
        if (auto* e = support::read_create_args(args, &num_threads)) return e;
        const xnn_status s = xnn_initialize(nullptr);
        if (s != xnn_status_success) return support::make_error(std::string("xnn_initialize: ") + status_name(s));
        auto plugin = new convcheck_plugin();
        // pthreadpool_create(0) uses every logical processor; 1 runs on the calling thread.
        plugin->threadpool = pthreadpool_create(static_cast<size_t>(num_threads));
        *out = plugin;
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) {
    if (plugin == nullptr) return;
    if (plugin->threadpool != nullptr) pthreadpool_destroy(plugin->threadpool);
    delete plugin;
    xnn_deinitialize();
}

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "xnnpack";
    mine.version = CONVCHECK_XNNPACK_VERSION;
    mine.operations = CONVCHECK_OP_CONV;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16);
    mine.ranks = CONVCHECK_BIT(2);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO);
    mine.accumulation_dtype = CONVCHECK_F32;  // f32; f16 cases declare their own in conformance/data
    return support::fill_info(info, mine);
}

// Creates the operator (XNNPACK packs the weights here); throws nothing, returns the status.
xnn_status create_operator(const convcheck_conv_desc& d, const void* weights, const void* bias, xnn_operator_t* op) {
    const uint32_t top = d.pads_begin[0], left = d.pads_begin[1], bottom = d.pads_end[0], right = d.pads_end[1];
    const size_t group_in = d.in_channels / d.groups, group_out = d.out_channels / d.groups;
    if (d.dtype == CONVCHECK_F32)
        return xnn_create_convolution2d_nhwc_f32(
            top, right, bottom, left, d.kernel_size[0], d.kernel_size[1], d.strides[0], d.strides[1], d.dilations[0],
            d.dilations[1], d.groups, group_in, group_out, d.in_channels, d.out_channels, static_cast<const float*>(weights),
            static_cast<const float*>(bias), -INFINITY, INFINITY, 0, op);
    return xnn_create_convolution2d_nhwc_f16(top, right, bottom, left, d.kernel_size[0], d.kernel_size[1], d.strides[0],
                                             d.strides[1], d.dilations[0], d.dilations[1], d.groups, group_in, group_out,
                                             d.in_channels, d.out_channels, weights, bias, -INFINITY, INFINITY, 0, op);
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = support::check_conv_call(desc, nullptr)) return e;
    return support::guarded("xnnpack conv_query", [&]() -> convcheck_error* {
        const std::string why = inexpressible(*desc);
        if (!why.empty()) return support::unsupported(out, why);
        // Ask XNNPACK itself: create an operator with zero weights (f32 and f16 zero are all-zero bytes).
        const convcheck_conv_desc& d = *desc;
        const size_t bytes = d.dtype == CONVCHECK_F32 ? 4 : 2;
        std::vector<unsigned char> weights(d.out_channels * (d.in_channels / d.groups) * d.kernel_size[0] * d.kernel_size[1] *
                                           bytes + XNN_EXTRA_BYTES);
        std::vector<unsigned char> bias(d.out_channels * bytes + XNN_EXTRA_BYTES);
        xnn_operator_t op = nullptr;
        const xnn_status s = create_operator(d, weights.data(), d.has_bias ? bias.data() : nullptr, &op);
        if (op != nullptr) xnn_delete_operator(op);
        if (s == xnn_status_success) return support::supported(out);
        std::string why_not = std::string("XNNPACK refused the operator: ") + status_name(s);
        if (s == xnn_status_unsupported_hardware) why_not += " (no kernels for this dtype on this CPU)";
        return support::unsupported(out, why_not);
    });
}

convcheck_error* conv_execute(convcheck_plugin* plugin, const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    if (auto* e = support::check_conv_call(desc, args)) return e;
    return support::guarded("xnnpack conv_execute", [&]() -> convcheck_error* {
        const convcheck_conv_desc& d = *desc;
        const std::string why = inexpressible(d);
        if (!why.empty()) return support::make_error("execute of an unsupported case: " + why);
        const size_t bytes = d.dtype == CONVCHECK_F32 ? 4 : 2;
        const std::vector<unsigned char> weights = weights_for_xnnpack(d, args->weights);
        const std::vector<unsigned char> bias = d.has_bias ? padded_copy(args->bias, d.out_channels * bytes)
                                                           : std::vector<unsigned char>();
        const std::vector<unsigned char> src =
            padded_copy(args->src, d.batch * d.input_size[0] * d.input_size[1] * d.in_channels * bytes);
        xnn_operator_t op = nullptr;
        xnn_status s = create_operator(d, weights.data(), d.has_bias ? bias.data() : nullptr, &op);
        if (s != xnn_status_success) return support::make_error(std::string("xnn_create_convolution2d_nhwc: ") + status_name(s));
        s = d.dtype == CONVCHECK_F32
                ? xnn_setup_convolution2d_nhwc_f32(op, d.batch, d.input_size[0], d.input_size[1],
                                                   reinterpret_cast<const float*>(src.data()), static_cast<float*>(args->dst),
                                                   plugin->threadpool)
                : xnn_setup_convolution2d_nhwc_f16(op, d.batch, d.input_size[0], d.input_size[1], src.data(), args->dst,
                                                   plugin->threadpool);
        if (s == xnn_status_success) s = xnn_run_operator(op, plugin->threadpool);
        xnn_delete_operator(op);
        if (s != xnn_status_success) return support::make_error(std::string("xnn_setup/run_operator: ") + status_name(s));
        support::write_implementation(args, std::string("xnnpack:convolution2d_nhwc_") + support::dtype_name(d.dtype));
        return nullptr;
    });
}

const convcheck_api api = {
    sizeof(convcheck_api), CONVCHECK_ABI_MAJOR, CONVCHECK_ABI_MINOR, create, destroy, describe, conv_query, conv_execute,
    nullptr, nullptr, support::error_message, support::error_destroy,
};

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
