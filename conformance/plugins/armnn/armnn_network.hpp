// A one-layer Arm NN network, optimized for CpuRef and loaded into a runtime: one input, the layer the
// caller adds (Convolution2d, DepthwiseConvolution2d, TransposeConvolution2d), one output. Shared by the
// armnn plugin's convolution (armnn_plugin.cpp) and transposed convolution (armnn_transposed.cpp).
#pragma once

#include <armnn/ArmNN.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

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
    LoadedLayer(const LoadedLayer&) = delete;
    LoadedLayer& operator=(const LoadedLayer&) = delete;
    ~LoadedLayer();

    void run(const void* src, void* dst) const;

private:
    std::shared_ptr<armnn::IRuntime> runtime_;
    armnn::NetworkId id_ = 0;
};

}  // namespace convcheck_armnn
