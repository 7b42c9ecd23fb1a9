// Continuous convolution's jobs around its check (operation_jobs.hpp): reading and printing its
// descriptor, the suite entries refused when read (a real-scale window either way), shrinking
// (shrink_cc.hpp), naming an output. It has no invalid cases, no benchdnn line and no bench timing.
#include <nlohmann/json.hpp>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/runner/cc_window_margin.hpp"
#include "convcheck/runner/operation_jobs.hpp"
#include "convcheck/runner/shrink_cc.hpp"
#include "convcheck/runner/verdict.hpp"

namespace convcheck::runner::detail {

// The pass key dir= (docs/cc-backward.md, split_cc_pass): fwd (the default, never printed) or bwd, the
// backward pass (diff_src, diff_theta, diff_bias); the rest is the forward layer's descriptor.
void cc_read(const std::string& text, Case& c) {
    const CcPassText t = split_cc_pass(text);
    c.op = t.backward ? Op::cc_backward : Op::cc;
    c.cc = to_string(parse_cc_descriptor(t.layer));
}

std::string cc_descriptor(const Case& c) { return c.op == Op::cc_backward ? c.cc + ",dir=bwd" : c.cc; }

std::string cc_refused_entry(const Case& c, accuracy::Mode mode) {
    // docs/cc.md: a real-scale window the backend may decide either way
    return ambiguous_real_scale_window(parse_cc_descriptor(c.cc), mode);
}

std::vector<Case> cc_smaller(const Case& c) {
    std::vector<Case> out;
    for (const CcDescriptor& d : smaller_cc_descriptors(parse_cc_descriptor(c.cc), c.mode)) {
        out.push_back(c);
        out.back().cc = to_string(d);
    }
    return out;
}

std::string cc_benchdnn(const Case&, std::string* why) {
    *why = "a CC layer is not a benchdnn problem";
    return "";
}

std::string cc_output_element(const Case& c, std::int64_t flat) {
    return coordinates_text(element_coordinates(parse_cc_descriptor(c.cc).dst_dims(), false, flat));
}

nlohmann::json cc_features(const Case& c) {
    using nlohmann::json;
    return {{"rank", 2}, {"groups", false}, {"depthwise", false}, {"dilation", false}, {"strided", false},
            {"padding", "none"}, {"data_format", "ncx"}, {"filter_format", nullptr}, {"dtype", "f32"},
            {"bias", c.cc.find("bias=1") != std::string::npos},
            {"dialect", c.dialect.empty() ? json(nullptr) : json(c.dialect)}, {"cc", true},
            {"memory_strided", false}};
}

}  // namespace convcheck::runner::detail
