// The C++ side of a backend plugin, for plugin authors (installed beside plugin.h; C++17): the
// plugin's error type with its code, the struct_size checks of the ABI, the exception barrier, the
// function table with the entries every plugin shares (basic_api), and prepare/execute written
// once (a plugin writes one `prepare` returning a plan; add_conv makes conv_prepare,
// conv_plan_execute, conv_plan_describe, conv_plan_destroy and the one-shot conv_execute from it).
// Each further pass or operation has its own header beside it: plugin_backward.hpp (add_backward),
// plugin_transposed.hpp, plugin_cc_backward.hpp.
//
// It needs only plugin.h and the standard library: a plugin that includes it links nothing of
// convcheck, so it computes with its own backend or not at all.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "convcheck/plugin.h"
#include "convcheck/plugin_layout.hpp"

// The opaque error of the ABI: created by the plugin, read and freed through its own table.
struct convcheck_error {
    int32_t code;  // convcheck_error_code
    std::string message;
};

// The opaque plan of the ABI (1.2) for plugins built on this header: a plugin derives its plan from
// it. It keeps its own copy of the descriptor (the runner's is valid during conv_prepare only).
struct convcheck_conv_plan {
    explicit convcheck_conv_plan(const convcheck_conv_desc& d) : desc(d) {}
    virtual ~convcheck_conv_plan() = default;
    convcheck_conv_plan(const convcheck_conv_plan&) = delete;
    convcheck_conv_plan& operator=(const convcheck_conv_plan&) = delete;
    // One convolution into args.dst; args are checked (buffers non-NULL). Throws or returns an error.
    virtual convcheck_error* execute(const convcheck_conv_args& args) = 0;
    // What conv_plan_describe reports (convcheck_plan_info): scratch per execute, memory held.
    virtual uint64_t workspace_bytes() const { return 0; }
    virtual uint64_t plan_bytes() const { return 0; }
    const convcheck_conv_desc desc;
};

namespace convcheck_plugin_support {

// A plugin's options text (convcheck_create_args: "key=value,key=value", from --backend-option): its items in order
// as {key, value}, empty items left out, a key without '=' with the value "".
inline std::vector<std::pair<std::string, std::string>> option_items(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> items;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, end - start);
        start = end + 1;
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        items.emplace_back(item.substr(0, eq), eq == std::string::npos ? "" : item.substr(eq + 1));
    }
    return items;
}

// Never throws: when even the error cannot be allocated, NULL would read as success, so a static
// out-of-memory error stands in (error_destroy never frees it).
inline convcheck_error* out_of_memory_error() {
    static convcheck_error e{CONVCHECK_ERROR_OUT_OF_MEMORY, "out of memory (allocating the error message)"};
    return &e;
}
inline convcheck_error* make_error(std::string message, int32_t code = CONVCHECK_ERROR_INTERNAL) noexcept {
    try {
        return new convcheck_error{code, std::move(message)};
    } catch (...) {
        return out_of_memory_error();
    }
}
inline convcheck_error* invalid_argument(std::string message) {
    return make_error(std::move(message), CONVCHECK_ERROR_INVALID_ARGUMENT);
}
inline const char* error_message(const convcheck_error* error) { return error ? error->message.c_str() : ""; }
inline int32_t error_code(const convcheck_error* error) { return error ? error->code : CONVCHECK_ERROR_UNKNOWN; }
inline void error_destroy(convcheck_error* error) {
    if (error != out_of_memory_error()) delete error;
}

