// What every third-party backend plugin needs around its backend calls, and nothing else:
// the plugin's error type, the struct_size checks of the ABI, and the exception barrier.
//
// A plugin includes only the ABI header, this one and adaptation.hpp (exact data movement, beside
// this file): it never links convcheck's convolution code, so a plugin computes with its backend or
// not at all (no fallback to our reference or optimized code).
#pragma once

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "convcheck/plugin.h"

// The opaque error of the ABI: created by the plugin, read and freed through its own table.
struct convcheck_error {
    std::string message;
};

namespace convcheck_plugin_support {

inline convcheck_error* make_error(std::string message) { return new convcheck_error{std::move(message)}; }
inline const char* error_message(const convcheck_error* error) { return error ? error->message.c_str() : ""; }
inline void error_destroy(convcheck_error* error) { delete error; }

// Runs `body` (which returns convcheck_error*), turning any C++ exception into an error value:
// nothing C++ crosses the ABI boundary (plugin.h).
template <typename Body>
convcheck_error* guarded(const char* what, Body&& body) noexcept {
    try {
        return body();
    } catch (const std::exception& e) {
        return make_error(std::string(what) + ": " + e.what());
    } catch (...) {
        return make_error(std::string(what) + ": unknown exception");
    }
}

// A caller-filled struct is readable up to `last field` only when its struct_size covers it.
#define CONVCHECK_HAS_FIELD(ptr, type, last_field) \
    ((ptr) != nullptr && (ptr)->struct_size >= CONVCHECK_STRUCT_SIZE(type, last_field))

// Answers "not supported" with the reason, truncated to the runner's buffer.
inline convcheck_error* unsupported(convcheck_support* out, const std::string& reason) {
    out->supported = 0;
    std::snprintf(out->reason, sizeof(out->reason), "%s", reason.c_str());
    return nullptr;
}
inline convcheck_error* supported(convcheck_support* out) {
    out->supported = 1;
    out->reason[0] = '\0';
    return nullptr;
}

// Writes the backend's implementation name into the runner's optional buffer.
inline void write_implementation(const convcheck_conv_args* args, const std::string& name) {
    if (!CONVCHECK_HAS_FIELD(args, convcheck_conv_args, implementation_capacity)) return;
    if (args->implementation == nullptr || args->implementation_capacity == 0) return;
    std::snprintf(args->implementation, args->implementation_capacity, "%s", name.c_str());
}

// Fills the fields of *info that the caller's struct_size covers (it may know fewer fields).
inline convcheck_error* fill_info(convcheck_plugin_info* info, const convcheck_plugin_info& mine) {
    if (info == nullptr || info->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_plugin_info, name))
        return make_error("describe: info is NULL or its struct_size is too small for any field");
    const std::size_t size = info->struct_size < sizeof(mine) ? info->struct_size : sizeof(mine);
    std::memcpy(reinterpret_cast<char*>(info) + sizeof(size_t), reinterpret_cast<const char*>(&mine) + sizeof(size_t),
                size - sizeof(size_t));
    return nullptr;
}

// The thread count the runner allows (0: the backend's default). These plugins take no
// options (ABI 1.1): a non-empty options string is refused, as plugin.h asks.
inline convcheck_error* read_create_args(const convcheck_create_args* args, int* num_threads) {
    *num_threads = CONVCHECK_HAS_FIELD(args, convcheck_create_args, num_threads) ? args->num_threads : 0;
    if (*num_threads < 0) return make_error("create: num_threads " + std::to_string(*num_threads) + " is negative");
#if CONVCHECK_ABI_MINOR >= 1
    if (CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options != nullptr && args->options[0] != '\0')
        return make_error(std::string("create: this plugin takes no options, got \"") + args->options + "\"");
#endif
    return nullptr;
}

// The descriptor and the buffers must carry every field of ABI 1.0.
inline convcheck_error* check_conv_call(const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    if (!CONVCHECK_HAS_FIELD(desc, convcheck_conv_desc, filter_format))
        return make_error("conv_desc: NULL or struct_size smaller than ABI 1.0's convcheck_conv_desc");
    if (args != nullptr && !CONVCHECK_HAS_FIELD(args, convcheck_conv_args, dst))
        return make_error("conv_args: struct_size smaller than ABI 1.0's convcheck_conv_args up to dst");
    if (args != nullptr && (args->src == nullptr || args->weights == nullptr || args->dst == nullptr ||
                            (desc->has_bias && args->bias == nullptr)))
        return make_error("conv_args: src, weights and dst must be non-NULL, and bias when has_bias = 1");
    return nullptr;
}

// Output size on one axis: floor((in + pb + pe - ((k-1)*d + 1)) / s) + 1 (plugin.h).
inline long long output_size(const convcheck_conv_desc& d, int axis) {
    const long long extent = (d.kernel_size[axis] - 1) * d.dilations[axis] + 1;
    const long long span = d.input_size[axis] + d.pads_begin[axis] + d.pads_end[axis] - extent;
    return span < 0 ? 0 : span / d.strides[axis] + 1;
}

// Strides (in elements) of a dense buffer whose dims are listed logically in `dims` and laid out
// in memory in the order `physical` (outermost first; each entry an index into dims).
inline std::vector<int64_t> dense_strides(const std::vector<int64_t>& dims, const std::vector<int>& physical) {
    std::vector<int64_t> strides(dims.size());
    int64_t step = 1;
    for (auto it = physical.rbegin(); it != physical.rend(); ++it) {
        strides[*it] = step;
        step *= dims[*it];
    }
    return strides;
}

// Memory order of logical {N, C, spatial...} for the runner's data format: NCX as listed, NXC
// with C last.
inline std::vector<int> activation_order(const convcheck_conv_desc& d) {
    std::vector<int> physical{0};
    if (d.data_format == CONVCHECK_NCX) physical.push_back(1);
    for (int a = 0; a < d.rank; ++a) physical.push_back(2 + a);
    if (d.data_format == CONVCHECK_NXC) physical.push_back(1);
    return physical;
}

// Memory order of logical {O, I/G, k...} for the runner's filter format: OIX as listed, XIO as
// [k...][I/G][O].
inline std::vector<int> weights_order(const convcheck_conv_desc& d) {
    std::vector<int> physical;
    if (d.filter_format == CONVCHECK_OIX) {
        for (int i = 0; i < d.rank + 2; ++i) physical.push_back(i);
    } else {
        for (int a = 0; a < d.rank; ++a) physical.push_back(2 + a);
        physical.push_back(1);
        physical.push_back(0);
    }
    return physical;
}

inline const char* dtype_name(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F32: return "f32";
        case CONVCHECK_F16: return "f16";
        case CONVCHECK_BF16: return "bf16";
        case CONVCHECK_F64: return "f64";
        default: return "unknown";
    }
}

}  // namespace convcheck_plugin_support
