// Offline runs' stand-ins for a case's execution (offline.hpp, docs/offline.md): export writes the inputs the
// pipeline made, judge reads the outputs a device wrote. The tensors, their names, dtypes, layouts and shapes are
// the exec protocol's (convcheck/abi/exec_messages.hpp): a device reads an exported case as an exec backend reads
// a "conv" message.
#include "convcheck/runner/offline.hpp"

#include <cstring>
#include <fstream>
#include <iterator>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/abi/exec_messages.hpp"
#include "convcheck/core/memory_layout.hpp"
#include "convcheck/formats/npy.hpp"
#include "convcheck/runner/isolation.hpp"
#include "convcheck/runner/operation_traits.hpp"

namespace convcheck::runner {

namespace {

using nlohmann::json;

// How a tensor of this ABI dtype is stored in a .npy file: bf16 as its bit patterns (numpy has no bfloat16).
npy::ElementType npy_type(std::int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F32: return npy::ElementType::f32;
        case CONVCHECK_F16: return npy::ElementType::f16;
        case CONVCHECK_BF16: return npy::ElementType::u16;
        case CONVCHECK_F64: return npy::ElementType::f64;
        case CONVCHECK_U8: return npy::ElementType::u8;
        case CONVCHECK_S8: return npy::ElementType::i8;
        case CONVCHECK_S32: return npy::ElementType::i32;
    }
    throw std::invalid_argument("dtype " + convcheck_exec::dtype_name(dtype) + ": offline runs carry f32, f16, bf16, "
                                "f64, u8, s8 and s32 tensors");
}

// The pass's tensors (the exec protocol's, convcheck/abi/exec_messages.hpp), each with the runner's buffer named in
// `buffers` (src, weights, bias, dst, diff_dst, diff_src, diff_weights, diff_bias).
std::vector<OfflineTensor> with_buffers(std::vector<convcheck_exec::Tensor> pass,
                                        const std::vector<std::pair<std::string, const GuardedBuffer*>>& buffers) {
    std::vector<OfflineTensor> tensors;
    for (convcheck_exec::Tensor& t : pass) {
        const GuardedBuffer* buffer = nullptr;
        for (const auto& [name, b] : buffers)
            if (name == t.name) buffer = b;
        if (buffer == nullptr) throw std::logic_error("offline: no buffer for the pass's tensor " + t.name);
        if (buffer->bytes() != t.bytes)
            throw std::logic_error("offline: " + t.name + " holds " + std::to_string(buffer->bytes()) + " bytes, not " +
                                   std::to_string(t.bytes) + " (a dense tensor)");
        // the exec protocol's outputs: dst, diff_src, diff_weights, diff_bias (every other tensor is an input)
        const bool output = t.name == "dst" || (t.name.rfind("diff_", 0) == 0 && t.name != "diff_dst");
        tensors.push_back({std::move(t), buffer, output});
    }
    return tensors;
}

std::vector<OfflineTensor> pass_tensors(const convcheck_conv_desc& desc,
                                        const std::vector<std::pair<std::string, const GuardedBuffer*>>& buffers) {
    std::uint64_t bytes = 0;
    return with_buffers(convcheck_exec::case_tensors(desc, nullptr, &bytes), buffers);
}

std::vector<OfflineTensor> forward_tensors(const ConvDescriptor& d, const Buffers& b) {
    return pass_tensors(to_abi(d), {{"src", &b.src}, {"weights", &b.weights}, {"bias", &b.bias}, {"dst", &b.dst}});
}

std::vector<OfflineTensor> backward_tensors(const ConvBackwardExecution& x) {
    return pass_tensors(x.desc, {{"src", x.src}, {"weights", x.weights}, {"diff_dst", x.diff_dst}, {"diff_src", x.diff_src},
                                 {"diff_weights", x.diff_weights}, {"diff_bias", x.diff_bias}});
}

std::vector<OfflineTensor> quantized_tensors(const convcheck_conv_desc& desc, const GuardedBuffer& src,
                                            const GuardedBuffer& weights, const GuardedBuffer* bias, const GuardedBuffer& dst) {
    std::vector<std::pair<std::string, const GuardedBuffer*>> buffers = {{"src", &src}, {"weights", &weights}, {"dst", &dst}};
    if (bias) buffers.emplace_back("bias", bias);
    return pass_tensors(desc, buffers);
}

std::vector<OfflineTensor> transposed_tensors(const convcheck_conv_transposed_desc& desc, const GuardedBuffer& src,
                                             const GuardedBuffer& weights, const GuardedBuffer* bias,
                                             const GuardedBuffer& dst) {
    std::vector<std::pair<std::string, const GuardedBuffer*>> buffers = {{"src", &src}, {"weights", &weights}, {"dst", &dst}};
    if (bias) buffers.emplace_back("bias", bias);
    std::uint64_t bytes = 0;
    return with_buffers(convcheck_exec::transposed_tensors(desc, nullptr, &bytes), buffers);
}

json tensor_entry(const Case& c, const convcheck_exec::Tensor& t) {
    return {{"file", offline_tensor_file(c, t.name)}, {"dtype", convcheck_exec::dtype_name(t.dtype)},
            {"npy_descr", std::string(npy::descr(npy_type(t.dtype)))}, {"layout", t.layout}, {"shape", t.shape}};
}

std::string shape_text(const std::vector<std::int64_t>& shape) { return json(shape).dump(); }

ChildOutcome error_outcome(std::string reason) {
    ChildOutcome o;
    o.kind = ChildOutcome::Kind::plugin_error;
    o.reason = std::move(reason);
    return o;
}

}  // namespace

