/* convcheck plugin ABI, part of plugin.h (include that): discrete convolution, its three passes
 * (CONVCHECK_OP_CONV): the descriptor, the buffers of a call, and (1.2) prepare once, execute many. */
#ifndef CONVCHECK_PLUGIN_CONV_H
#define CONVCHECK_PLUGIN_CONV_H

#include <stddef.h>
#include <stdint.h>

#include "convcheck/plugin/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- descriptors ----------------------------------------------------------------------------- */
/* A discrete convolution: the canonical descriptor. Runner-owned, read-only for the plugin, valid
 * during the call it is passed to (a plugin that needs it later copies it: conv_prepare's plan
 * must not point into it). Spatial arrays are outermost first; only the first `rank` entries are
 * meaningful. Dilations are 1-based (1 = dense kernel). Pads may be negative (cropping).
 * dst spatial size = floor((in + pb + pe - ((k-1)*d + 1)) / s) + 1. */
typedef struct {
    size_t struct_size;
    int32_t rank; /* 1, 2 or 3 */
    int64_t batch;
    int64_t in_channels;
    int64_t out_channels;
    int64_t groups;
    int64_t input_size[3];
    int64_t kernel_size[3];
    int64_t strides[3];
    int64_t dilations[3];
    int64_t pads_begin[3];
    int64_t pads_end[3];
    int32_t has_bias;
    int32_t dtype;         /* convcheck_dtype of src, weights, bias and dst (1.2: CONVCHECK_DTYPE_MIXED
                              when they differ, see src_dtype below) */
    int32_t data_format;   /* convcheck_data_format of src and dst */
    int32_t filter_format; /* convcheck_filter_format of weights */

    /* 1.2: per-tensor data types, the pass, and the extension chain. Default when struct_size does
     * not cover them (a writer before 1.2): every tensor has `dtype`, prop_kind CONVCHECK_FORWARD,
     * next NULL. When the four dtypes agree, `dtype` is that dtype; when they differ, `dtype` is
     * CONVCHECK_DTYPE_MIXED. The runner sends a case with differing dtypes only to a plugin that
     * claims mixed_dtypes, and a kind other than forward only to one that claims it in prop_kinds
     * (convcheck_plugin_info); a plugin that reads `dtype` alone never sees one. The tensors are
     * named as in the forward pass (see convcheck_prop_kind): src_dtype is also diff_src's. */
    int32_t src_dtype;       /* convcheck_dtype of src (diff_src) */
    int32_t weights_dtype;   /* convcheck_dtype of weights (diff_weights) */
    int32_t bias_dtype;      /* convcheck_dtype of bias (diff_bias); set even when has_bias == 0 */
    int32_t dst_dtype;       /* convcheck_dtype of dst (diff_dst) */
    int32_t prop_kind;       /* convcheck_prop_kind */
    const convcheck_extension* next; /* the extension chain: NULL, none (see convcheck_extension) */
    /* 1.2, memory layout: the memory strides of each tensor, in elements, one per dim of the tensor
     * in its format's order (src and dst: [N][C][x...] for NCX, [N][x...][C] for NXC; weights: as
     * filter_format lays them out); only the first rank + 2 entries are meaningful. All zero: dense
     * (row-major in the format's order), the default, and the meaning when struct_size does not
     * cover the field. Otherwise every stride is >= 1 and no two elements share memory; the
     * buffer holds 1 + sum (dim - 1) * stride elements, and the elements between (the gaps) are not
     * data: a plugin must not read them as data (in the runner's inputs they hold NaN) and must
     * not write those of dst. The runner sends non-zero strides for a tensor only to a plugin
     * whose plugin_info.strided_tensors claims it. */
    int64_t src_strides[5];
    int64_t weights_strides[5];
    int64_t dst_strides[5];

    /* 1.7: the fpmath mode (oneDNN's primitive_attr::set_fpmath_mode; benchdnn --attr-fpmath): the precision the
     * plugin MAY round the f32 inputs of the products to (src and weights; diff_dst and the other operand in the
     * backward passes) before multiplying, still accumulating as it declares (convcheck_fpmath_mode). A permission,
     * not a demand: a plugin that multiplies the f32 inputs as given is within it and may ignore the field; the
     * runner's bound takes the rounding it allows (docs/accuracy.md, "fpmath"). Default when struct_size does not
     * cover it: CONVCHECK_FPMATH_STRICT. The runner sends it to every plugin: one built before 1.7 computes as it
     * always did, which the looser bound also holds. */
    int32_t fpmath_mode;
} convcheck_conv_desc;

