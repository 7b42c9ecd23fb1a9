// The armnn plugin's fused post-ops (armnn_post_ops.hpp). CpuRef's formulas (its reference workloads,
// Activation.cpp, ElementwiseFunction, PreluImpl), each in f32, x the value before the op:
//   relu 0            Activation ReLu                 max(0, x)
//   relu alpha        Activation LeakyReLu a = alpha  x > 0 ? x : x * a
//   clip alpha beta   Activation BoundedReLu a = beta, b = alpha     min(a, max(b, x))
//   linear alpha beta Activation Linear a = alpha, b = beta          a * x + b
//   tanh              Activation TanH a = 1, b = 1    a * tanh(b * x)
//   logistic          Activation Sigmoid              1 / (1 + exp(-x))
//   soft_relu 1       Activation SoftReLu             log(1 + exp(x))
//   elu alpha         Activation Elu a = alpha        x >= 0 ? x : a * (exp(x) - 1)
//   hardswish         Activation HardSwish            x * min(max(x + 3, 0), 6) / 6
//   abs, sqrt, square Activation Abs, Sqrt, Square
//   exp               ElementwiseUnary Exp
//   add, sub, mul, div, max, min   Addition, Subtraction, Multiplication, Division, Maximum, Minimum (conv's
//                     output first): the operand an input of the network, shaped {1, 1, 1, 1} (per tensor),
//                     O at the channel's dim (per channel) or dst's shape (full); Arm NN broadcasts size-1 dims
//   prelu             Prelu, its alpha the weights, shaped likewise    x < 0 ? x * alpha : x
//   sum 1             Addition of the prior dst (an input of the network)
// Arm NN 20.08 (libarmnn 22.0; ActivationFunction, UnaryOperation in armnn/Types.hpp) has no round, swish, gelu,
// log, mish, pow, hardsigmoid or hardswish with alpha and beta, no soft_relu with another alpha. CpuRef writes each layer's
// output in the tensor's data type, so a Float16/BFloat16 convolution would round before the chain: post-ops are
// taken on f32 only. Operands are Float32 tensors (Arm NN's elementwise layers take both inputs in one type).
#include "armnn_post_ops.hpp"

#include <armnn/TypesUtils.hpp>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_support.hpp"

