#include "convcheck/core/post_op_nan.hpp"

namespace convcheck {

std::string_view to_string(ClipNan p) {
    switch (p) {
        case ClipNan::propagate: return "propagate";
        case ClipNan::to_lower_bound: return "to_lower_bound";
        case ClipNan::to_upper_bound: return "to_upper_bound";
    }
    return "?";
}

std::string_view to_string(ReluNan p) { return p == ReluNan::to_zero ? "to_zero" : "propagate"; }

std::string_view to_string(MinMaxNan p) { return p == MinMaxNan::number ? "number" : "propagate"; }

std::string_view to_string(ReluZero p) { return p == ReluZero::plus_zero ? "plus_zero" : "minus_zero"; }

bool parse_clip_nan(std::string_view text, ClipNan* out) {
    for (const ClipNan p : {ClipNan::propagate, ClipNan::to_lower_bound, ClipNan::to_upper_bound})
        if (text == to_string(p)) return *out = p, true;
    return false;
}

bool parse_relu_nan(std::string_view text, ReluNan* out) {
    for (const ReluNan p : {ReluNan::propagate, ReluNan::to_zero})
        if (text == to_string(p)) return *out = p, true;
    return false;
}

bool parse_min_max_nan(std::string_view text, MinMaxNan* out) {
    for (const MinMaxNan p : {MinMaxNan::propagate, MinMaxNan::number})
        if (text == to_string(p)) return *out = p, true;
    return false;
}

bool parse_relu_zero(std::string_view text, ReluZero* out) {
    for (const ReluZero p : {ReluZero::minus_zero, ReluZero::plus_zero})
        if (text == to_string(p)) return *out = p, true;
    return false;
}

std::string to_string(const PostOpNanPolicy& p) {
    return "clip " + std::string(to_string(p.clip)) + ", relu " + std::string(to_string(p.relu)) + ", max " +
           std::string(to_string(p.max)) + ", min " + std::string(to_string(p.min));
}

}  // namespace convcheck