// An exception with an error code, for code that throws (guarded turns it into an error value).
class PluginError : public std::runtime_error {
public:
    PluginError(int32_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
    int32_t code() const { return code_; }

private:
    int32_t code_;
};

// Runs `body` (which returns convcheck_error*), turning any C++ exception into an error value:
// nothing C++ crosses the ABI boundary (plugin.h). std::bad_alloc is out of memory,
// std::invalid_argument (a descriptor the backend's own checks refuse) an invalid argument.
template <typename Body>
convcheck_error* guarded(const char* what, Body&& body) noexcept {
    try {
        return body();
    } catch (const PluginError& e) {
        return make_error(std::string(what) + ": " + e.what(), e.code());
    } catch (const std::bad_alloc& e) {
        return make_error(std::string(what) + ": " + e.what(), CONVCHECK_ERROR_OUT_OF_MEMORY);
    } catch (const std::invalid_argument& e) {
        return make_error(std::string(what) + ": " + e.what(), CONVCHECK_ERROR_INVALID_ARGUMENT);
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
    if (out == nullptr) return invalid_argument("query: the support struct is NULL");
    out->supported = 0;
    std::snprintf(out->reason, sizeof(out->reason), "%s", reason.c_str());
    return nullptr;
}
inline convcheck_error* supported(convcheck_support* out) {
    if (out == nullptr) return invalid_argument("query: the support struct is NULL");
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
inline void write_implementation(const convcheck_cc_args* args, const std::string& name) {
    if (!CONVCHECK_HAS_FIELD(args, convcheck_cc_args, implementation_capacity)) return;
    if (args->implementation == nullptr || args->implementation_capacity == 0) return;
    std::snprintf(args->implementation, args->implementation_capacity, "%s", name.c_str());
}

// Copies the fields of `mine` that the caller's struct_size covers into the caller's struct (an
// older caller knows fewer fields: nothing past its struct_size is written).
template <typename Struct>
void copy_covered(Struct* caller, const Struct& mine) {
    const std::size_t size = caller->struct_size < sizeof(mine) ? caller->struct_size : sizeof(mine);
    std::memcpy(reinterpret_cast<char*>(caller) + sizeof(size_t), reinterpret_cast<const char*>(&mine) + sizeof(size_t),
                size - sizeof(size_t));
}

// describe: fills the fields of *info that the caller's struct_size covers.
inline convcheck_error* fill_info(convcheck_plugin_info* info, const convcheck_plugin_info& mine) {
    if (info == nullptr || info->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_plugin_info, name))
        return invalid_argument("describe: info is NULL or its struct_size is too small for any field");
    copy_covered(info, mine);
    return nullptr;
}

// The thread count the runner allows (0: the backend's default). These plugins take no
// options (ABI 1.1): a non-empty options string is refused, as plugin.h asks.
inline convcheck_error* read_create_args(const convcheck_create_args* args, int* num_threads) {
    *num_threads = CONVCHECK_HAS_FIELD(args, convcheck_create_args, num_threads) ? args->num_threads : 0;
    if (*num_threads < 0) return invalid_argument("create: num_threads " + std::to_string(*num_threads) + " is negative");
    if (CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options != nullptr && args->options[0] != '\0')
        return invalid_argument(std::string("create: this plugin takes no options, got \"") + args->options + "\"");
    return nullptr;
}

// ---- the descriptor's 1.2 fields, with their defaults ---------------------------------------------

// The dtype of each tensor: the 1.2 fields, or `dtype` for every tensor when struct_size does not
// cover them.
struct TensorDtypes {
    int32_t src, weights, bias, dst;
};
inline TensorDtypes tensor_dtypes(const convcheck_conv_desc& d) {
    if (d.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, dst_dtype)) return {d.dtype, d.dtype, d.dtype, d.dtype};
    return {d.src_dtype, d.weights_dtype, d.bias_dtype, d.dst_dtype};
}
// The pass (convcheck_prop_kind): forward when struct_size does not cover prop_kind.
inline int32_t prop_kind(const convcheck_conv_desc& d) {
    return d.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, prop_kind) ? d.prop_kind : CONVCHECK_FORWARD;
}
// The extension chain: NULL when struct_size does not cover next.
inline const convcheck_extension* extensions(const convcheck_conv_desc& d) {
    return d.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, next) ? d.next : nullptr;
}