namespace convcheck_armnn {

namespace support = convcheck_plugin_support;

namespace {

const char* const kActivations =
    "(armnn/Types.hpp ActivationFunction: Sigmoid, TanH, Linear, ReLu, BoundedReLu, SoftReLu, LeakyReLu, Abs, Sqrt, "
    "Square, Elu, HardSwish; UnaryOperation: Abs, Exp, Sqrt, Rsqrt, Neg)";

// The Activation layer of eltwise op, false when it has none (exp: ElementwiseUnary).
bool activation_of(const convcheck_post_op& op, armnn::ActivationDescriptor* out) {
    using F = armnn::ActivationFunction;
    switch (op.algorithm) {
        case CONVCHECK_ELTWISE_RELU:
            *out = op.alpha == 0.0f ? armnn::ActivationDescriptor(F::ReLu) : armnn::ActivationDescriptor(F::LeakyReLu, op.alpha);
            return true;
        case CONVCHECK_ELTWISE_CLIP: *out = armnn::ActivationDescriptor(F::BoundedReLu, op.beta, op.alpha); return true;
        case CONVCHECK_ELTWISE_LINEAR: *out = armnn::ActivationDescriptor(F::Linear, op.alpha, op.beta); return true;
        case CONVCHECK_ELTWISE_TANH: *out = armnn::ActivationDescriptor(F::TanH, 1.0f, 1.0f); return true;
        case CONVCHECK_ELTWISE_LOGISTIC: *out = armnn::ActivationDescriptor(F::Sigmoid); return true;
        case CONVCHECK_ELTWISE_SOFT_RELU:
            if (op.alpha != 1.0f) return false;
            *out = armnn::ActivationDescriptor(F::SoftReLu);
            return true;
        case CONVCHECK_ELTWISE_ELU: *out = armnn::ActivationDescriptor(F::Elu, op.alpha); return true;
        case CONVCHECK_ELTWISE_HARDSWISH: *out = armnn::ActivationDescriptor(F::HardSwish); return true;
        case CONVCHECK_ELTWISE_ABS: *out = armnn::ActivationDescriptor(F::Abs); return true;
        case CONVCHECK_ELTWISE_SQRT: *out = armnn::ActivationDescriptor(F::Sqrt); return true;
        case CONVCHECK_ELTWISE_SQUARE: *out = armnn::ActivationDescriptor(F::Square); return true;
        default: return false;
    }
}

bool takes_input(const convcheck_post_op& op) { return op.kind != CONVCHECK_POST_OP_ELTWISE; }

armnn::IConnectableLayer* binary_layer(armnn::INetwork& network, int32_t algorithm, const char* name) {
    switch (algorithm) {
        case CONVCHECK_BINARY_ADD: return network.AddAdditionLayer(name);
        case CONVCHECK_BINARY_MUL: return network.AddMultiplicationLayer(name);
        case CONVCHECK_BINARY_MAX: return network.AddMaximumLayer(name);
        case CONVCHECK_BINARY_MIN: return network.AddMinimumLayer(name);
        case CONVCHECK_BINARY_SUB: return network.AddSubtractionLayer(name);
        default: return network.AddDivisionLayer(name);
    }
}

const char* binary_name(int32_t algorithm) {
    switch (algorithm) {
        case CONVCHECK_BINARY_ADD: return "Addition";
        case CONVCHECK_BINARY_MUL: return "Multiplication";
        case CONVCHECK_BINARY_MAX: return "Maximum";
        case CONVCHECK_BINARY_MIN: return "Minimum";
        case CONVCHECK_BINARY_SUB: return "Subtraction";
        default: return "Division";
    }
}

}  // namespace

uint32_t claimed_post_op_kinds() {
    return CONVCHECK_BIT(CONVCHECK_POST_OP_ELTWISE) | CONVCHECK_BIT(CONVCHECK_POST_OP_SUM) |
           CONVCHECK_BIT(CONVCHECK_POST_OP_BINARY) | CONVCHECK_BIT(CONVCHECK_POST_OP_PRELU);
}

uint32_t claimed_eltwise_algorithms() {
    uint32_t bits = 0;
    for (int32_t a : {CONVCHECK_ELTWISE_RELU, CONVCHECK_ELTWISE_CLIP, CONVCHECK_ELTWISE_LINEAR, CONVCHECK_ELTWISE_TANH,
                      CONVCHECK_ELTWISE_LOGISTIC, CONVCHECK_ELTWISE_HARDSWISH, CONVCHECK_ELTWISE_ELU, CONVCHECK_ELTWISE_EXP,
                      CONVCHECK_ELTWISE_SQUARE, CONVCHECK_ELTWISE_ABS, CONVCHECK_ELTWISE_SQRT, CONVCHECK_ELTWISE_SOFT_RELU})
        bits |= 1u << a;
    return bits;
}

uint32_t claimed_binary_algorithms() { return (1u << (CONVCHECK_BINARY_DIV + 1)) - 1; }

bool has_sum(const convcheck_post_ops& ops) {
    for (int64_t k = 0; k < ops.count; ++k)
        if (ops.ops[k].kind == CONVCHECK_POST_OP_SUM) return true;
    return false;
}

std::string post_ops_accepts(const convcheck_conv_desc& desc, const convcheck_post_ops& ops) {
    if (desc.dtype != CONVCHECK_F32)
        return std::string("Arm NN's CpuRef writes each layer's output in its tensor's data type: a ") +
               support::dtype_name(desc.dtype) + " convolution's result is rounded before the post-op layers, not once "
               "after the chain (the armnn plugin takes post-ops on f32 only)";
    const Translation t = translate(desc);
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        armnn::ActivationDescriptor a;
        if (op.kind == CONVCHECK_POST_OP_ELTWISE && op.algorithm != CONVCHECK_ELTWISE_EXP && !activation_of(op, &a)) {
            if (op.algorithm == CONVCHECK_ELTWISE_SOFT_RELU)
                return "Arm NN's SoftReLu activation is log(1 + exp(x)): it takes no alpha (here " + std::to_string(op.alpha) + ")";
            return "Arm NN 20.08 has no activation of eltwise algorithm " + std::to_string(op.algorithm) + " " + kActivations;
        }
        if (op.kind == CONVCHECK_POST_OP_SUM && (op.scale != 1.0f || op.zero_point != 0))
            return "Arm NN's Addition layer adds the prior dst as it is: it has no scale or zero point (here scale " +
                   std::to_string(op.scale) + ", zero point " + std::to_string(op.zero_point) + ")";
        if (op.kind == CONVCHECK_POST_OP_BINARY && support::operand_dtype_of(op) != CONVCHECK_F32)
            return std::string("Arm NN's elementwise layers take both inputs in one data type: the convolution's Float32 and "
                               "an operand of ") + support::dtype_name(support::operand_dtype_of(op));
        const bool dst_shaped = op.kind == CONVCHECK_POST_OP_SUM || (takes_input(op) && op.operand_broadcast == CONVCHECK_OPERAND_FULL);
        if (dst_shaped && support::moves_dst(desc, t.adaptation))
            return "the armnn plugin moves this case's dst into a copy of another layout or shape, which it does not do for "
                   "a sum's prior dst or a full operand";
    }
    return "";
}

