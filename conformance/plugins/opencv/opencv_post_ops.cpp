// The opencv plugin's fused post-ops (opencv_post_ops.hpp). Each eltwise op becomes the OpenCV 4.6 dnn
// activation layer (opencv2/dnn/all_layers.hpp, LayerParams read by its create()) whose forward formula is the
// op's (docs/post-ops.md), added after the Convolution layer with Net::addLayerToPrev:
//   relu alpha        "ReLU" negative_slope = alpha           x >= 0 ? x : negative_slope * x
//   clip alpha beta   "ReLU6" min_value = alpha, max_value = beta    min(max(min_value, x), max_value)
//   linear alpha beta "Power" power 1, scale alpha, shift beta      (shift + scale * x)^power
//   square            "Power" power 2, scale 1, shift 0
//   pow 1 beta        "Power" power beta, scale 1, shift 0
//   round             "Round" (to nearest, ties to even)      tanh "TanH"     logistic "Sigmoid" 1 / (1 + exp(-x))
//   swish 1           "Swish" x / (1 + exp(-x))               mish "Mish" x * tanh(log(1 + exp(x)))
//   elu alpha         "ELU" alpha                             x >= 0 ? x : alpha * (exp(x) - 1)
//   exp               "Exp" base e (-1), scale 1, shift 0     exp(scale * x + shift)
//   abs "AbsVal", sqrt "Sqrt", log "Log"
//   hardswish         "HardSwish" x * max(0, min(1, x / 6 + 0.5)) (oneDNN 2.6's x min(max(x + 3, 0), 6) / 6)
//   hardsigmoid a b   "HardSigmoid" alpha, beta               max(0, min(1, alpha * x + beta))
//   soft_relu 1       "Softplus" log(1 + exp(x))
// OpenCV computes each in f32 (its Mish returns x itself from x >= 8, within mish's allowance). It has no GELU
// layer, no swish, softplus or pow with another alpha, no hardswish with alpha and beta; the sum, binary and
// prelu post-ops (OpenCV's two-input Eltwise layer, ChannelsPReLU) are not built by the plugin.
#include "opencv_post_ops.hpp"

#include <string>

