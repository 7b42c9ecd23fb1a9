#include "convcheck/runner/shrink.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "convcheck/runner/operation_traits.hpp"

namespace convcheck::runner {

std::string failure_signature(const CaseResult& r) {
    std::string reason = r.reason;
    if (const auto expected = reason.find(" | "); reason.starts_with("expected: ") && expected != std::string::npos)
        reason = reason.substr(expected + 3);
    reason = reason.substr(0, reason.find(';'));
    std::string s = std::string(to_string(r.status)) + ":" + to_string(r.kind) + ":";
    int depth = 0;
    for (char ch : reason) {
        if (ch == '(' || ch == '[') ++depth;
        else if (ch == ')' || ch == ']') depth = std::max(0, depth - 1);
        else if (depth == 0 && !std::isdigit(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-') s += ch;
    }
    return s;
}

std::vector<ConvDescriptor> smaller_descriptors(const ConvDescriptor& d) {
    std::vector<ConvDescriptor> out;
    auto push = [&](ConvDescriptor c) {
        try {
            validate(c);
        } catch (const ConvError&) {
            return;
        }
        if (!(c == d) && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    };
    if (d.batch > 1) {
        auto c = d;
        c.batch = 1;
        push(c);
    }
    if (d.rank > 1) {  // drop the outermost spatial axis
        auto c = d;
        c.rank = d.rank - 1;
        for (int a = 0; a + 1 < d.rank; ++a) {
            c.input_size[a] = d.input_size[a + 1];
            c.kernel_size[a] = d.kernel_size[a + 1];
            c.strides[a] = d.strides[a + 1];
            c.dilations[a] = d.dilations[a + 1];
            c.pads_begin[a] = d.pads_begin[a + 1];
            c.pads_end[a] = d.pads_end[a + 1];
        }
        for (int a = c.rank; a < kMaxSpatialRank; ++a) {
            c.input_size[a] = c.kernel_size[a] = c.strides[a] = c.dilations[a] = 1;
            c.pads_begin[a] = c.pads_end[a] = 0;
        }
        push(c);
    }
    const std::int64_t icg = d.in_channels_per_group(), ocg = d.out_channels_per_group();
    if (d.groups > 1) {
        for (std::int64_t g : {std::int64_t(1), d.groups / 2}) {
            if (g < 1 || d.groups % g != 0) continue;
            auto c = d;
            c.groups = g;
            c.in_channels = g * icg;
            c.out_channels = g * ocg;
            push(c);
        }
    }
    for (std::int64_t v : {std::int64_t(1), icg / 2, icg - 1}) {
        if (v < 1 || v >= icg) continue;
        auto c = d;
        c.in_channels = d.groups * v;
        push(c);
    }
    for (std::int64_t v : {std::int64_t(1), ocg / 2, ocg - 1}) {
        if (v < 1 || v >= ocg) continue;
        auto c = d;
        c.out_channels = d.groups * v;
        push(c);
    }
    for (int a = 0; a < d.rank; ++a) {
        const std::int64_t least = std::max<std::int64_t>(1, d.dilated_kernel(a) - d.pads_begin[a] - d.pads_end[a]);
        for (std::int64_t v : {least, d.input_size[a] / 2, d.input_size[a] - 1}) {
            if (v < 1 || v >= d.input_size[a]) continue;
            auto c = d;
            c.input_size[a] = v;
            push(c);
        }
        for (std::int64_t v : {std::int64_t(1), d.kernel_size[a] - 1}) {
            if (v < 1 || v >= d.kernel_size[a]) continue;
            auto c = d;
            c.kernel_size[a] = v;
            push(c);
        }
        if (d.strides[a] > 1) {
            auto c = d;
            c.strides[a] = 1;
            push(c);
            c.strides[a] = d.strides[a] - 1;
            push(c);
        }
        if (d.dilations[a] > 1) {
            auto c = d;
            c.dilations[a] = 1;
            push(c);
            c.dilations[a] = d.dilations[a] - 1;
            push(c);
        }
        for (auto field : {&ConvDescriptor::pads_begin, &ConvDescriptor::pads_end}) {
            const std::int64_t p = (d.*field)[a];
            if (p == 0) continue;
            auto c = d;
            (c.*field)[a] = 0;
            push(c);
            (c.*field)[a] = p > 0 ? p - 1 : p + 1;
            push(c);
        }
    }
    if (d.has_bias) {
        auto c = d;
        c.has_bias = false;
        push(c);
    }
    if (d.dtype != DataType::f32 && !d.mixed()) {  // a mix keeps its types: they may be the failure
        auto c = d;
        c.dtype = DataType::f32;
        push(c);
    }
    if (d.data_format != DataFormat::ncx) {
        auto c = d;
        c.data_format = DataFormat::ncx;
        push(c);
    }
    if (d.filter_format != FilterFormat::oix) {
        auto c = d;
        c.filter_format = FilterFormat::oix;
        push(c);
    }
    // a tensor dense again (ABI 1.2 strides); smaller sizes above keep the strides, which stay valid
    for (auto member : {&ConvDescriptor::src_strides, &ConvDescriptor::weights_strides, &ConvDescriptor::dst_strides})
        if (!(d.*member).empty()) {
            auto c = d;
            (c.*member).clear();
            push(c);
        }
    return out;
}

std::optional<CaseResult> shrink(const Backend& backend, const CaseResult& failing, const CheckSettings& settings,
                                 const ShrinkLimits& limits) {
    // Like a hang, running out of memory costs each candidate a full memory limit's worth of time.
    if (failing.kind == Kind::out_of_memory) return std::nullopt;
    const OperationTraits& op = operation(failing.c.op);
    if (!op.smaller) return std::nullopt;  // the operation is not shrunk
    const std::string signature = failure_signature(failing);
    const auto start = std::chrono::steady_clock::now();
    std::optional<CaseResult> best;
    Case current = failing.c;
    int attempts = 0;
    bool progressed = true;
    while (progressed) {
        progressed = false;
        for (const Case& c : op.smaller(current)) {  // the operation's candidates (operation_traits.hpp)
            if (++attempts > limits.max_attempts || (limits.stop && *limits.stop) ||
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limits.max_seconds)
                return best;
            CaseResult r = check_case(backend, c, settings);
            if (failure_signature(r) == signature) {
                current = c;
                best = std::move(r);
                progressed = true;
                break;
            }
        }
    }
    return best;
}

}  // namespace convcheck::runner