std::string offline_not_carried(const Case& c) {
    const std::string later = "; an offline run declines it, counted (docs/offline.md)";
    if (c.op != Op::conv && c.op != Op::conv_bwd_data && c.op != Op::conv_bwd_weights && c.op != Op::conv_quantized &&
        c.op != Op::conv_transposed)
        return std::string("offline runs carry discrete convolution's forward and backward passes, quantized and "
                           "transposed convolution, not ") +
               operation(c.op).words + later;
    if (c.mode != accuracy::Mode::exact && c.mode != accuracy::Mode::bound)
        return std::string("offline runs carry exact and bound mode, one execution per case, not ") +
               accuracy::to_string(c.mode) + " mode" + later;
    if (c.op == Op::conv_transposed) return "";  // dense, no post-ops or scales
    const ConvDescriptor& d = c.op == Op::conv_quantized ? c.qconv.conv : c.conv;
    for (const TensorRole role : {TensorRole::src, TensorRole::weights, TensorRole::dst})
        if (!layout_of(d, role).dense())
            return "offline runs carry dense tensors (a .npy file is a dense C-order array); " +
                   std::string(to_string(role)) + " is strided" + later;
    if (!d.post_ops.empty()) return "offline runs do not carry post-ops (po=) yet" + later;
    if (d.scales.present()) return "offline runs do not carry scales (ssc=, wsc=, dsc=) yet" + later;
    if (c.op == Op::conv_quantized && !c.qconv.dst_scales.empty())
        return "offline runs (exec protocol 1.1) carry one dst scale, not one per output channel (dsc=a:b:...)" + later;
    return "";
}

std::string offline_file_stem(const Case& c) {
    std::string stem;
    for (const char ch : c.id) {
        const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                           ch == '-' || ch == '_' || ch == '.';
        stem += plain ? ch : '-';
    }
    return stem;
}

std::string offline_tensor_file(const Case& c, const std::string& tensor) {
    return offline_file_stem(c) + "." + tensor + ".npy";
}

ChildOutcome ExportExecution::conv(const ConvDescriptor& d, const Buffers& b) { return write(forward_tensors(d, b)); }

ChildOutcome ExportExecution::backward(const ConvBackwardExecution& x) { return write(backward_tensors(x)); }

ChildOutcome ExportExecution::quantized(const convcheck_conv_desc& desc, const GuardedBuffer& src,
                                        const GuardedBuffer& weights, const GuardedBuffer* bias, const GuardedBuffer& dst) {
    return write(quantized_tensors(desc, src, weights, bias, dst), convcheck_exec::descriptor_json(desc));
}

ChildOutcome ExportExecution::transposed(const convcheck_conv_transposed_desc& desc, const GuardedBuffer& src,
                                         const GuardedBuffer& weights, const GuardedBuffer* bias, const GuardedBuffer& dst) {
    return write(transposed_tensors(desc, src, weights, bias, dst), convcheck_exec::transposed_descriptor_json(desc));
}

