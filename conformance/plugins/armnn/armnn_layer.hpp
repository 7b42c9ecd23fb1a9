// The translation of one convcheck case into one Arm NN 20.08 layer: which layer computes it
// (Convolution2d, or DepthwiseConvolution2d for groups = C), the adaptation that gives Arm NN the
// case in a form it takes, the layer's descriptor and TensorInfos, the weights in Arm NN's order, and
// the questions the plugin asks Arm NN about it (ILayerSupport) before building a network.
//
// Arm NN's words (include/armnn/Descriptors.hpp, INetwork.hpp, Tensor.hpp):
//   Convolution2dDescriptor  m_PadLeft/Right/Top/Bottom, m_StrideX/Y, m_DilationX/Y (1-based, like
//                            ours), m_BiasEnabled, m_DataLayout (NCHW or NHWC); all uint32_t, no groups.
//   weights                  Convolution2d: [O][I][H][W] for NCHW, [O][H][W][I] for NHWC;
//                            DepthwiseConvolution2d: [M][C][H][W] in both layouts ("Expected format:
//                            [channelMultiplier, inputChannels, height, width]"), output channel c*M + m.
//   biases                   [O]: f32 and f16 in the input's dtype; for a bf16 input in f32 only (its
//                            workload validation, Convolution2dQueueDescriptor::Validate: "Expected data
//                            type Float32 but got BFloat16 for bias tensor", though CpuRef's
//                            IsConvolution2dSupported accepts a bf16 bias).
//   TensorShape              unsigned int dims; GetNumElements() and GetNumBytes() are unsigned int.
#pragma once

#include <armnn/ArmNN.hpp>
#include <armnn/ILayerSupport.hpp>

#include <string>
#include <vector>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/plugin.h"

namespace convcheck_armnn {

enum class LayerKind { convolution2d, depthwise_convolution2d };

// What the plugin hands Arm NN for one case of the runner's.
struct Translation {
    LayerKind kind = LayerKind::convolution2d;
    convcheck_plugin_support::Adaptation adaptation;
    convcheck_conv_desc library{};  // the adapted case: rank 2, pads >= 0
};

// Why the plugin cannot give Arm NN this case without inventing a number (the reason starts "the
// armnn plugin cannot express"), "" when it can: groups <= 0 or channels not divisible by the groups
// (Arm NN has no groups parameter: the layer is chosen from them), a negative value of an unsigned
// parameter, a stride or kernel size below 1 or an output size below 0 (the plugin gives Arm NN the
// output's TensorInfo, and the spec's output size is defined for strides and kernels >= 1 only).
std::string inexpressible(const convcheck_conv_desc& d);

// Why Arm NN 20.08 has no layer for the (expressible) case, "" when it has one: grouped convolution
// other than depthwise, 3-D with kernel depth > 1, dtypes beyond f32/f16/bf16, sizes past unsigned int.
std::string no_layer(const convcheck_conv_desc& d);

// The layer and adaptation for an expressible case that has a layer.
Translation translate(const convcheck_conv_desc& d);

const char* layer_name(LayerKind kind);
armnn::DataType data_type(int32_t dtype);
armnn::DataType bias_type(int32_t dtype);

armnn::TensorInfo input_info(const Translation& t);
armnn::TensorInfo output_info(const Translation& t);
armnn::TensorInfo weights_info(const Translation& t);
armnn::TensorInfo bias_info(const Translation& t);
armnn::Convolution2dDescriptor convolution_descriptor(const Translation& t);
armnn::DepthwiseConvolution2dDescriptor depthwise_descriptor(const Translation& t);

// The runner's weights in the layer's order (weights_info's shape), bytes moved only.
std::vector<unsigned char> layer_weights(const convcheck_conv_desc& d, const Translation& t, const void* weights);
// The runner's bias in bias_info's dtype: its bytes, or bf16 widened to f32 (exact: a bf16 value is the
// f32 value whose low 16 bits are zero).
std::vector<unsigned char> layer_bias(const Translation& t, const void* bias);

// Asks the backend's ILayerSupport whether it runs the layer; "" when it does, else its reason.
std::string backend_refuses(const armnn::ILayerSupport& support, const Translation& t);

}  // namespace convcheck_armnn
