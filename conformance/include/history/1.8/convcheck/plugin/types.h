/* convcheck plugin ABI, part of plugin.h (include that): what every operation shares. The enumerations,
 * the claim bits, the opaque objects, the extension chain, and the arguments of the calls every plugin
 * has (create, describe, the queries' answer). The conventions (struct_size, ownership, processes and
 * threads) are at the top of plugin.h. */
#ifndef CONVCHECK_PLUGIN_TYPES_H
#define CONVCHECK_PLUGIN_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- enumerations (stored as int32_t in structs) -------------------------------------------- */
/* 1.5: the integers of quantized convolution, U8, S8 (src, weights, dst) and S32 (bias, dst), come only with
 * the quantization extension (convcheck/plugin/quantization.h), which says what they mean. */
typedef enum {
    CONVCHECK_F32 = 0,
    CONVCHECK_F16 = 1,
    CONVCHECK_BF16 = 2,
    CONVCHECK_F64 = 3,
    CONVCHECK_U8 = 4,  /* 1.5 */
    CONVCHECK_S8 = 5,  /* 1.5 */
    CONVCHECK_S32 = 6, /* 1.5 */
    CONVCHECK_F8_E4M3 = 7, /* 1.7: OCP 8-bit floating point E4M3 (bias 7, no infinities, NaN S.1111.111, max 448) */
    CONVCHECK_F8_E5M2 = 8  /* 1.7: OCP 8-bit floating point E5M2 (bias 15, IEEE-like infinities and NaNs, max 57344) */
} convcheck_dtype;
/* 1.7: the fp8 types are one byte each. A value converted into them (dst) rounds to nearest, ties to even, and
 * does not saturate: an E4M3 overflow is its NaN S.1111.111, an E5M2 overflow infinity (docs/fp8.md). The runner
 * sends a case with an fp8 tensor only to a plugin of 1.7 or later that claims the type in plugin_info.dtypes. */
/* NCX = [N][C][spatial...]; NXC = [N][spatial...][C] */
typedef enum { CONVCHECK_NCX = 0, CONVCHECK_NXC = 1 } convcheck_data_format;
/* OIX = [O][I/G][spatial...]; XIO = [spatial...][I/G][O]; 1.2: OXI = [O][spatial...][I/G] (OHWI) */
typedef enum { CONVCHECK_OIX = 0, CONVCHECK_XIO = 1, CONVCHECK_OXI = 2 } convcheck_filter_format;
/* 1.2: the tensors of a discrete convolution, for convcheck_plugin_info.strided_tensors. */
typedef enum { CONVCHECK_TENSOR_SRC = 0, CONVCHECK_TENSOR_WEIGHTS = 1, CONVCHECK_TENSOR_DST = 2 } convcheck_tensor;
/* The continuous kernel of a CC layer: the learned Internal-Net, or an analytic stand-in. */
typedef enum {
    CONVCHECK_CC_INTERNAL_NET = 0,
    CONVCHECK_CC_LINEAR = 1,
    CONVCHECK_CC_CUBIC = 2,   /* Keys cubic, a = -0.5 */
    CONVCHECK_CC_GAUSSIAN = 3 /* exp(-(dy^2 + dx^2) / (2 sigma^2)), sigma in kernel_parameter */
} convcheck_cc_kernel;

/* 1.2: what kind of error a plugin returned (api->error_code). The runner records it with the
 * message (the case record's "error_code"), so that a report tells these apart. */
