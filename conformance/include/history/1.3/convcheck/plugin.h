/* convcheck plugin ABI: how the conformance runner talks to a convolution backend under test.
 *
 * One C header, nothing C++ in it. A plugin is a shared library that exports one symbol,
 * convcheck_get_api, returning a table of function pointers. The runner owns every tensor;
 * a plugin owns only what it creates (its instance, its plans, its errors) and frees it through
 * its own calls. A plugin may decline a case ("unsupported", with a reason); it is never forced
 * to guess. Errors are values (NULL on success) with a code and a message, never C++ exceptions
 * across this boundary.
 *
 * Versioning (see conformance/ABI-CHANGELOG.md): every struct begins with `size_t struct_size`,
 * set by whoever fills the struct to CONVCHECK_STRUCT_SIZE(type, last field it knows), and
 * structs only grow at the end. A reader must check struct_size before touching a field and
 * treat a missing field as its documented default (every field added after 1.0 names its
 * default, and the version that added it). A breaking change bumps the major version (the runner
 * refuses a plugin whose major differs); an addition bumps the minor version.
 *
 * Ownership and lifetime are written on every field: "runner-owned" memory belongs to the runner
 * and is valid only during the call it is passed to unless the field says otherwise;
 * "plugin-owned" memory belongs to the plugin and lives as long as the field says.
 *
 * Processes and threads. The runner loads the library (dlopen) in its own process and calls
 * convcheck_get_api there; it then forks one child process per call sequence (negotiation, and
 * each case: create .. query .. prepare .. execute .. destroy) and makes every other call in that
 * child. Hence:
 *   - Load time (static constructors, convcheck_get_api) must start no thread and take no lock
 *     another thread could hold: a fork copies only the calling thread, so a thread started at
 *     load time is missing in every child, and a lock it held stays locked there forever.
 *     Start thread pools in create (or lazily in execute), never before.
 *   - No state carries between cases: each child starts from the runner's process as it was after
 *     loading, and exits with _exit (no atexit handlers, no static destructors).
 *   - A plugin may use threads inside a child, up to create_args.num_threads (0: its own default).
 *     Every call on one instance, and on the plans it made, comes from one thread at a time.
 *   - 1.2: the runner offers its own thread pool (create_args.thread_pool, convcheck_thread_pool):
 *     a plugin that runs its parallel loops there starts no thread of its own, and the runner counts
 *     the tasks (the case's "thread_pool_tasks"). Its threads start in the child, at the first run.
 *   - Process-wide settings are the whole child's: a plugin that sets one (omp_set_num_threads, an
 *     environment variable, a signal handler, the FPU mode) changes it for everything in that
 *     process, the runner's pool too. Set it in create or execute, never at load time; the runner
 *     restores nothing, but the next case starts in a fresh child.
 *   - A child runs under a time limit and a memory limit (the runner's workspace, 1.2, counts in
 *     it); the plugin's prints go to stderr.
 */
#ifndef CONVCHECK_PLUGIN_H
#define CONVCHECK_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CONVCHECK_ABI_MAJOR 1
#define CONVCHECK_ABI_MINOR 3

/* Size of a struct up to and including `last_field`: what a writer that knows fields up to
 * `last_field` puts in struct_size. */
#define CONVCHECK_STRUCT_SIZE(type, last_field) \
    (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

#if defined(_WIN32)
#define CONVCHECK_EXPORT __declspec(dllexport)
#else
#define CONVCHECK_EXPORT __attribute__((visibility("default")))
#endif

/* ---- enumerations (stored as int32_t in structs) -------------------------------------------- */
typedef enum { CONVCHECK_F32 = 0, CONVCHECK_F16 = 1, CONVCHECK_BF16 = 2, CONVCHECK_F64 = 3 } convcheck_dtype;
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
    CONVCHECK_ERROR_INTERNAL = 4          /* the backend failed for a reason of its own */
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
#define CONVCHECK_OP_CONV 1u /* discrete convolution forward */
#define CONVCHECK_OP_CC 2u   /* continuous convolution forward */
/* 1.3: transposed convolution (deconvolution), convcheck_conv_transposed_desc; computed through the
 * table entries conv_transposed_query and conv_transposed_execute. */
#define CONVCHECK_OP_CONV_TRANSPOSED 4u

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
 * ones cannot see the field); in 1.2 it sends none (`next` is always NULL). */
