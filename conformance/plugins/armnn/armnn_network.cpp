#include "armnn_network.hpp"

#include <vector>

#include "convcheck/plugin_support.hpp"

namespace convcheck_armnn {

namespace support = convcheck_plugin_support;

const armnn::BackendId kCpuRef{"CpuRef"};

int32_t error_code_of(const armnn::Exception& e) {
    if (dynamic_cast<const armnn::LayerValidationException*>(&e) != nullptr ||
        dynamic_cast<const armnn::InvalidArgumentException*>(&e) != nullptr)
        return CONVCHECK_ERROR_INVALID_ARGUMENT;
    return CONVCHECK_ERROR_INTERNAL;
}

std::string one_line(std::string reason) {
    while (!reason.empty() && reason.back() == '\n') reason.pop_back();
    for (char& ch : reason)
        if (ch == '\n') ch = ' ';
    return reason.empty() ? std::string("Arm NN's CpuRef refused the layer without a reason") : reason;
}

namespace {

std::string joined(const std::vector<std::string>& messages) {
    std::string all;
    for (const std::string& m : messages) all += (all.empty() ? "" : "; ") + m;
    return all.empty() ? "no message" : all;
}

}  // namespace

LoadedLayer::LoadedLayer(std::shared_ptr<armnn::IRuntime> runtime,
                         const std::function<armnn::IConnectableLayer*(armnn::INetwork&)>& add_layer,
                         const armnn::TensorInfo& input_info, const armnn::TensorInfo& output_info)
    : LoadedLayer(std::move(runtime),
                  [&](armnn::INetwork& network) {
                      armnn::IConnectableLayer* layer = add_layer(network);
                      layer->GetOutputSlot(0).SetTensorInfo(output_info);
                      return Chain{layer, layer};
                  },
                  input_info) {}

LoadedLayer::LoadedLayer(std::shared_ptr<armnn::IRuntime> runtime, const std::function<Chain(armnn::INetwork&)>& add_layers,
                         const armnn::TensorInfo& input_info)
    : LoadedLayer(std::move(runtime), [&](armnn::INetwork& network, const Inputs&) { return add_layers(network); },
                  input_info, {}) {}

LoadedLayer::LoadedLayer(std::shared_ptr<armnn::IRuntime> runtime,
                         const std::function<Chain(armnn::INetwork&, const Inputs&)>& add_layers,
                         const armnn::TensorInfo& input_info, const std::vector<armnn::TensorInfo>& extra)
    : runtime_(std::move(runtime)) {
    armnn::INetworkPtr network = armnn::INetwork::Create();
    armnn::IConnectableLayer* input = network->AddInputLayer(0, "src");
    Inputs inputs;
    for (size_t k = 0; k < extra.size(); ++k) {
        const std::string name = "input_" + std::to_string(k + 1);
        inputs.push_back(network->AddInputLayer(armnn::LayerBindingId(k + 1), name.c_str()));
        inputs.back()->GetOutputSlot(0).SetTensorInfo(extra[k]);
    }
    const Chain chain = add_layers(*network, inputs);
    armnn::IConnectableLayer* output = network->AddOutputLayer(0, "dst");
    input->GetOutputSlot(0).Connect(chain.first->GetInputSlot(0));
    chain.second->GetOutputSlot(0).Connect(output->GetInputSlot(0));
    input->GetOutputSlot(0).SetTensorInfo(input_info);
    load(*network);
}

void LoadedLayer::load(armnn::INetwork& network) {
    std::vector<std::string> messages;
    armnn::IOptimizedNetworkPtr optimized = armnn::Optimize(network, {kCpuRef}, runtime_->GetDeviceSpec(),
                                                            armnn::OptimizerOptions(),
                                                            armnn::Optional<std::vector<std::string>&>(messages));
    if (!optimized) throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, "Arm NN's Optimize failed: " + joined(messages));
    std::string message;
    if (runtime_->LoadNetwork(id_, std::move(optimized), message, armnn::INetworkProperties()) != armnn::Status::Success)
        throw support::PluginError(CONVCHECK_ERROR_INTERNAL, "Arm NN's LoadNetwork failed: " + message);
}

LoadedLayer::~LoadedLayer() { runtime_->UnloadNetwork(id_); }

void LoadedLayer::run(const void* src, void* dst, const std::vector<const void*>& extra) const {
    armnn::InputTensors inputs{{0, armnn::ConstTensor(runtime_->GetInputTensorInfo(id_, 0), src)}};
    for (size_t k = 0; k < extra.size(); ++k) {
        const auto id = armnn::LayerBindingId(k + 1);
        inputs.push_back({id, armnn::ConstTensor(runtime_->GetInputTensorInfo(id_, id), extra[k])});
    }
    const armnn::OutputTensors outputs{{0, armnn::Tensor(runtime_->GetOutputTensorInfo(id_, 0), dst)}};
    if (runtime_->EnqueueWorkload(id_, inputs, outputs) != armnn::Status::Success)
        throw support::PluginError(CONVCHECK_ERROR_INTERNAL, "Arm NN's EnqueueWorkload failed");
}

}  // namespace convcheck_armnn
