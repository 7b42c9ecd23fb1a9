// The exec protocol's messages (docs/exec-protocol.md): a convcheck_conv_desc as JSON, the tensors of a pass with
// their shapes (and places in shared memory), and a backend's claims read into convcheck_plugin_info. The exec bridge
// plugin speaks them; an offline run's manifest (docs/offline.md) describes its cases with them. Pure: no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "convcheck/plugin.h"
#include "convcheck/plugin_quantized.hpp"

namespace convcheck_exec {

// One tensor of a case: its name in the protocol, its dtype and shape (dimensions in memory order, outermost
// first), its place in the shared memory and the runner's buffer it comes from or goes to.
struct Tensor {
    std::string name;  // src, weights, bias, dst, diff_src, diff_weights, diff_bias, diff_dst
    std::int32_t dtype = CONVCHECK_F32;
    std::string layout;  // ncx, nxc, oix, xio, oxi, x (bias)
    std::vector<std::int64_t> shape;
    std::uint64_t offset = 0, bytes = 0;
    const void* input = nullptr;  // runner's buffer (an input)
    void* output = nullptr;       // runner's buffer (an output)
};

// The inputs and outputs of the case's pass, laid out one after another (64-byte aligned); total bytes in *size.
// Throws std::invalid_argument for a dtype the protocol does not carry.
std::vector<Tensor> case_tensors(const convcheck_conv_desc& desc, const convcheck_conv_args* args, std::uint64_t* size);

// A transposed convolution's tensors (protocol 1.1: src, weights, bias, dst, transposed.h's shapes) and descriptor
// ("operation": "conv_transposed", with "output_padding").
std::vector<Tensor> transposed_tensors(const convcheck_conv_transposed_desc& desc, const convcheck_conv_args* args,
                                       std::uint64_t* size);
nlohmann::json transposed_descriptor_json(const convcheck_conv_transposed_desc& desc);

// The quantization extension on desc's chain (a quantized case, ABI 1.5), or null: plugin_quantized.hpp's.
using convcheck_plugin_support::quantization_of;

// The descriptor as the protocol carries it: the canonical string and the fields a backend needs; protocol 1.1:
// a quantized case's "quantization" object (its scales, zero points and output range, with the values drawn for it).
nlohmann::json descriptor_json(const convcheck_conv_desc& desc);

// A tensor's JSON entry: {"dtype", "layout", "shape", "offset", "bytes"}.
nlohmann::json tensor_json(const Tensor& t);

std::string dtype_name(std::int32_t dtype);       // "f32", ... ("?" for none)
std::string pass_name(std::int32_t prop_kind);    // "forward", "backward_data", "backward_weights"

// The claims a backend sent at the handshake, read into plugin_info's fields (strings into *name, *version).
// Throws std::invalid_argument naming the key, the value and the rule.
void read_claims(const nlohmann::json& claims, convcheck_plugin_info* info, std::string* name, std::string* version);

// Protocol 1.1's "zero_points_outside_types" claim (default false): the backend takes a quantized case whose zero
// points lie outside their tensors' types (oneDNN's s32 zero points, zpt=s32). plugin_info has no field for it (a
// plugin says so at conv_query); the bridge and an offline run read it here. Throws as read_claims does.
bool claims_zero_points_outside_types(const nlohmann::json& claims);

// The reply to "conv": empty when it is a "done" whose outputs are the ones asked for (same names, dtypes and
// shapes); else why not.
std::string check_outputs(const nlohmann::json& reply, const std::vector<Tensor>& tensors);

}  // namespace convcheck_exec