typedef struct convcheck_extension {
    size_t struct_size;
    int32_t tag;                            /* convcheck_extension_tag */
    const struct convcheck_extension* next; /* NULL: the last one */
} convcheck_extension;
/* Tags are appended in later versions, each with the struct it names (which begins with
 * convcheck_extension's three fields). 1.2 defines none: every tag is unknown. */
typedef enum { CONVCHECK_EXTENSION_NONE = 0 } convcheck_extension_tag;

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
} convcheck_conv_desc;

/* A continuous convolution (CC) layer, 2-D, NCHW, f32 (seed 004). Runner-owned, read-only, valid
 * during the call. Output size per axis is given explicitly (default ceil(s * in)); the projected
 * grid is g_n = n/s + (in-1)/2 - (out-1)/(2s). */
typedef struct {
    size_t struct_size;
    int64_t batch;
    int64_t in_channels;
    int64_t out_channels;
    int64_t input_size[2];        /* H, W */
    int64_t output_size[2];       /* H', W' */
    int64_t scale_numerator[2];   /* when scale_denominator[a] > 0, s = numerator / denominator exactly */
    int64_t scale_denominator[2]; /* 0: the scale is real, read scale[a] */
    double scale[2];              /* the scale per axis as a double (always set) */
    int64_t support[2];           /* kernel support in input pixels, k_h, k_w */
    int32_t kernel_kind;          /* convcheck_cc_kernel */
    double kernel_parameter;      /* CONVCHECK_CC_GAUSSIAN: sigma; otherwise unused */
    int64_t hidden_widths[2];     /* Internal-Net hidden widths (paper: 16, 16) */
    double leaky_relu_slope;      /* Internal-Net LeakyReLU slope */
    int32_t has_bias;
    int32_t dtype;                /* convcheck_dtype; 1.0: f32 */
} convcheck_cc_desc;

/* 1.3: a transposed convolution (PyTorch ConvTranspose, ONNX ConvTranspose, oneDNN deconvolution,
 * TOSA TRANSPOSE_CONV2D): the adjoint of a forward convolution, with a shape rule of its own. Its
 * dst is the backward data (diff_src) of the forward convolution it transposes, plus the bias. Per
 * spatial axis, with K = (kernel_size - 1) * dilation + 1:
 *   dst size = (input_size - 1) * stride - pads_begin - pads_end + K + output_padding
 * Input position y reaches output position x = y * stride - pads_begin + k * dilation when
 * 0 <= x < dst size; output_padding lengthens the output at the end only (no other index moves),
 * and the outputs it adds get the taps that reach them and the bias. Negative pads widen the output
 * (TOSA's out_pad). Runner-owned, read-only, valid during the call it is passed to; only the first
 * `rank` entries of the spatial arrays are meaningful; dilations are 1-based.
 * The tensors: src [N][in_channels][input...] (NCX) or [N][input...][in_channels] (NXC); dst the
 * same with out_channels and the dst sizes; weights are the forward convolution's, in_channels
 * outermost: OIX = [in_channels][out_channels / groups][kernel...] (PyTorch's and ONNX's layout),
 * XIO = [kernel...][out_channels / groups][in_channels] (TensorFlow conv2d_transpose's
 * [H][W][out][in]); OXI is not used. bias has out_channels values. Dense tensors only. Every field is
 * 1.3's: there is no older writer of this struct. */