std::vector<armnn::TensorInfo> post_op_inputs(const Translation& t, const convcheck_post_ops& ops) {
    const armnn::TensorInfo out = output_info(t);
    const unsigned int channel_dim = t.library.data_format == CONVCHECK_NXC ? 3 : 1;
    std::vector<armnn::TensorInfo> inputs;
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        if (!takes_input(op)) continue;
        if (op.kind == CONVCHECK_POST_OP_SUM || op.operand_broadcast == CONVCHECK_OPERAND_FULL) {
            inputs.push_back(out);
            continue;
        }
        armnn::TensorShape shape({1, 1, 1, 1});
        if (op.operand_broadcast == CONVCHECK_OPERAND_PER_OC) shape[channel_dim] = out.GetShape()[channel_dim];
        inputs.emplace_back(shape, armnn::DataType::Float32);
    }
    return inputs;
}

armnn::IConnectableLayer* add_post_op_layers(armnn::INetwork& network, armnn::IConnectableLayer* conv,
                                             const armnn::TensorInfo& output, const convcheck_post_ops& ops,
                                             const LoadedLayer::Inputs& inputs) {
    armnn::IConnectableLayer* last = conv;
    size_t next_input = 0;
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        const std::string name = "post_op_" + std::to_string(k);
        armnn::IConnectableLayer* layer = nullptr;
        armnn::ActivationDescriptor a;
        if (op.kind == CONVCHECK_POST_OP_ELTWISE && activation_of(op, &a))
            layer = network.AddActivationLayer(a, name.c_str());
        else if (op.kind == CONVCHECK_POST_OP_ELTWISE)
            layer = network.AddElementwiseUnaryLayer(armnn::ElementwiseUnaryDescriptor(armnn::UnaryOperation::Exp), name.c_str());
        else if (op.kind == CONVCHECK_POST_OP_PRELU)
            layer = network.AddPreluLayer(name.c_str());
        else if (op.kind == CONVCHECK_POST_OP_SUM)
            layer = network.AddAdditionLayer(name.c_str());
        else
            layer = binary_layer(network, op.algorithm, name.c_str());
        last->GetOutputSlot(0).Connect(layer->GetInputSlot(0));
        if (takes_input(op)) inputs.at(next_input++)->GetOutputSlot(0).Connect(layer->GetInputSlot(1));
        layer->GetOutputSlot(0).SetTensorInfo(output);
        last = layer;
    }
    return last;
}

std::vector<const void*> post_op_data(const convcheck_post_ops& ops, const convcheck_conv_args& args, const void* prior_dst) {
    std::vector<const void*> data;
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        if (!takes_input(op)) continue;
        const void* d = op.kind == CONVCHECK_POST_OP_SUM ? prior_dst : support::post_op_operand(args, k);
        if (d == nullptr)
            throw support::PluginError(CONVCHECK_ERROR_INVALID_ARGUMENT, "post_op_operands: op " + std::to_string(k) + " has no operand");
        data.push_back(d);
    }
    return data;
}

std::string post_op_names(const convcheck_post_ops& ops) {
    std::string names;
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        armnn::ActivationDescriptor a;
        if (op.kind == CONVCHECK_POST_OP_ELTWISE && activation_of(op, &a))
            names += std::string("+Activation(") + armnn::GetActivationFunctionAsCString(a.m_Function) + ")";
        else if (op.kind == CONVCHECK_POST_OP_ELTWISE)
            names += "+ElementwiseUnary(Exp)";
        else if (op.kind == CONVCHECK_POST_OP_PRELU)
            names += "+Prelu";
        else if (op.kind == CONVCHECK_POST_OP_SUM)
            names += "+Addition(prior dst)";
        else
            names += std::string("+") + binary_name(op.algorithm);
    }
    return names;
}

}  // namespace convcheck_armnn
