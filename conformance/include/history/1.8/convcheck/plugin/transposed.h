/* convcheck plugin ABI, part of plugin.h (include that): (1.3) transposed convolution
 * (CONVCHECK_OP_CONV_TRANSPOSED). Its buffers are convcheck_conv_args (plugin/conv.h). */
#ifndef CONVCHECK_PLUGIN_TRANSPOSED_H
#define CONVCHECK_PLUGIN_TRANSPOSED_H

#include <stddef.h>
#include <stdint.h>

#include "convcheck/plugin/types.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONVCHECK_PLUGIN_TRANSPOSED_H */