typedef struct {
    size_t struct_size;
    int32_t rank; /* 1, 2 or 3 */
    int64_t batch;
    int64_t in_channels;  /* channels of src (the forward convolution's output channels) */
    int64_t out_channels; /* channels of dst (the forward convolution's input channels) */
    int64_t groups;
    int64_t input_size[3]; /* src's spatial sizes */
    int64_t kernel_size[3];
    int64_t strides[3];
    int64_t dilations[3];
    int64_t pads_begin[3];
    int64_t pads_end[3];
    int64_t output_padding[3]; /* >= 0: added to the end of each axis of dst */
    int32_t has_bias;
    int32_t dtype;         /* convcheck_dtype of src, weights, bias and dst */
    int32_t data_format;   /* convcheck_data_format of src and dst */
    int32_t filter_format; /* CONVCHECK_OIX or CONVCHECK_XIO, as above */
    const convcheck_extension* next; /* the extension chain, as convcheck_conv_desc.next: NULL in 1.3 */
} convcheck_conv_transposed_desc;

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
    uint32_t operations;           /* CONVCHECK_OP_CONV | CONVCHECK_OP_CC (1.3: | CONVCHECK_OP_CONV_TRANSPOSED) */
    /* dtypes .. filter_formats are claimed for every operation it names (1.3: a transposed
     * convolution's too; its filter formats are OIX and XIO, read as convcheck_conv_transposed_desc says). */
    uint32_t dtypes;               /* CONVCHECK_BIT(convcheck_dtype) */
    uint32_t ranks;                /* CONVCHECK_BIT(rank), rank in 1..3 */
    uint32_t data_formats;         /* CONVCHECK_BIT(convcheck_data_format) */
    uint32_t filter_formats;       /* CONVCHECK_BIT(convcheck_filter_format) */
    int32_t accumulation_dtype;    /* convcheck_dtype it accumulates in; the runner presets
                                      CONVCHECK_F32, which stands when the plugin leaves it unwritten */
    /* 1.2: the passes it computes, CONVCHECK_BIT(convcheck_prop_kind). The runner presets
     * CONVCHECK_BIT(CONVCHECK_FORWARD), which stands when the plugin leaves it unwritten; 0 (a
     * plugin that copies a zeroed struct) reads as that default too. */
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
} convcheck_plugin_info;

/* The answer to a query. Runner-owned, valid during the query; the plugin writes supported and,
 * when it declines, reason. */
typedef struct {
    size_t struct_size;
    int32_t supported;       /* 1 supported, 0 not */
    char reason[256];        /* when not supported: why, NUL-terminated, within these 256 bytes */
} convcheck_support;

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
} convcheck_conv_args;

/* Buffers for one CC layer, runner-owned, valid during cc_execute only; inputs read-only. theta
 * holds the Internal-Net parameters (f32) in this order:
 * W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout]; NULL for analytic
 * kernels. Output channel cout*Cin + cin of the Internal-Net is the weight for (cout, cin).
 * src [N][Cin][H][W], dst [N][Cout][H'][W'], bias [Cout] or NULL. */
typedef struct {
    size_t struct_size;
    const void* src;
    const float* theta;
    const void* bias;
    void* dst;
    char* implementation;          /* optional, runner-owned, as in convcheck_conv_args */
    size_t implementation_capacity;
} convcheck_cc_args;

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

/* ---- the function table ---------------------------------------------------------------------- */
/* Plugin-owned, static: lives as long as the library is loaded. Entries appended after 1.0 are read
 * only when struct_size covers them; NULL (or not covered) means the default each entry names. */