ChildOutcome ExportExecution::write(const std::vector<OfflineTensor>& tensors, const json& descriptor) {
    if (!descriptor.is_null()) {  // a quantized case's drawn values, a transposed one's descriptor: the device's to read
        entry_["descriptor"] = descriptor;
        entry_["pass"] = entry_["descriptor"]["pass"];
    }
    entry_["inputs"] = json::object();
    entry_["outputs"] = json::object();
    for (const auto& [t, buffer, output] : tensors) {
        const json e = tensor_entry(c_, t);
        if (output) {
            entry_["outputs"][t.name] = e;
            continue;
        }
        npy::write_file(dir_ / e["file"].get<std::string>(), npy::from_bytes(npy_type(t.dtype), buffer->data(), t.shape));
        entry_["inputs"][t.name] = e;
    }
    written_ = true;
    // nothing ran: the pipeline stops here, and export records the case as written
    return unsupported_outcome("exported");
}

ChildOutcome JudgeExecution::conv(const ConvDescriptor& d, const Buffers& b) { return read(forward_tensors(d, b)); }

ChildOutcome JudgeExecution::backward(const ConvBackwardExecution& x) { return read(backward_tensors(x)); }

ChildOutcome JudgeExecution::quantized(const convcheck_conv_desc& desc, const GuardedBuffer& src,
                                       const GuardedBuffer& weights, const GuardedBuffer* bias, const GuardedBuffer& dst) {
    return read(quantized_tensors(desc, src, weights, bias, dst));
}

ChildOutcome JudgeExecution::transposed(const convcheck_conv_transposed_desc& desc, const GuardedBuffer& src,
                                        const GuardedBuffer& weights, const GuardedBuffer* bias, const GuardedBuffer& dst) {
    return read(transposed_tensors(desc, src, weights, bias, dst));
}

ChildOutcome JudgeExecution::read(const std::vector<OfflineTensor>& tensors) {
    const std::filesystem::path declined = dir_ / (offline_file_stem(c_) + ".declined");
    if (std::filesystem::exists(declined)) {
        std::ifstream in(declined);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
        return unsupported_outcome("the device declined it (" + declined.filename().string() + "): " +
                                   (text.empty() ? "no reason given" : text));
    }
    for (const auto& [t, buffer, output] : tensors) {
        const std::string file = offline_tensor_file(c_, t.name);
        const std::string expected_descr(npy::descr(npy_type(t.dtype)));
        const std::string role = output ? "output" : "exported input";
        if (!std::filesystem::exists(dir_ / file))
            return error_outcome("offline " + role + " " + file + " is missing: " +
                                 (output ? "the device wrote no such file" : "export wrote it, and it is gone"));
        npy::Array a;
        try {
            a = npy::read_file(dir_ / file);
        } catch (const std::exception& e) {
            return error_outcome("offline " + role + " " + file + " is not a well-formed .npy file: " + e.what());
        }
        const std::string got_descr(npy::descr(a.type));
        if (got_descr != expected_descr)
            return error_outcome("offline " + role + " " + file + " holds '" + got_descr + "' where the case's " +
                                 t.name + " is " + convcheck_exec::dtype_name(t.dtype) + " ('" + expected_descr +
                                 "'" + (t.dtype == CONVCHECK_BF16 ? ", bf16 bit patterns" : "") + ")");
        if (a.shape != t.shape)
            return error_outcome("offline " + role + " " + file + " has shape " + shape_text(a.shape) +
                                 " where the case's " + t.name + " is " + shape_text(t.shape) + " (" + t.layout + ")");
        if (a.data.size() != buffer->bytes())
            throw std::logic_error("judge: " + t.name + " holds " + std::to_string(buffer->bytes()) + " bytes, not " +
                                   std::to_string(a.data.size()));
        if (output) {
            std::memcpy(buffer->data(), a.data.data(), a.data.size());
        } else if (std::memcmp(buffer->data(), a.data.data(), a.data.size()) != 0) {
            return error_outcome("offline exported input " + file + " differs from the " + t.name +
                                 " convcheck makes for this case again: export and judge must be the same convcheck "
                                 "with the same declarations (--expectations)");
        }
    }
    return {};
}

}  // namespace convcheck::runner