typedef enum {
    CONVCHECK_ERROR_UNKNOWN = 0,          /* the plugin does not say (and every plugin before 1.2) */
    CONVCHECK_ERROR_INVALID_ARGUMENT = 1, /* the call broke this header's rules: a NULL buffer, a
                                             struct_size below 1.0's, a value out of range, an
                                             unknown create option */
    CONVCHECK_ERROR_UNIMPLEMENTED = 2,    /* valid, but the backend cannot do it after query said
                                             it could (a query should have declined it) */
    CONVCHECK_ERROR_OUT_OF_MEMORY = 3,    /* an allocation failed (host or device memory) */
    CONVCHECK_ERROR_INTERNAL = 4,         /* the backend failed for a reason of its own */
    CONVCHECK_ERROR_CRASHED = 5           /* 1.6: the computation ended abnormally where the plugin runs it (a
                                             backend process it started, a device), and the plugin survived to say
                                             so: the runner records a crash, as if the plugin's own process had */
} convcheck_error_code;

/* 1.2: which pass a descriptor asks for (convcheck_conv_desc.prop_kind). The tensors keep their
 * forward names and shapes (src, weights, bias, dst); a pass says which are inputs and which it writes:
 *   FORWARD           dst from src, weights, bias (the only kind before 1.2);
 *   BACKWARD_DATA     diff_src (src-shaped) from diff_dst (dst-shaped) and weights;
 *   BACKWARD_WEIGHTS  diff_weights (weights-shaped) and, with has_bias, diff_bias from src and diff_dst.
 * The buffers of each pass: convcheck_conv_args. */
typedef enum {
    CONVCHECK_FORWARD = 0,
    CONVCHECK_BACKWARD_DATA = 1,
    CONVCHECK_BACKWARD_WEIGHTS = 2
} convcheck_prop_kind;

/* 1.2: convcheck_conv_desc.dtype when the tensors' dtypes differ (the per-tensor fields then say
 * which): a value no plugin before 1.2 knows, so that one that reads `dtype` alone declines. */
#define CONVCHECK_DTYPE_MIXED (-1)

/* Bit masks for convcheck_plugin_info's claims: bit (1 << enum value). */
#define CONVCHECK_BIT(x) (1u << (x))
#define CONVCHECK_OP_CONV 1u /* discrete convolution: the passes prop_kinds names (forward by default) */
#define CONVCHECK_OP_CC 2u   /* continuous convolution forward */
/* 1.3: transposed convolution (deconvolution), convcheck_conv_transposed_desc; computed through the
 * table entries conv_transposed_query and conv_transposed_execute. */
#define CONVCHECK_OP_CONV_TRANSPOSED 4u
/* 1.4: the CC layer's backward pass (cc_backward_query/_execute); read from plugins of 1.4 or later only. */
#define CONVCHECK_OP_CC_BACKWARD 8u

/* ---- opaque objects, each created and freed by the plugin ----------------------------------- */
/* An error: returned by a failing call, plugin-owned until the runner passes it to
 * api->error_destroy (exactly once). Read with api->error_message and api->error_code. */
typedef struct convcheck_error convcheck_error;
/* A plugin instance: created by api->create, freed by api->destroy; everything the plugin
 * allocates for it (plans excepted) lives until destroy. */
typedef struct convcheck_plugin convcheck_plugin;
/* 1.2: a prepared discrete convolution (api->conv_prepare): made for one descriptor, executed
 * any number of times, freed by api->conv_plan_destroy before the instance that made it. */
typedef struct convcheck_conv_plan convcheck_conv_plan;

/* 1.2: the extension chain. Every extension struct begins with this header (as Vulkan's pNext
 * chain): its struct_size, a tag naming what it is (a convcheck_extension_tag), and the next one
 * (NULL ends the chain). Extensions carry what the descriptor's fields do not: scales, zero points,
 * post-ops. Runner-owned, read-only, valid as the struct holding the chain.
 * THE RULE: a plugin that meets a tag it does not know (or cannot honour) declines the case at
 * query ("unsupported", naming the tag) and refuses it at prepare and execute
 * (CONVCHECK_ERROR_UNIMPLEMENTED): an extension changes the result, so ignoring one computes
 * another operation. The runner sends a chain only to a plugin built against 1.2 or later (older
 * ones cannot see the field). 1.5 sends one, the quantization extension, with every quantized case and with
 * nothing else; before 1.5 `next` is always NULL. 1.6 sends the post-ops extension with a float forward case
 * that has post-ops, only to a plugin of 1.6 or later that claims them. 1.7 sends the scales extension with a float
 * forward case that has scales, only to a plugin of 1.7 or later. */
