// Quantized convolution's jobs around its check (operation_jobs.hpp): reading and printing its "qconv:"
// descriptor, shrinking (the geometry's, the quantization kept), its benchdnn line, its multiply-adds, the
// runner's memory and the case record's features.
#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

#include "convcheck/abi/abi_quantized.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "convcheck/runner/failure_bundle.hpp"
#include "convcheck/runner/operation_jobs.hpp"
#include "convcheck/runner/shrink.hpp"
#include "operation.hpp"

namespace convcheck::runner::detail {

void quantized_read(const std::string& text, Case& c) {
    c.op = Op::conv_quantized;
    c.qconv = parse_quantized_descriptor_unvalidated(text);
}

std::string quantized_descriptor(const Case& c) { return to_string(c.qconv); }

std::vector<Case> quantized_smaller(const Case& c) {
    std::vector<Case> out;
    for (const ConvDescriptor& d : smaller_descriptors(c.qconv.conv)) {
        Case s = c;
        s.qconv.conv = d;
        try {
            validate(s.qconv);
        } catch (const ConvError&) {
            continue;
        }
        out.push_back(std::move(s));
    }
    return out;
}

// benchdnn's conv driver with --dt and the scales and zero points as --attr-scales and --attr-zero-points
// (benchdnn draws its own data and per-channel scales: the line reproduces the problem, not the numbers).
std::string quantized_benchdnn(const Case& c, std::string* why) {
    const QuantizedDescriptor& q = c.qconv;
    if (q.narrowed()) {
        *why = "benchdnn has no quantized output range: its clip post-op applies before the dst scale";
        return "";
    }
    std::string line = benchdnn_line(q.conv, why);
    const std::size_t dt = line.find("--dt=f32");
    if (line.empty() || dt == std::string::npos) return "";
    if (q.per_channel_weights_zero_points) {
        *why = "benchdnn's convolution takes one weights zero point (wei:common), not one per output channel";
        return "";
    }
    if (!q.dst_scales.empty()) {
        *why = "benchdnn's convolution takes one dst scale (dst:common), not one per output channel";
        return "";
    }
    const std::string types = std::string(to_string(q.src)) + ":" + std::string(to_string(q.weights)) + ":" +
                              std::string(to_string(q.dst));
    const auto number = [](float v) { return nlohmann::json(v).dump(); };
    std::string attrs = " --attr-scales=src:common:" + number(q.src_scale) + "+wei:" +
                        (q.per_channel_scales ? std::string("per_oc") : "common:" + number(q.weights_scale));
    if (q.dst != IntegerType::s32) attrs += "+dst:common:" + number(q.dst_scale);
    // per-channel zero points: benchdnn's per_dim_1 fills its own values (the case's differ)
    attrs += " --attr-zero-points=src:" +
             (q.per_channel_src_zero_points ? std::string("per_dim_1") : "common:" + std::to_string(q.src_zero_point)) +
             "+wei:common:" + std::to_string(q.weights_zero_point) + "+dst:" +
             (q.per_channel_dst_zero_points ? std::string("per_dim_1") : "common:" + std::to_string(q.dst_zero_point));
    return line.substr(0, dt) + "--dt=" + types + attrs + line.substr(dt + std::string("--dt=f32").size());
}

std::int64_t quantized_macs(const Case& c) { return c.qconv.conv.macs(); }

std::string quantized_output_element(const Case& c, std::int64_t flat) {
    const ConvDescriptor& d = c.qconv.conv;
    return coordinates_text(element_coordinates(d.dst_dims(), d.data_format == DataFormat::nxc, flat));
}

int quantized_output_bytes(const Case& c) {
    return static_cast<int>(convcheck_plugin_support::integer_bytes(abi_dtype(c.qconv.dst)));
}

std::string quantized_output_value(const Case& c, const std::byte* element) {
    return std::to_string(convcheck_plugin_support::load_integer(element, abi_dtype(c.qconv.dst), 0));
}

CaseMemory quantized_memory(const Case& c) {
    const QuantizedDescriptor& q = c.qconv;
    validate(q);
    const ConvDescriptor& d = q.conv;
    const double S = double(d.src_elements()), W = double(d.weights_elements()), D = double(d.dst_elements());
    CaseMemory m;
    m.buffers = static_cast<std::int64_t>(S + W + 4.0 * double(d.bias_elements()) + 2 * 4 * D) + 5 * 4096;
    // the integers drawn (4 bytes each), the sums (4 x 8 bytes an output), the windows and the outputs read back
    m.reference = static_cast<std::int64_t>(4 * (S + W) + 32 * D + 16 * D + 8 * D + 64 * D);
    return m;
}

nlohmann::json quantized_features(const Case& c) {
    const QuantizedDescriptor& q = c.qconv;
    Case geometry = c;
    geometry.conv = q.conv;
    nlohmann::json features = conv_features(geometry);
    features["dtype"] = std::string(to_string(q.src)) + ":" + std::string(to_string(q.weights)) + ":" +
                        std::string(to_string(q.dst));
    features["per_channel_scales"] = q.per_channel_scales;
    features["per_channel_dst_scales"] = !q.dst_scales.empty();
    features["zero_points"] = q.src_zero_point != 0 || q.weights_zero_point != 0 || q.dst_zero_point != 0 ||
                              q.per_channel_src_zero_points || q.per_channel_dst_zero_points ||
                              q.per_channel_weights_zero_points;
    features["per_channel_zero_points"] =
        q.per_channel_src_zero_points || q.per_channel_dst_zero_points || q.per_channel_weights_zero_points;
    features["fused_range"] = q.narrowed();
    return features;
}

}  // namespace convcheck::runner::detail
