// The armnn plugin's fused post-ops (ABI 1.6/1.7, convcheck/plugin/post_ops.h): the chain as Arm NN layers after
// the convolution layer, each the layer whose formula is the op's (armnn_post_ops.cpp): Activation,
// ElementwiseUnary Exp, Addition/Subtraction/Multiplication/Division/Maximum/Minimum and Prelu with the operand
// (or the prior dst, for a sum) as a further input of the network.
#pragma once

#include <armnn/ArmNN.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "armnn_layer.hpp"
#include "armnn_network.hpp"
#include "convcheck/plugin.h"

namespace convcheck_armnn {

// What the plugin claims (plugin_info): post_ops_accepts still declines a parameter Arm NN's layer lacks.
uint32_t claimed_post_op_kinds();
uint32_t claimed_eltwise_algorithms();
uint32_t claimed_binary_algorithms();

// "" when the plugin builds this chain from Arm NN layers, else why not (in Arm NN's words).
std::string post_ops_accepts(const convcheck_conv_desc& desc, const convcheck_post_ops& ops);

// The TensorInfos of the network's further inputs: one per binary or prelu op (its operand, broadcast over the
// library's output dims by size-1 dims) and one for a sum (the prior dst), in the chain's order.
std::vector<armnn::TensorInfo> post_op_inputs(const Translation& t, const convcheck_post_ops& ops);

// Adds the chain's layers after `conv` (whose output is `output`), connecting `inputs` (post_op_inputs' input
// layers); returns the last layer.
armnn::IConnectableLayer* add_post_op_layers(armnn::INetwork& network, armnn::IConnectableLayer* conv,
                                             const armnn::TensorInfo& output, const convcheck_post_ops& ops,
                                             const LoadedLayer::Inputs& inputs);

// The data of post_op_inputs for one execute: each op's operand from args, and `prior_dst` for a sum.
std::vector<const void*> post_op_data(const convcheck_post_ops& ops, const convcheck_conv_args& args, const void* prior_dst);

bool has_sum(const convcheck_post_ops& ops);

// The layers' names for the implementation string, e.g. "+Activation(BoundedReLu)+Addition".
std::string post_op_names(const convcheck_post_ops& ops);

}  // namespace convcheck_armnn