typedef struct convcheck_extension {
    size_t struct_size;
    int32_t tag;                            /* convcheck_extension_tag */
    const struct convcheck_extension* next; /* NULL: the last one */
} convcheck_extension;
/* Tags are appended in later versions, each with the struct it names (which begins with a
 * convcheck_extension, its header). 1.2 defined none. */
typedef enum {
    CONVCHECK_EXTENSION_NONE = 0,
    CONVCHECK_EXTENSION_QUANTIZATION = 1, /* 1.5: convcheck_quantization (convcheck/plugin/quantization.h) */
    CONVCHECK_EXTENSION_POST_OPS = 2,     /* 1.6: convcheck_post_ops (convcheck/plugin/post_ops.h) */
    CONVCHECK_EXTENSION_SCALES = 3        /* 1.7: convcheck_scales (convcheck/plugin/scales.h) */
} convcheck_extension_tag;

/* ---- call arguments ------------------------------------------------------------------------- */
/* 1.2: a thread pool the caller offers (create_args.thread_pool), so that a plugin need not start
 * threads of its own. run(context, task, task_context, count) calls task(task_context, i) once for
 * every i in [0, count), on up to num_threads threads at once (the calling thread among them), in no
 * set order, and returns when all have returned. A plugin may call run from any of its calls
 * (create to destroy), from one thread at a time, never from inside a task. A task must not throw
 * (nothing C++ crosses the boundary) and must not call run. Using the pool is optional: a plugin may
 * ignore it (the optimized plugin keeps TBB). */
typedef struct convcheck_thread_pool {
    size_t struct_size;
    void* context;        /* the pool's, passed back to run */
    int32_t num_threads;  /* at most this many tasks run at once (>= 1) */
    void (*run)(void* context, void (*task)(void* task_context, size_t index), void* task_context, size_t count);
} convcheck_thread_pool;

/* Runner-owned, read-only, valid during create only (thread_pool: until destroy). */
typedef struct {
    size_t struct_size;
    int32_t num_threads; /* threads the plugin may use; 0 = its own default */
    /* 1.1: plugin-specific options, "key=value" items separated by commas, given by the user
     * (`convcheck run --backend-option key=value`). Runner-owned, valid during create only (copy
     * what you keep). Default when struct_size does not cover it: no options, as NULL or "".
     * A plugin should fail create (CONVCHECK_ERROR_INVALID_ARGUMENT) on a key it does not know. */
    const char* options;
    /* 1.2: the caller's thread pool, or NULL (see convcheck_thread_pool). Runner-owned; the struct
     * and the pool live until destroy (longer than this call: keep the pointer). Default when
     * struct_size does not cover it: NULL, no pool (the plugin uses its own threads, if any). */
    const struct convcheck_thread_pool* thread_pool;
} convcheck_create_args;

/* What a plugin claims. The struct is runner-owned: the runner sets struct_size (and the default
 * of every field) before describe, and the plugin writes only the fields that struct_size covers.
 * The strings it points them at are plugin-owned and live until destroy. */