// "" when every tensor has the descriptor's dtype and there is no extension; else why a plugin
// that takes one dtype and knows no extension declines it (plugin.h: an unknown tag declines).
// With mixed_dtypes (a plugin that claims them), tensors of differing dtypes pass when `dtype` says
// CONVCHECK_DTYPE_MIXED: the plugin reads each tensor's own.
inline std::string beyond_one_dtype(const convcheck_conv_desc& d, bool mixed_dtypes = false) {
    const TensorDtypes t = tensor_dtypes(d);
    const bool differ = t.src != d.dtype || t.weights != d.dtype || t.bias != d.dtype || t.dst != d.dtype;
    if (differ && !(mixed_dtypes && d.dtype == CONVCHECK_DTYPE_MIXED))
        return "this plugin takes one dtype for every tensor, not src " + std::to_string(t.src) + ", weights " +
               std::to_string(t.weights) + ", bias " + std::to_string(t.bias) + ", dst " + std::to_string(t.dst) +
               " (dtype " + std::to_string(d.dtype) + ")";
    if (const convcheck_extension* e = extensions(d))
        return "this plugin knows no extension: unknown tag " + std::to_string(e->tag) + " in the descriptor's chain";
    return "";
}

// "" when the descriptor asks for what every plugin before 1.2 computed: the forward pass, one dtype
// for every tensor, no extension; else why a plugin that computes only that declines it. The entries
// add_conv makes decline such a case at query and refuse it at prepare and execute
// (CONVCHECK_ERROR_UNIMPLEMENTED), so that no plugin on this header reads a mixed-dtype case as its
// `dtype`, a backward pass as forward, or skips an extension.
inline std::string beyond_forward_one_dtype(const convcheck_conv_desc& d, bool mixed_dtypes = false) {
    if (const int32_t kind = prop_kind(d); kind != CONVCHECK_FORWARD)
        return "this plugin computes the forward pass only, not prop_kind " + std::to_string(kind) +
               (kind == CONVCHECK_BACKWARD_DATA ? " (backward data)" : kind == CONVCHECK_BACKWARD_WEIGHTS ? " (backward weights)" : "");
    return beyond_one_dtype(d, mixed_dtypes);
}

// ---- the caller's workspace and thread pool (1.2) --------------------------------------------------

// The runner's workspace for this execute when it gave one of at least `bytes`; NULL otherwise (the
// plan then allocates its own).
inline void* given_workspace(const convcheck_conv_args& args, uint64_t bytes) {
    if (args.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_args, workspace_size) || args.workspace == nullptr ||
        args.workspace_size < bytes)
        return nullptr;
    return args.workspace;
}

// The caller's thread pool from create's arguments; NULL when not given (or not covered).
inline const convcheck_thread_pool* read_thread_pool(const convcheck_create_args* args) {
    if (!CONVCHECK_HAS_FIELD(args, convcheck_create_args, thread_pool) || args->thread_pool == nullptr) return nullptr;
    const convcheck_thread_pool* pool = args->thread_pool;
    return CONVCHECK_HAS_FIELD(pool, convcheck_thread_pool, run) && pool->run != nullptr ? pool : nullptr;
}

// body(i) for every i in [0, n): as tasks on the caller's pool when there is one, else in this
// thread. An exception in a task stays in the task (plugin.h: a task must not throw); the first is
// rethrown here once all have returned.
template <typename Body>
void parallel_for(const convcheck_thread_pool* pool, std::size_t n, Body&& body) {
    if (pool == nullptr || n <= 1) {
        for (std::size_t i = 0; i < n; ++i) body(i);
        return;
    }
    struct Context {
        Body* body;
        std::mutex mutex;
        std::exception_ptr error;
    } context{&body, {}, nullptr};
    const auto task = [](void* c, std::size_t i) {
        auto* x = static_cast<Context*>(c);
        try {
            (*x->body)(i);
        } catch (...) {
            const std::lock_guard<std::mutex> lock(x->mutex);
            if (!x->error) x->error = std::current_exception();
        }
    };
    pool->run(pool->context, task, &context, n);
    if (context.error) std::rethrow_exception(context.error);
}

// Output size on one axis: floor((in + pb + pe - ((k-1)*d + 1)) / s) + 1 (plugin.h).
inline long long output_size(const convcheck_conv_desc& d, int axis) {
    const long long extent = (d.kernel_size[axis] - 1) * d.dilations[axis] + 1;
    const long long span = d.input_size[axis] + d.pads_begin[axis] + d.pads_end[axis] - extent;
    return span < 0 ? 0 : span / d.strides[axis] + 1;
}