namespace convcheck_opencv {

namespace {

cv::dnn::LayerParams layer(const std::string& type, int64_t k) {
    cv::dnn::LayerParams p;
    p.type = type;
    p.name = "post_op_" + std::to_string(k);
    return p;
}

cv::dnn::LayerParams power(int64_t k, float power, float scale, float shift) {
    cv::dnn::LayerParams p = layer("Power", k);
    p.set("power", power);
    p.set("scale", scale);
    p.set("shift", shift);
    return p;
}

// The layer of eltwise op k, or one of type "" when OpenCV has none of its formula.
cv::dnn::LayerParams eltwise_layer(const convcheck_post_op& op, int64_t k) {
    switch (op.algorithm) {
        case CONVCHECK_ELTWISE_RELU: {
            cv::dnn::LayerParams p = layer("ReLU", k);
            p.set("negative_slope", op.alpha);
            return p;
        }
        case CONVCHECK_ELTWISE_CLIP: {
            cv::dnn::LayerParams p = layer("ReLU6", k);
            p.set("min_value", op.alpha);
            p.set("max_value", op.beta);
            return p;
        }
        case CONVCHECK_ELTWISE_LINEAR: return power(k, 1.0f, op.alpha, op.beta);
        case CONVCHECK_ELTWISE_SQUARE: return power(k, 2.0f, 1.0f, 0.0f);
        case CONVCHECK_ELTWISE_POW: return op.alpha == 1.0f ? power(k, op.beta, 1.0f, 0.0f) : layer("", k);
        case CONVCHECK_ELTWISE_ROUND: return layer("Round", k);
        case CONVCHECK_ELTWISE_TANH: return layer("TanH", k);
        case CONVCHECK_ELTWISE_LOGISTIC: return layer("Sigmoid", k);
        case CONVCHECK_ELTWISE_SWISH: return op.alpha == 1.0f ? layer("Swish", k) : layer("", k);
        case CONVCHECK_ELTWISE_MISH: return layer("Mish", k);
        case CONVCHECK_ELTWISE_ELU: {
            cv::dnn::LayerParams p = layer("ELU", k);
            p.set("alpha", op.alpha);
            return p;
        }
        case CONVCHECK_ELTWISE_EXP: return layer("Exp", k);  // base -1 (e), scale 1, shift 0: its defaults
        case CONVCHECK_ELTWISE_ABS: return layer("AbsVal", k);
        case CONVCHECK_ELTWISE_SQRT: return layer("Sqrt", k);
        case CONVCHECK_ELTWISE_LOG: return layer("Log", k);
        case CONVCHECK_ELTWISE_HARDSWISH: return layer("HardSwish", k);
        case CONVCHECK_ELTWISE_HARDSIGMOID: {
            cv::dnn::LayerParams p = layer("HardSigmoid", k);
            p.set("alpha", op.alpha);
            p.set("beta", op.beta);
            return p;
        }
        case CONVCHECK_ELTWISE_SOFT_RELU: return op.alpha == 1.0f ? layer("Softplus", k) : layer("", k);
        default: return layer("", k);
    }
}

// Why OpenCV 4.6 has no activation layer of op's formula, in its words.
std::string eltwise_missing(const convcheck_post_op& op) {
    const std::string alpha = std::to_string(op.alpha);
    switch (op.algorithm) {
        case CONVCHECK_ELTWISE_GELU_TANH:
        case CONVCHECK_ELTWISE_GELU_ERF:
            return "OpenCV 4.6 dnn has no GELU layer (opencv2/dnn/all_layers.hpp; its Erf layer is erf(x) alone)";
        case CONVCHECK_ELTWISE_SWISH:
            return "OpenCV 4.6's Swish layer is x / (1 + exp(-x)): it takes no alpha (here " + alpha + ")";
        case CONVCHECK_ELTWISE_SOFT_RELU:
            return "OpenCV 4.6's Softplus layer is log(1 + exp(x)): it takes no alpha (here " + alpha + ")";
        case CONVCHECK_ELTWISE_POW:
            return "OpenCV 4.6's Power layer is (shift + scale * x)^power: it has no factor outside the power (pow's "
                   "alpha x^beta with alpha " + alpha + ")";
        case CONVCHECK_ELTWISE_HARDSWISH_AB:
            return "OpenCV 4.6's HardSwish layer is x * max(0, min(1, x / 6 + 0.5)): it takes no alpha or beta";
        default: return "OpenCV 4.6 dnn has no activation layer for eltwise algorithm " + std::to_string(op.algorithm);
    }
}

}  // namespace

uint32_t claimed_eltwise_algorithms() {
    uint32_t bits = 0;
    for (int32_t a : {CONVCHECK_ELTWISE_RELU, CONVCHECK_ELTWISE_CLIP, CONVCHECK_ELTWISE_LINEAR, CONVCHECK_ELTWISE_ROUND,
                      CONVCHECK_ELTWISE_TANH, CONVCHECK_ELTWISE_LOGISTIC, CONVCHECK_ELTWISE_SWISH, CONVCHECK_ELTWISE_HARDSWISH,
                      CONVCHECK_ELTWISE_ELU, CONVCHECK_ELTWISE_EXP, CONVCHECK_ELTWISE_SQUARE, CONVCHECK_ELTWISE_ABS,
                      CONVCHECK_ELTWISE_SQRT, CONVCHECK_ELTWISE_SOFT_RELU, CONVCHECK_ELTWISE_LOG, CONVCHECK_ELTWISE_HARDSIGMOID,
                      CONVCHECK_ELTWISE_MISH, CONVCHECK_ELTWISE_POW})
        bits |= 1u << a;
    return bits;
}

std::string post_ops_accepts(const convcheck_conv_desc&, const convcheck_post_ops& ops) {
    for (int64_t k = 0; k < ops.count; ++k) {
        const convcheck_post_op& op = ops.ops[k];
        if (op.kind != CONVCHECK_POST_OP_ELTWISE)
            return "the opencv plugin builds the Convolution layer and activation layers after it (one input, "
                   "Net::setInput): it takes no sum, binary or prelu post-op";
        if (eltwise_layer(op, k).type.empty()) return eltwise_missing(op);
    }
    return "";
}

std::vector<cv::dnn::LayerParams> post_op_layers(const convcheck_post_ops& ops) {
    std::vector<cv::dnn::LayerParams> layers;
    for (int64_t k = 0; k < ops.count; ++k) layers.push_back(eltwise_layer(ops.ops[k], k));
    return layers;
}

}  // namespace convcheck_opencv