typedef struct {
    size_t struct_size;
    const char* name;              /* e.g. "onednn"; plugin-owned, lives until destroy */
    const char* version;           /* the backend's version, e.g. "2.6.3"; plugin-owned, until destroy */
    uint32_t operations;           /* CONVCHECK_OP_* bits (1.3: CONV_TRANSPOSED; 1.4: CC_BACKWARD) */
    /* dtypes .. filter_formats are claimed for every operation it names (1.3: a transposed
     * convolution's too; its filter formats are OIX and XIO, read as convcheck_conv_transposed_desc says).
     * Each operation's claims are read on its own descriptor and depend on no other operation's: a
     * transposed case needs CONVCHECK_OP_CONV_TRANSPOSED and its dtype, rank and formats, never
     * CONVCHECK_OP_CONV or prop_kinds. */
    uint32_t dtypes;               /* CONVCHECK_BIT(convcheck_dtype) */
    uint32_t ranks;                /* CONVCHECK_BIT(rank), rank in 1..3 */
    uint32_t data_formats;         /* CONVCHECK_BIT(convcheck_data_format) */
    uint32_t filter_formats;       /* CONVCHECK_BIT(convcheck_filter_format) */
    int32_t accumulation_dtype;    /* convcheck_dtype it accumulates in; the runner presets
                                      CONVCHECK_F32, which stands when the plugin leaves it unwritten */
    /* 1.2: the passes of discrete convolution (CONVCHECK_OP_CONV, convcheck_conv_desc.prop_kind) it
     * computes, CONVCHECK_BIT(convcheck_prop_kind); each pass is checked on its own descriptor's
     * prop_kind, so the backward passes may be claimed without the forward one. They say nothing about
     * transposed convolution or CC. The runner presets CONVCHECK_BIT(CONVCHECK_FORWARD), which stands
     * when the plugin leaves it unwritten; 0 (a plugin that copies a zeroed struct) reads as that
     * default too. */
    uint32_t prop_kinds;
    /* 1.2: 1 when it reads src_dtype .. dst_dtype and takes tensors of different dtypes (each one of
     * `dtypes`; its query still declines a combination it lacks). The runner presets 0: every tensor
     * has one dtype, and the runner sends no case with differing ones. */
    int32_t mixed_dtypes;

    /* 1.2, memory layout: CONVCHECK_BIT(convcheck_tensor) of each tensor the plugin takes with any
     * valid strides (convcheck_conv_desc.src_strides and friends). The runner presets 0, which stands
     * when the plugin leaves it unwritten: every tensor dense. A plugin that claims a tensor may
     * still decline a case in conv_query. */
    uint32_t strided_tensors;

    /* 1.5, quantized convolution (convcheck/plugin/quantization.h). A plugin claims it by claiming the
     * integer dtypes (CONVCHECK_U8, CONVCHECK_S8, CONVCHECK_S32) in `dtypes`; these two say how it computes:
     * requantization: the rule it follows from the s32 accumulator to a u8/s8 dst (a
     *   convcheck_requantization); the runner presets CONVCHECK_REQUANTIZATION_UNNAMED, which stands when
     *   the plugin leaves it unwritten: the plugin is judged by TOSA's INEXACT_ROUND window, not exactly.
     * integer_accumulator: what its integer sums accumulate in (a convcheck_integer_accumulator); the
     *   runner presets CONVCHECK_ACCUMULATOR_S32. */
    int32_t requantization;
    int32_t integer_accumulator;

    /* 1.6, fused post-ops (convcheck/plugin/post_ops.h): CONVCHECK_BIT(convcheck_post_op_kind) of the kinds it
     * runs, and of each kind with algorithms, CONVCHECK_BIT of the algorithms (convcheck_eltwise_algorithm,
     * convcheck_binary_algorithm). The runner presets 0, which stands when the plugin leaves them unwritten:
     * no post-ops, and the runner sends no case with any. */
    uint32_t post_op_kinds;
    uint32_t eltwise_algorithms;
    uint32_t binary_algorithms;
} convcheck_plugin_info;

/* The answer to a query. Runner-owned, valid during the query; the plugin writes supported and,
 * when it declines, reason. */
typedef struct {
    size_t struct_size;
    int32_t supported;       /* 1 supported, 0 not */
    char reason[256];        /* when not supported: why, NUL-terminated, within these 256 bytes */
} convcheck_support;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONVCHECK_PLUGIN_TYPES_H */
