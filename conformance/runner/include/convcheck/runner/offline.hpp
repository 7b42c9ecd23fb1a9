// Offline runs (docs/offline.md): `convcheck export` writes every case's inputs as .npy files and a manifest;
// a device computes the outputs with its own tools and writes them beside the inputs; `convcheck judge` reads
// them. Both go through the one case pipeline (case_pipeline.cpp) with the backend's execution replaced by an
// OfflineExecution: export's records the inputs the pipeline made, judge's hands the pipeline the device's
// outputs in their place. So the data, the contract, the verdict and the expected failures are run's own.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "convcheck/abi/exec_messages.hpp"
#include "convcheck/runner/case.hpp"
#include "convcheck/runner/child_process.hpp"
#include "convcheck/runner/conv_buffers.hpp"
#include "convcheck/runner/operation_calls.hpp"

namespace convcheck::runner {

// One tensor of a case's pass (the exec protocol's name, dtype, layout and shape) and the runner's buffer that holds it.
struct OfflineTensor {
    convcheck_exec::Tensor tensor;
    const GuardedBuffer* buffer = nullptr;
    bool output = false;  // the device writes it (dst, diff_src, diff_weights, diff_bias)
};

// The stand-in for one case's execution (Backend::offline).
class OfflineExecution {
public:
    virtual ~OfflineExecution() = default;
    // The forward pass of discrete convolution on b (dense tensors, the case's layouts and dtypes): export
    // writes b's inputs; judge checks them against the exported ones and fills b.dst with the device's output.
    // The outcome is the pipeline's, as an isolated execution's would be.
    virtual ChildOutcome conv(const ConvDescriptor& d, const Buffers& b) = 0;
    // A backward pass of discrete convolution (x.desc's prop_kind; backward/data.cpp): its inputs (diff_dst and
    // weights, or src and diff_dst) and its outputs (diff_src, or diff_weights and diff_bias) as for conv.
    virtual ChildOutcome backward(const ConvBackwardExecution& x) = 0;
    // A quantized convolution (its ABI descriptor, with the quantization extension and the integer dtypes): src,
    // weights, bias (null without one) and dst, dense in the case's layouts, as for conv.
    virtual ChildOutcome quantized(const convcheck_conv_desc& desc, const GuardedBuffer& src, const GuardedBuffer& weights,
                                   const GuardedBuffer* bias, const GuardedBuffer& dst) = 0;
    // A transposed convolution (its ABI descriptor): src, weights, bias (null without one) and dst, as for conv.
    virtual ChildOutcome transposed(const convcheck_conv_transposed_desc& desc, const GuardedBuffer& src,
                                    const GuardedBuffer& weights, const GuardedBuffer* bias, const GuardedBuffer& dst) = 0;
};

// Why an offline run does not carry this case ("" when it does): an operation, pass, mode or memory layout
// export cannot write yet. The pipeline declines the case with it (after the claims), export and judge alike.
std::string offline_not_carried(const Case& c);

// The file of one tensor of a case: "<case file stem>.<tensor>.npy", e.g. "smoke-0003.dst.npy".
std::string offline_file_stem(const Case& c);  // "smoke-0003" for the case id "smoke/0003"
std::string offline_tensor_file(const Case& c, const std::string& tensor);

// Export's execution: writes the inputs into `dir` and the case's "inputs"/"outputs" entries into `entry`.
class ExportExecution : public OfflineExecution {
public:
    ExportExecution(std::filesystem::path dir, const Case& c) : dir_(std::move(dir)), c_(c) {}
    ChildOutcome conv(const ConvDescriptor& d, const Buffers& b) override;
    ChildOutcome backward(const ConvBackwardExecution& x) override;
    ChildOutcome quantized(const convcheck_conv_desc& desc, const GuardedBuffer& src, const GuardedBuffer& weights,
                           const GuardedBuffer* bias, const GuardedBuffer& dst) override;
    ChildOutcome transposed(const convcheck_conv_transposed_desc& desc, const GuardedBuffer& src,
                            const GuardedBuffer& weights, const GuardedBuffer* bias, const GuardedBuffer& dst) override;
    bool written() const { return written_; }
    const nlohmann::json& entry() const { return entry_; }

private:
    // `desc`: the descriptor the manifest gives the device (a quantized case's, with the values drawn for it), or null
    ChildOutcome write(const std::vector<OfflineTensor>& tensors, const nlohmann::json& descriptor = nullptr);
    std::filesystem::path dir_;
    const Case& c_;
    bool written_ = false;
    nlohmann::json entry_;
};

// Judge's execution: the case's exported inputs must be the ones the pipeline made again (else the case is an
// error naming the tensor: export and judge must be the same convcheck and declarations); each output is read
// from its file in `dir`, and must exist and be a well-formed .npy of the case's dtype and shape, else the case
// fails naming the file and why. A "<case>.declined" file (the device's reason, as text) declines the case.
class JudgeExecution : public OfflineExecution {
public:
    JudgeExecution(std::filesystem::path dir, const Case& c) : dir_(std::move(dir)), c_(c) {}
    ChildOutcome conv(const ConvDescriptor& d, const Buffers& b) override;
    ChildOutcome backward(const ConvBackwardExecution& x) override;
    ChildOutcome quantized(const convcheck_conv_desc& desc, const GuardedBuffer& src, const GuardedBuffer& weights,
                           const GuardedBuffer* bias, const GuardedBuffer& dst) override;
    ChildOutcome transposed(const convcheck_conv_transposed_desc& desc, const GuardedBuffer& src,
                            const GuardedBuffer& weights, const GuardedBuffer* bias, const GuardedBuffer& dst) override;

private:
    ChildOutcome read(const std::vector<OfflineTensor>& tensors);
    std::filesystem::path dir_;
    const Case& c_;
};

}  // namespace convcheck::runner
