// A one-layer Arm NN network, optimized for CpuRef and loaded into a runtime: one input, the layer the
// caller adds (Convolution2d, DepthwiseConvolution2d, TransposeConvolution2d), one output; or a chain of
// two (a quantized convolution and the Activation layer of its narrowed output range). Shared by the
// armnn plugin's convolution (armnn_plugin.cpp), transposed convolution (armnn_transposed.cpp) and
// quantized convolution (armnn_quantized.cpp).
#pragma once

#include <armnn/ArmNN.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace convcheck_armnn {

extern const armnn::BackendId kCpuRef;

// The ABI's error code for an Arm NN exception: its checks of a layer's parameters and shapes
// (LayerValidationException, InvalidArgumentException) refuse the arguments.
int32_t error_code_of(const armnn::Exception& e);

// Arm NN's ILayerSupport reason as one line ("" stays a reason of its own).
std::string one_line(std::string reason);

class LoadedLayer {
public:
    // add_layer adds the layer (with its constant weights and bias) to the network and returns it; the
    // input and output slots get `input` and `output`. Throws PluginError (Optimize, LoadNetwork) or
    // armnn::Exception (the layer's own checks).
    LoadedLayer(std::shared_ptr<armnn::IRuntime> runtime, const std::function<armnn::IConnectableLayer*(armnn::INetwork&)>& add_layer,
                const armnn::TensorInfo& input, const armnn::TensorInfo& output);
    // A chain: add_layers adds its layers, connected and with their output TensorInfos set, and returns the
    // first (whose input slot 0 gets `input`) and the last (whose output slot 0 is the network's output).
    using Chain = std::pair<armnn::IConnectableLayer*, armnn::IConnectableLayer*>;
    LoadedLayer(std::shared_ptr<armnn::IRuntime> runtime, const std::function<Chain(armnn::INetwork&)>& add_layers,
                const armnn::TensorInfo& input);
    // A chain with more inputs (a post-op's operand, the prior dst): their input layers, binding ids 1, 2, ...
    // with `extra`'s TensorInfos, are handed to add_layers, which connects them.
    using Inputs = std::vector<armnn::IConnectableLayer*>;
    LoadedLayer(std::shared_ptr<armnn::IRuntime> runtime,
                const std::function<Chain(armnn::INetwork&, const Inputs&)>& add_layers, const armnn::TensorInfo& input,
                const std::vector<armnn::TensorInfo>& extra);
    LoadedLayer(const LoadedLayer&) = delete;
    LoadedLayer& operator=(const LoadedLayer&) = delete;
    ~LoadedLayer();

    // extra: the data of the extra inputs, in binding order.
    void run(const void* src, void* dst, const std::vector<const void*>& extra = {}) const;

private:
    void load(armnn::INetwork& network);

    std::shared_ptr<armnn::IRuntime> runtime_;
    armnn::NetworkId id_ = 0;
};

}  // namespace convcheck_armnn