typedef struct {
    size_t struct_size;
    int32_t abi_major; /* CONVCHECK_ABI_MAJOR the plugin was built against */
    int32_t abi_minor;

    /* Creates an instance. On success *out is set (plugin-owned until destroy) and NULL is returned. */
    convcheck_error* (*create)(const convcheck_create_args* args, convcheck_plugin** out);
    /* Frees the instance and everything it owns. Its plans are destroyed before it. */
    void (*destroy)(convcheck_plugin* plugin);
    /* Fills *info (the caller sets info->struct_size and the defaults). */
    convcheck_error* (*describe)(convcheck_plugin* plugin, convcheck_plugin_info* info);

    /* Discrete convolution; both NULL when the plugin has no CONVCHECK_OP_CONV. conv_execute is the
     * one-shot call: it runs one case from scratch (a plugin with conv_prepare may implement it as
     * prepare + execute + destroy). */
    convcheck_error* (*conv_query)(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out);
    convcheck_error* (*conv_execute)(convcheck_plugin* plugin, const convcheck_conv_desc* desc,
                                     const convcheck_conv_args* args);

    /* Continuous convolution; both NULL when the plugin has no CONVCHECK_OP_CC. */
    convcheck_error* (*cc_query)(convcheck_plugin* plugin, const convcheck_cc_desc* desc, convcheck_support* out);
    convcheck_error* (*cc_execute)(convcheck_plugin* plugin, const convcheck_cc_desc* desc, const convcheck_cc_args* args);

    /* The message of an error (plugin-owned, valid until error_destroy), and its release. */
    const char* (*error_message)(const convcheck_error* error);
    void (*error_destroy)(convcheck_error* error);

    /* 1.2: the kind of an error (a convcheck_error_code). Default (NULL or not covered):
     * CONVCHECK_ERROR_UNKNOWN for every error. */
    int32_t (*error_code)(const convcheck_error* error);

    /* 1.2: prepare once, execute many. All four NULL (or not covered) by default: the runner then
     * uses conv_execute alone. A plugin sets all four or none, and only with conv_query.
     * The runner calls conv_query first and prepares only a case the plugin supports.
     *   conv_prepare: makes a plan for *desc (copied: the plan must not point into desc) and, when
     *     args->weights is not NULL, for those weights (see convcheck_conv_prepare_args). On success
     *     *out is set (plugin-owned until conv_plan_destroy) and NULL is returned.
     *   conv_plan_describe: fills *info (the caller sets struct_size and the defaults).
     *   conv_plan_execute: computes one convolution into args->dst; may be called any number of
     *     times, each with the same result for the same inputs.
     *   conv_plan_destroy: frees the plan and all it holds (before the instance's destroy). */
    convcheck_error* (*conv_prepare)(convcheck_plugin* plugin, const convcheck_conv_desc* desc,
                                     const convcheck_conv_prepare_args* args, convcheck_conv_plan** out);
    convcheck_error* (*conv_plan_describe)(const convcheck_conv_plan* plan, convcheck_plan_info* info);
    convcheck_error* (*conv_plan_execute)(convcheck_conv_plan* plan, const convcheck_conv_args* args);
    void (*conv_plan_destroy)(convcheck_conv_plan* plan);

    /* 1.3: transposed convolution (CONVCHECK_OP_CONV_TRANSPOSED); both NULL (or not covered) by
     * default: the plugin has none, and the runner sends it no transposed case. Both or neither.
     * conv_transposed_execute computes dst from src, weights and bias (NULL when has_bias == 0) in
     * a convcheck_conv_args (runner-owned, valid during the call; inputs read-only; dst exactly as
     * long as its elements, a guard page after it). Every other buffer of the args is NULL: no
     * workspace, no diff buffers, no plan (a transposed convolution runs through this one-shot call). */
    convcheck_error* (*conv_transposed_query)(convcheck_plugin* plugin, const convcheck_conv_transposed_desc* desc,
                                              convcheck_support* out);
    convcheck_error* (*conv_transposed_execute)(convcheck_plugin* plugin, const convcheck_conv_transposed_desc* desc,
                                                const convcheck_conv_args* args);
} convcheck_api;

/* The one exported entry point. Returns a table that lives as long as the library is loaded.
 * Called in the runner's own process, before any fork: it must start no thread (see "Processes and
 * threads" at the top). */
typedef const convcheck_api* (*convcheck_get_api_fn)(void);
CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONVCHECK_PLUGIN_H */
