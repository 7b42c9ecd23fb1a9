// The canonical descriptor of a transposed convolution (PyTorch ConvTranspose, ONNX ConvTranspose,
// TOSA TRANSPOSE_CONV2D, oneDNN deconvolution, ...): the adjoint of a forward convolution, with a
// shape rule of its own. SPEC-NOTES §5, per spatial axis, 1-based dilation:
//   K   = (kernel - 1) * dilation + 1
//   out = (in - 1) * stride - pads_begin - pads_end + K + output_padding
// Its output is the backward data (diff_src) of the forward convolution it transposes, `forward()`:
//   forward.in_channels = out_channels, forward.out_channels = in_channels, the same groups, kernel,
//   strides and dilations, forward.input_size = out, forward.pads_begin = pads_begin and
//   forward.pads_end = pads_end - output_padding, so that the forward output size is exactly `in`:
//   floor((out + pb + pe - op - K) / s) + 1 = floor((in - 1) * s / s) + 1 = in.
// The index set is the forward's: input position y of the transposed op (the forward's output)
// reaches output position x = y*stride - pads_begin + k*dilation when 0 <= x < out. output_padding
// only lengthens the output at the end: no other index changes (PyTorch, ONNX: "adds additional size
// to one side of the output shape"). Negative pads widen the output (TOSA's out_pad).
//
// Weights are the forward convolution's weights, in its formats: oix stores [C][O/G][k...] (the
// transposed op's input channels outermost: PyTorch and ONNX weights), xio stores [k...][O/G][C]
// (TensorFlow conv2d_transpose's [H, W, out_channels, in_channels]). The bias has out_channels values.
#pragma once

#include <string>
#include <string_view>

#include "convcheck/core/descriptor.hpp"

namespace convcheck {

struct TransposedDescriptor {
    int rank = 2;
    std::int64_t batch = 1;
    std::int64_t in_channels = 1;       // C: channels of the transposed op's input (the forward's O)
    std::int64_t out_channels = 1;      // O: channels of its output (the forward's C)
    std::int64_t groups = 1;
    SpatialDims input_size{1, 1, 1};    // spatial sizes of the transposed op's input
    SpatialDims kernel_size{1, 1, 1};
    SpatialDims strides{1, 1, 1};
    SpatialDims dilations{1, 1, 1};     // 1-based
    SpatialDims pads_begin{0, 0, 0};
    SpatialDims pads_end{0, 0, 0};
    SpatialDims output_padding{0, 0, 0};
    bool has_bias = false;              // out_channels values
    DataType dtype = DataType::f32;
    DataFormat data_format = DataFormat::ncx;
    FilterFormat filter_format = FilterFormat::oix;  // the forward's: oix = [C][O/G][k...]

    bool operator==(const TransposedDescriptor& other) const;

    std::int64_t dilated_kernel(int axis) const;
    // (in - 1) * stride - pads_begin - pads_end + K + output_padding (no validation)
    std::int64_t output_size(int axis) const;
    // The forward convolution whose backward data this is (see above); has_bias false (the
    // transposed op's bias has out_channels values, the forward's would have in_channels).
    ConvDescriptor forward() const;

    std::vector<std::int64_t> src_dims() const;  // [N][C][in...] or [N][in...][C]
    std::vector<std::int64_t> dst_dims() const;  // [N][O][out...] or [N][out...][O]
    std::int64_t src_elements() const;
    std::int64_t weights_elements() const;
    std::int64_t dst_elements() const;
};

// Throws ConvError for the first rule broken: rank 1-3; batch, channels, groups, sizes, kernel,
// strides, dilations >= 1; channels divisible by groups; output_padding >= 0; an output size >= 1
// on every axis; and then every rule of forward() (element counts that fit in 64 bits). Frameworks
// add rules of their own (PyTorch: output_padding < stride or dilation); those are their dialects'.
void validate(const TransposedDescriptor& t);

// deconv:n=1,c=4,o=2,g=1,in=5x5,k=3x3,s=2x2,d=1x1,pb=1x1,pe=1x1,op=1x1,bias=0,dt=f32,data=ncx,wei=oix
// The keys are the convolution descriptor's (descriptor.hpp) plus op (output_padding, default 0);
// c and o are the transposed op's own input and output channels. parse(to_string(t)) == t.
std::string to_string(const TransposedDescriptor& t);
TransposedDescriptor parse_transposed_descriptor(std::string_view text);  // validates; throws ConvError
// The same without validate() (an entry of a suite is read first, judged later); still throws ConvError for
// what it cannot read, and for dir= and memory strides (keys of the convolution descriptor with no meaning here).
TransposedDescriptor parse_transposed_descriptor_unvalidated(std::string_view text);

}  // namespace convcheck
