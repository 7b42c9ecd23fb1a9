/* convcheck plugin ABI, part of plugin.h (include that): the continuous convolution (CC) layer
 * (CONVCHECK_OP_CC) and (1.4) its backward pass (CONVCHECK_OP_CC_BACKWARD). */
#ifndef CONVCHECK_PLUGIN_CC_H
#define CONVCHECK_PLUGIN_CC_H

#include <stddef.h>
#include <stdint.h>

#include "convcheck/plugin/types.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* 1.4: a CC layer's backward pass, the gradients of <diff_dst, CC> (docs/cc-backward.md; LeakyReLU'(0) = slope).
 * Runner-owned, valid during the call; inputs read-only; each output exactly its elements long (a guard page after). */
typedef struct {
    size_t struct_size;
    const void* src;       /* [N][Cin][H][W], the forward's input (f32) */
    const float* theta;    /* as convcheck_cc_args.theta; NULL for analytic kernels (the bias is not passed) */
    const void* diff_dst;  /* [N][Cout][H'][W'] */
    void* diff_src;        /* [N][Cin][H][W] */
    float* diff_theta;     /* theta-shaped, theta's order, for CONVCHECK_CC_INTERNAL_NET; else NULL */
    void* diff_bias;       /* [Cout] with has_bias; else NULL */
    char* implementation;  /* optional, runner-owned, as in convcheck_conv_args */
    size_t implementation_capacity;
} convcheck_cc_backward_args;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONVCHECK_PLUGIN_CC_H */