/* 1.7: convcheck_conv_desc.fpmath_mode. TF32: 11 significand bits (a 10-bit fraction), BF16: 8, each with f32's
 * exponent range. */
typedef enum { CONVCHECK_FPMATH_STRICT = 0, CONVCHECK_FPMATH_TF32 = 1, CONVCHECK_FPMATH_BF16 = 2 } convcheck_fpmath_mode;

/* Buffers for one discrete convolution in the descriptor's formats and dtype: dense, or (1.2) laid
 * out by the descriptor's strides, each buffer then spanning 1 + sum (dim - 1) * stride elements
 * with gaps between them. The struct and every buffer are runner-owned and valid during the execute
 * call only (a plan must not keep a pointer to them, except the weights and bias given to
 * conv_prepare, below). Inputs are read-only (the runner maps them read-only: a write is a crash);
 * dst is exactly as long as its elements (or its span) (the runner puts a guard page right after it).
 * Each case runs in a child process of its own: no state carries between cases. */
typedef struct {
    size_t struct_size;
    const void* src;
    const void* weights;           /* the same pointer and values given to conv_prepare, when it got any */
    const void* bias;              /* NULL when has_bias == 0 */
    void* dst;
    char* implementation;          /* optional, runner-owned, valid during the call: the plugin may write */
    size_t implementation_capacity; /* the implementation it picked (NUL-terminated, at most capacity) */

    /* 1.2: the caller's workspace for conv_plan_execute: scratch of at least the plan's reported
     * workspace_bytes (conv_plan_describe), 64-byte aligned, runner-owned, valid during the call;
     * its contents are undefined on entry and dead after it. A plan that reported workspace_bytes > 0
     * should take its scratch from here rather than allocate it; the runner puts a guard page after
     * workspace_bytes (a write past them is a crash), and records how much was written. NULL
     * (workspace_size 0) when not given: the plan allocates its own, as before. Default when
     * struct_size does not cover them: NULL, 0. The runner gives none to conv_execute (the one-shot
     * call has no reported size). */
    void* workspace;
    uint64_t workspace_size;

    /* 1.2: the outputs of the backward passes (desc->prop_kind), each shaped and typed as the tensor
     * it is named after; NULL in a forward pass. In a backward pass the inputs are src, weights (as
     * in forward) and diff_dst, which the runner passes in `dst` (read-only then, mapped
     * read-only); BACKWARD_DATA writes diff_src (src is NULL), BACKWARD_WEIGHTS writes diff_weights
     * and, with has_bias, diff_bias (weights and bias are NULL). Default when struct_size does not
     * cover them: NULL (forward only). */
    void* diff_src;
    void* diff_weights;
    void* diff_bias;

    /* 1.6: the post-ops' operands (convcheck/plugin/post_ops.h): one pointer per op of the descriptor's
     * post-ops extension, the binary ops' f32 operands, NULL for the others; NULL when the descriptor has no
     * post-ops. Runner-owned, read-only, valid during the execute call. Default when struct_size does not
     * cover it: NULL. */
    const void* const* post_op_operands;
} convcheck_conv_args;

/* 1.2: what conv_prepare may use beyond the descriptor. Runner-owned, read-only, valid during
 * conv_prepare; the buffers it points to live longer, as each field says. */
typedef struct {
    size_t struct_size;
    /* The weights (and bias, or NULL) every conv_plan_execute of this plan will receive: the same
     * pointers, unchanged, valid until conv_plan_destroy. The plan may transform them once (reorder,
     * pack) and ignore the execute's copies. NULL: the weights come only with each execute, and
     * the plan reads them there. Default when struct_size does not cover them: NULL. */
    const void* weights;
    const void* bias;
} convcheck_conv_prepare_args;

/* 1.2: what a plan reports. Runner-owned; the runner sets struct_size and the defaults, the plugin
 * writes the fields struct_size covers. */
typedef struct {
    size_t struct_size;
    /* Scratch memory one conv_plan_execute of this plan allocates and frees again (bytes), beyond
     * what the plan holds between executes. Default (the runner presets it): 0, "none reported". */
    uint64_t workspace_bytes;
    /* Memory the plan holds between executes (packed weights, tables), in bytes. Default: 0. */
    uint64_t plan_bytes;
} convcheck_plan_info;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONVCHECK_PLUGIN_CONV_H */
