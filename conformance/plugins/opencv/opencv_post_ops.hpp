// The opencv plugin's fused post-ops (ABI 1.6/1.7, convcheck/plugin/post_ops.h): a chain of eltwise ops as
// OpenCV 4.6 dnn activation layers after the Convolution layer, each the layer whose formula is the op's
// (opencv_post_ops.cpp). OpenCV's net fuses them into the convolution itself where it can.
#pragma once

#include <opencv2/dnn.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/plugin.h"

namespace convcheck_opencv {

// The eltwise algorithms the plugin claims (plugin_info.eltwise_algorithms); post_ops_accepts still declines
// a parameter the layer lacks (swish and soft_relu alpha other than 1, pow alpha other than 1).
uint32_t claimed_eltwise_algorithms();

// "" when the plugin builds this chain from OpenCV's activation layers, else why not (OpenCV's words).
std::string post_ops_accepts(const convcheck_conv_desc& desc, const convcheck_post_ops& ops);

// The activation layers of an accepted chain, in order.
std::vector<cv::dnn::LayerParams> post_op_layers(const convcheck_post_ops& ops);

}  // namespace convcheck_opencv
