// Discrete convolution's jobs around its check (operation_jobs.hpp): reading and printing its
// descriptor, the rule an invalid case breaks, shrinking, its benchdnn line, naming an output, timing
// for bench, the geometry list's design counts. The backward passes (a "conv:" descriptor with dir=)
// share every one of them that does not depend on the pass.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "operation.hpp"
#include "convcheck/core/descriptor_unvalidated.hpp"
#include "convcheck/runner/failure_bundle.hpp"
#include "convcheck/runner/invalid_case.hpp"
#include "convcheck/runner/operation_jobs.hpp"
#include "convcheck/runner/shrink.hpp"

namespace convcheck::runner::detail {

std::vector<std::int64_t> element_coordinates(const std::vector<std::int64_t>& dims, bool channels_last,
                                              std::int64_t flat) {
    std::vector<std::int64_t> c(dims.size());
    for (std::size_t i = dims.size(); i-- > 0;) {
        c[i] = flat % dims[i];
        flat /= dims[i];
    }
    if (channels_last) std::rotate(c.begin() + 1, c.end() - 1, c.end());  // [n, x..., c] -> [n, c, x...]
    return c;
}

void conv_read(const std::string& text, Case& c) {
    c.conv = parse_descriptor_unvalidated(text);
    c.op = conv_op(c.conv);  // the forward pass or a backward one (dir=)
}

std::string conv_descriptor(const Case& c) { return to_string(c.conv); }

std::string conv_broken_rule(const Case& c) { return broken_rule(c.conv); }

std::vector<Case> conv_smaller(const Case& c) {
    std::vector<Case> out;
    for (const ConvDescriptor& d : smaller_descriptors(c.conv)) {  // each keeps the pass
        out.push_back(c);
        out.back().conv = d;
    }
    return out;
}

std::string conv_benchdnn(const Case& c, std::string* why) { return benchdnn_line(c.conv, why); }

std::string conv_output_element(const Case& c, std::int64_t flat) {
    return coordinates_text(element_coordinates(c.conv.dst_dims(), c.conv.data_format == DataFormat::nxc, flat));
}

ChildOutcome time_conv(const Backend& backend, const Case& c, const TimedRun& run) {
    const ConvDescriptor d = with_drawn_scales(c.conv, c.seed);
    const auto fill = accuracy::make_random_fill(d, c.seed);
    const Buffers b = make_buffers(d, fill.src, fill.weights, fill.bias);
    ConvExecution e = conv_execution(d, b);
    e.warmups = run.warmups;
    e.repeats = run.repeats;
    e.timeout_s = run.timeout_s;
    e.memory = {run.memory_limit_bytes, run.needs.total()};
    return execute_conv(*backend.plugin, backend.options, e);
}

std::int64_t conv_macs(const Case& c) { return c.conv.macs(); }

const ConvDescriptor* conv_design_geometry(const Case& c) { return &c.conv; }

namespace {

std::string padding_kind(const ConvDescriptor& d) {
    bool any = false, negative = false, asymmetric = false;
    for (int a = 0; a < d.rank; ++a) {
        any = any || d.pads_begin[a] != 0 || d.pads_end[a] != 0;
        negative = negative || d.pads_begin[a] < 0 || d.pads_end[a] < 0;
        asymmetric = asymmetric || d.pads_begin[a] != d.pads_end[a];
    }
    return !any ? "none" : negative ? "negative" : asymmetric ? "asymmetric" : "symmetric";
}

// Each fused post-op by what it computes, its parameters left out: the eltwise algorithm ("relu", "clip"),
// "sum", a binary op with its operand's shape and type ("add:per_oc", "mul:per_tensor:s8"), "prelu:per_oc".
nlohmann::json post_op_names(const std::vector<PostOp>& ops) {
    nlohmann::json names = nlohmann::json::array();
    for (const PostOp& op : ops) {
        std::string name = to_string(op);
        if (op.kind == PostOpKind::eltwise || op.kind == PostOpKind::sum) name = name.substr(0, name.find(':'));
        names.push_back(name);
    }
    return names;
}

}  // namespace

nlohmann::json conv_features(const Case& c) {
    using nlohmann::json;
    const ConvDescriptor& d = c.conv;
    bool dilation = false, strided = false;
    for (int a = 0; a < d.rank; ++a) {
        dilation = dilation || d.dilations[a] > 1;
        strided = strided || d.strides[a] > 1;
    }
    return {{"rank", d.rank},
            {"groups", d.groups > 1},
            {"depthwise", d.groups > 1 && d.groups == d.in_channels},
            {"dilation", dilation},
            {"strided", strided},
            {"padding", c.padding.empty() ? padding_kind(d) : c.padding},
            {"data_format", std::string(to_string(d.data_format))},
            {"filter_format", std::string(to_string(d.filter_format))},
            {"dtype", d.mixed() ? dtypes_text(d) : std::string(to_string(d.dtype))},
            {"bias", d.has_bias},
            {"dialect", c.dialect.empty() ? json(nullptr) : json(c.dialect)},
            {"cc", false},
            {"memory_strided", !d.src_strides.empty() || !d.weights_strides.empty() || !d.dst_strides.empty()},
            {"post_ops", post_op_names(d.post_ops)}};
}

}  // namespace convcheck::runner::detail
