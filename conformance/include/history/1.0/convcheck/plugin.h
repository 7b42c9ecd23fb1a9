/* convcheck plugin ABI: how the conformance runner talks to a convolution backend under test.
 *
 * One C header, nothing C++ in it. A plugin is a shared library that exports one symbol,
 * convcheck_get_api, returning a table of function pointers. The runner owns every tensor;
 * a plugin owns only what it creates (its instance, its errors) and frees it through its own
 * calls. A plugin may decline a case ("unsupported", with a reason); it is never forced to guess.
 * Errors are values (NULL on success), never C++ exceptions across this boundary.
 *
 * Versioning (see conformance/ABI-CHANGELOG.md): every struct begins with `size_t struct_size`,
 * set by whoever fills the struct to CONVCHECK_STRUCT_SIZE(type, last field it knows), and
 * structs only grow at the end. A reader must check struct_size before touching a field and
 * treat a missing field as its documented default. A breaking change bumps the major version
 * (the runner refuses a plugin whose major differs); an addition bumps the minor version.
 */
#ifndef CONVCHECK_PLUGIN_H
#define CONVCHECK_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CONVCHECK_ABI_MAJOR 1
#define CONVCHECK_ABI_MINOR 0

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
/* OIX = [O][I/G][spatial...]; XIO = [spatial...][I/G][O] */
typedef enum { CONVCHECK_OIX = 0, CONVCHECK_XIO = 1 } convcheck_filter_format;
/* The continuous kernel of a CC layer: the learned Internal-Net, or an analytic stand-in. */
typedef enum {
    CONVCHECK_CC_INTERNAL_NET = 0,
    CONVCHECK_CC_LINEAR = 1,
    CONVCHECK_CC_CUBIC = 2,   /* Keys cubic, a = -0.5 */
    CONVCHECK_CC_GAUSSIAN = 3 /* exp(-(dy^2 + dx^2) / (2 sigma^2)), sigma in kernel_parameter */
} convcheck_cc_kernel;

/* Bit masks for convcheck_plugin_info's claims: bit (1 << enum value). */
#define CONVCHECK_BIT(x) (1u << (x))
#define CONVCHECK_OP_CONV 1u /* discrete convolution forward */
#define CONVCHECK_OP_CC 2u   /* continuous convolution forward */

/* ---- errors ---------------------------------------------------------------------------------- */
/* Opaque, created by the plugin. Read with api->error_message, free with api->error_destroy. */
typedef struct convcheck_error convcheck_error;
/* Opaque plugin instance, created by api->create, freed by api->destroy. */
typedef struct convcheck_plugin convcheck_plugin;

/* ---- descriptors ----------------------------------------------------------------------------- */
/* A discrete convolution: the canonical descriptor. Spatial arrays are outermost first; only the
 * first `rank` entries are meaningful. Dilations are 1-based (1 = dense kernel). Pads may be
 * negative (cropping). dst spatial size = floor((in + pb + pe - ((k-1)*d + 1)) / s) + 1. */
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
    int32_t dtype;         /* convcheck_dtype of src, weights, bias and dst */
    int32_t data_format;   /* convcheck_data_format of src and dst */
    int32_t filter_format; /* convcheck_filter_format of weights */
} convcheck_conv_desc;

/* A continuous convolution (CC) layer, 2-D, NCHW, f32 (seed 004). Output size per axis is given
 * explicitly (default ceil(s * in)); the projected grid is g_n = n/s + (in-1)/2 - (out-1)/(2s). */
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

/* ---- call arguments ------------------------------------------------------------------------- */
typedef struct {
    size_t struct_size;
    int32_t num_threads; /* threads the plugin may use; 0 = its own default */
} convcheck_create_args;

/* What a plugin claims. Strings are owned by the plugin and live until destroy. */
typedef struct {
    size_t struct_size;
    const char* name;              /* e.g. "onednn" */
    const char* version;           /* the backend's version, e.g. "2.6.3" */
    uint32_t operations;           /* CONVCHECK_OP_CONV | CONVCHECK_OP_CC */
    uint32_t dtypes;               /* CONVCHECK_BIT(convcheck_dtype) */
    uint32_t ranks;                /* CONVCHECK_BIT(rank), rank in 1..3 */
    uint32_t data_formats;         /* CONVCHECK_BIT(convcheck_data_format) */
    uint32_t filter_formats;       /* CONVCHECK_BIT(convcheck_filter_format) */
    int32_t accumulation_dtype;    /* convcheck_dtype it accumulates in (f32 for most) */
} convcheck_plugin_info;

/* The answer to a query. The runner provides the reason buffer. */
typedef struct {
    size_t struct_size;
    int32_t supported;       /* 1 supported, 0 not */
    char reason[256];        /* when not supported: why, NUL-terminated */
} convcheck_support;

/* Buffers for one discrete convolution, dense, in the descriptor's formats and dtype. All are
 * owned by the runner: inputs are read-only (the runner may map them so), dst is exactly
 * dst-elements long. bias is NULL when has_bias == 0. */
typedef struct {
    size_t struct_size;
    const void* src;
    const void* weights;
    const void* bias;
    void* dst;
    char* implementation;          /* optional, runner-owned: the plugin may write the name of the */
    size_t implementation_capacity; /* implementation it picked (NUL-terminated, at most capacity)  */
} convcheck_conv_args;

/* Buffers for one CC layer. theta holds the Internal-Net parameters (f32) in this order:
 * W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout]; NULL for analytic
 * kernels. Output channel cout*Cin + cin of the Internal-Net is the weight for (cout, cin).
 * src [N][Cin][H][W], dst [N][Cout][H'][W'], bias [Cout] or NULL. */
typedef struct {
    size_t struct_size;
    const void* src;
    const float* theta;
    const void* bias;
    void* dst;
    char* implementation;
    size_t implementation_capacity;
} convcheck_cc_args;

/* ---- the function table ---------------------------------------------------------------------- */
typedef struct {
    size_t struct_size;
    int32_t abi_major; /* CONVCHECK_ABI_MAJOR the plugin was built against */
    int32_t abi_minor;

    /* Creates an instance. On success *out is set and NULL is returned. */
    convcheck_error* (*create)(const convcheck_create_args* args, convcheck_plugin** out);
    /* Frees the instance and everything it owns. */
    void (*destroy)(convcheck_plugin* plugin);
    /* Fills *info (the caller sets info->struct_size). */
    convcheck_error* (*describe)(convcheck_plugin* plugin, convcheck_plugin_info* info);

    /* Discrete convolution; both NULL when the plugin has no CONVCHECK_OP_CONV. */
    convcheck_error* (*conv_query)(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out);
    convcheck_error* (*conv_execute)(convcheck_plugin* plugin, const convcheck_conv_desc* desc,
                                     const convcheck_conv_args* args);

    /* Continuous convolution; both NULL when the plugin has no CONVCHECK_OP_CC. */
    convcheck_error* (*cc_query)(convcheck_plugin* plugin, const convcheck_cc_desc* desc, convcheck_support* out);
    convcheck_error* (*cc_execute)(convcheck_plugin* plugin, const convcheck_cc_desc* desc, const convcheck_cc_args* args);

    /* The message of an error (valid until error_destroy), and its release. */
    const char* (*error_message)(const convcheck_error* error);
    void (*error_destroy)(convcheck_error* error);
} convcheck_api;

/* The one exported entry point. Returns a table that lives as long as the library is loaded. */
typedef const convcheck_api* (*convcheck_get_api_fn)(void);
CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONVCHECK_PLUGIN_H */