// Bytes of one element of a convcheck_dtype; 0 for a value it does not name.
inline std::size_t dtype_bytes(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F32: return 4;
        case CONVCHECK_F16:
        case CONVCHECK_BF16: return 2;
        case CONVCHECK_F64: return 8;
        case CONVCHECK_F8_E4M3:  // 1.7
        case CONVCHECK_F8_E5M2: return 1;
        default: return 0;
    }
}

// Image n of the batch alone (NCX and NXC both keep the batch outermost): the descriptor with
// batch 1, and the buffers moved to that image (weights and bias are shared). For a forward pass
// with one dtype; a plugin splits its work by image this way, e.g. one task per image on the pool.
inline convcheck_conv_desc one_image(const convcheck_conv_desc& d) {
    convcheck_conv_desc one = d;
    one.batch = 1;
    return one;
}
// Elements of src ({N, C, input...}) and of dst ({N, O, output...}).
inline long long src_elements(const convcheck_conv_desc& d) {
    long long n = d.batch * d.in_channels;
    for (int axis = 0; axis < d.rank; ++axis) n *= d.input_size[axis];
    return n;
}
inline long long dst_elements(const convcheck_conv_desc& d) {
    long long n = d.batch * d.out_channels;
    for (int axis = 0; axis < d.rank; ++axis) n *= output_size(d, axis);
    return n;
}
// Image n starts n batch pitches in: a strided tensor's batch stride (ABI 1.2 memory layout, entry 0
// in NCX and NXC alike), else one dense image.
inline convcheck_conv_args image_args(const convcheck_conv_desc& d, const convcheck_conv_args& a, int64_t n) {
    const convcheck_conv_desc one = one_image(d);
    const bool layout = d.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, dst_strides);
    const long long src_pitch = layout && d.src_strides[0] != 0 ? d.src_strides[0] : src_elements(one);
    const long long dst_pitch = layout && d.dst_strides[0] != 0 ? d.dst_strides[0] : dst_elements(one);
    // each tensor's own element size (they differ in a mixed-dtype case)
    const TensorDtypes t = tensor_dtypes(d);
    convcheck_conv_args image = a;
    image.src = static_cast<const char*>(a.src) + static_cast<std::size_t>(n * src_pitch) * dtype_bytes(t.src);
    image.dst = static_cast<char*>(a.dst) + static_cast<std::size_t>(n * dst_pitch) * dtype_bytes(t.dst);
    return image;
}

// The buffers of one execute: src, weights and dst, and bias when has_bias.
inline convcheck_error* check_conv_args(const convcheck_conv_desc& desc, const convcheck_conv_args* args) {
    if (!CONVCHECK_HAS_FIELD(args, convcheck_conv_args, dst))
        return invalid_argument("conv_args: NULL or struct_size smaller than ABI 1.0's convcheck_conv_args up to dst");
    if (args->src == nullptr || args->weights == nullptr || args->dst == nullptr || (desc.has_bias && args->bias == nullptr))
        return invalid_argument("conv_args: src, weights and dst must be non-NULL, and bias when has_bias = 1");
    return nullptr;
}

// The descriptor and the buffers must carry every field of ABI 1.0 (args NULL: a query).
inline convcheck_error* check_conv_call(const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    if (!CONVCHECK_HAS_FIELD(desc, convcheck_conv_desc, filter_format))
        return invalid_argument("conv_desc: NULL or struct_size smaller than ABI 1.0's convcheck_conv_desc");
    return args != nullptr ? check_conv_args(*desc, args) : nullptr;
}

// add_conv's gate: what its entries compute is the forward pass in one dtype with no extension, and, for a plugin
// that takes quantized convolution (add_quantized, plugin_quantized.hpp), a quantized case as ABI 1.5 writes it.
// quantized_gate<Prepare> is that plugin's: true when desc is a quantized case, with *why "" when it is one
// the helper describes, else why not.
using QuantizedGate = bool (*)(const convcheck_conv_desc& desc, std::string* why);
template <typename Tag>
inline QuantizedGate quantized_gate = nullptr;
// takes_mixed_dtypes<Tag>: a plugin that claims mixed_dtypes (convcheck_plugin_info) sets it for its Prepare's tag
// before add_conv; its gate then lets a forward case of per-tensor float dtypes through to its own query, which
// declines the combinations it lacks.
template <typename Tag>
inline bool takes_mixed_dtypes = false;
// post_ops_gate<Prepare> likewise, for a plugin that takes fused post-ops (add_post_ops, plugin_post_ops.hpp).
template <typename Tag>
inline QuantizedGate post_ops_gate = nullptr;
// scales_gate<Prepare> likewise, for a plugin that takes a float case's scales (add_scales, plugin_scales.hpp): "" when
// it takes the scales of desc, else why not.
using ScalesGate = std::string (*)(const convcheck_conv_desc& desc);
template <typename Tag>
inline ScalesGate scales_gate = nullptr;
template <typename Tag>
std::string beyond_gate(const convcheck_conv_desc& desc) {
    std::string why;
    // ABI 1.7: a float case's scales extension, first on the chain (the runner puts it there): taken only by a plugin
    // that says so; the rest of the chain and the descriptor then pass the gates below as they would without it
    if (const convcheck_extension* e = extensions(desc); e != nullptr && e->tag == CONVCHECK_EXTENSION_SCALES) {
        if (scales_gate<Tag> == nullptr)
            return "this plugin takes no scales (the scales extension, tag " + std::to_string(e->tag) + ")";
        if (std::string no = scales_gate<Tag>(desc); !no.empty()) return no;
        convcheck_conv_desc rest = desc;
        rest.next = e->next;
        return beyond_gate<Tag>(rest);
    }
    if (quantized_gate<Tag> != nullptr && quantized_gate<Tag>(desc, &why)) return why;
    if (post_ops_gate<Tag> != nullptr && post_ops_gate<Tag>(desc, &why)) return why;
    return beyond_forward_one_dtype(desc, takes_mixed_dtypes<Tag>);
}

// check_conv_call, then add_conv's gate (beyond_gate).
template <typename Tag>
convcheck_error* check_expressible(const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    if (auto* e = check_conv_call(desc, args)) return e;
    if (const std::string why = beyond_gate<Tag>(*desc); !why.empty()) return make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    return nullptr;
}

// ---- prepare once, execute many (ABI 1.2) -------------------------------------------------------

// What conv_prepare may use beyond the descriptor: the weights and bias every execute of the plan
// will receive, or NULL when they come only with each execute (convcheck_conv_prepare_args).
struct PrepareInputs {
    const void* weights = nullptr;
    const void* bias = nullptr;
};

// A plugin's prepare: the plan for a descriptor (checked against ABI 1.0's size, not yet
// validated). Throws (PluginError for a code) when it cannot make one.
using PrepareFn = std::unique_ptr<convcheck_conv_plan> (*)(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                                           const PrepareInputs& inputs);
// The type that names a plugin's Prepare in templates keyed by it (quantized_gate).
template <PrepareFn Prepare>
struct PrepareTag {};

template <PrepareFn Prepare>
convcheck_error* conv_prepare(convcheck_plugin* plugin, const convcheck_conv_desc* desc,
                              const convcheck_conv_prepare_args* args, convcheck_conv_plan** out) {
    return guarded("conv_prepare", [&]() -> convcheck_error* {
        if (auto* e = check_expressible<PrepareTag<Prepare>>(desc, nullptr)) return e;
        if (out == nullptr) return invalid_argument("conv_prepare: out is NULL");
        PrepareInputs inputs;
        if (CONVCHECK_HAS_FIELD(args, convcheck_conv_prepare_args, bias)) inputs = {args->weights, args->bias};
        *out = Prepare(plugin, *desc, inputs).release();
        return nullptr;
    });
}

inline convcheck_error* conv_plan_describe(const convcheck_conv_plan* plan, convcheck_plan_info* info) {
    return guarded("conv_plan_describe", [&]() -> convcheck_error* {
        if (plan == nullptr || !CONVCHECK_HAS_FIELD(info, convcheck_plan_info, workspace_bytes))
            return invalid_argument("conv_plan_describe: NULL plan, or info NULL or too small for workspace_bytes");
        convcheck_plan_info mine{};
        mine.struct_size = sizeof(mine);
        mine.workspace_bytes = plan->workspace_bytes();
        mine.plan_bytes = plan->plan_bytes();
        copy_covered(info, mine);
        return nullptr;
    });
}

inline convcheck_error* conv_plan_execute(convcheck_conv_plan* plan, const convcheck_conv_args* args) {
    return guarded("conv_plan_execute", [&]() -> convcheck_error* {
        if (plan == nullptr) return invalid_argument("conv_plan_execute: the plan is NULL");
        if (auto* e = check_conv_args(plan->desc, args)) return e;
        return plan->execute(*args);
    });
}

inline void conv_plan_destroy(convcheck_conv_plan* plan) { delete plan; }

// The one-shot conv_execute of a plugin whose work is in its plan: prepare (with this call's
// weights), execute once, destroy.
template <PrepareFn Prepare>
convcheck_error* conv_execute_once(convcheck_plugin* plugin, const convcheck_conv_desc* desc,
                                   const convcheck_conv_args* args) {
    return guarded("conv_execute", [&]() -> convcheck_error* {
        if (auto* e = check_expressible<PrepareTag<Prepare>>(desc, args)) return e;
        const std::unique_ptr<convcheck_conv_plan> plan = Prepare(plugin, *desc, PrepareInputs{args->weights, args->bias});
        return plan->execute(*args);
    });
}

// The function table with what every plugin shares: sizes, versions, the error entries, and the
// three instance entries; the operations are added with add_conv (and cc_query / cc_execute set
// by hand).
inline convcheck_api basic_api(convcheck_error* (*create)(const convcheck_create_args*, convcheck_plugin**),
                               void (*destroy)(convcheck_plugin*),
                               convcheck_error* (*describe)(convcheck_plugin*, convcheck_plugin_info*)) {
    convcheck_api a{};
    a.struct_size = sizeof(a);
    a.abi_major = CONVCHECK_ABI_MAJOR;
    a.abi_minor = CONVCHECK_ABI_MINOR;
    a.create = create;
    a.destroy = destroy;
    a.describe = describe;
    a.error_message = error_message;
    a.error_destroy = error_destroy;
    a.error_code = error_code;
    return a;
}

using QueryFn = convcheck_error* (*)(convcheck_plugin*, const convcheck_conv_desc*, convcheck_support*);
// The plugin's own conv_query, behind the 1.2 gate (one per Prepare: add_conv sets it).
template <PrepareFn Prepare>
inline QueryFn plugin_query = nullptr;
template <PrepareFn Prepare>
convcheck_error* gated_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    return guarded("conv_query", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, nullptr)) return e;
        if (const std::string why = beyond_gate<PrepareTag<Prepare>>(*desc); !why.empty()) return unsupported(out, why);
        return plugin_query<Prepare>(plugin, desc, out);
    });
}

// Discrete convolution through a plan: conv_query (the plugin's, after the 1.2 gate: a backward
// pass, differing dtypes or an extension are declined before it is asked; beyond_forward_one_dtype),
// the four plan entries, and conv_execute as prepare + execute + destroy.
template <PrepareFn Prepare>
void add_conv(convcheck_api& a, QueryFn query) {
    plugin_query<Prepare> = query;
    a.conv_query = gated_query<Prepare>;
    a.conv_execute = conv_execute_once<Prepare>;
    a.conv_prepare = conv_prepare<Prepare>;
    a.conv_plan_describe = conv_plan_describe;
    a.conv_plan_execute = conv_plan_execute;
    a.conv_plan_destroy = conv_plan_destroy;
}

inline const char* dtype_name(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F32: return "f32";
        case CONVCHECK_F16: return "f16";
        case CONVCHECK_BF16: return "bf16";
        case CONVCHECK_F64: return "f64";
        case CONVCHECK_U8: return "u8";  // 1.5
        case CONVCHECK_S8: return "s8";
        case CONVCHECK_S32: return "s32";
        case CONVCHECK_F8_E4M3: return "f8_e4m3";  // 1.7
        case CONVCHECK_F8_E5M2: return "f8_e5m2";
        default: return "unknown";
    }
}

}  // namespace convcheck_plugin_support
