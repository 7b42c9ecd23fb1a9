// Tolerance profiles (profiles.hpp): other suites' published rules on the same outputs.
#include "convcheck/accuracy/profiles.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace convcheck::accuracy {

std::string_view to_string(Profile p) {
    switch (p) {
        case Profile::webnn: return "webnn";
        case Profile::nnapi: return "nnapi";
        case Profile::benchdnn: return "benchdnn";
        case Profile::onnx: return "onnx";
        case Profile::opinfo: return "opinfo";
    }
    return "?";
}

std::optional<Profile> parse_profile(std::string_view name) {
    for (Profile p : kProfiles)
        if (to_string(p) == name) return p;
    return std::nullopt;
}

namespace {

// A value of `type`'s bit pattern as a signed position on the number line (sign-magnitude to two's complement).
std::int64_t ordered(DataType type, double v) {
    std::int64_t bits = 0, sign = 0;
    if (type == DataType::f32) {
        const float f = static_cast<float>(v);
        std::uint32_t u;
        std::memcpy(&u, &f, sizeof u);
        bits = u & 0x7fffffffu, sign = u >> 31;
    } else {
        const std::uint16_t u = type == DataType::f16 ? f32_to_f16(static_cast<float>(v)) : f32_to_bf16(static_cast<float>(v));
        bits = u & 0x7fff, sign = u >> 15;
    }
    return sign ? -bits : bits;
}

struct Tolerance {
    double atol = 0.0, rtol = 0.0;
};

}  // namespace

std::uint64_t ulp_distance(DataType type, double a, double b) {
    const std::int64_t x = ordered(type, a), y = ordered(type, b);
    return static_cast<std::uint64_t>(x > y ? x - y : y - x);
}

ProfileVerdict judge_profile(Profile p, DataType dst, std::int64_t products, std::span<const double> want,
                             std::span<const double> got) {
    ProfileVerdict v;
    v.profile = p;
    Tolerance t;
    switch (p) {
        case Profile::nnapi:
            if (dst == DataType::bf16) {
                v.applies = false;
                return v;
            }
            t = dst == DataType::f32 ? Tolerance{1e-5, 5.0 * std::ldexp(1.0, -23)} : Tolerance{5.0 * std::ldexp(1.0, -10), 5.0 * std::ldexp(1.0, -10)};
            break;
        case Profile::onnx: t = {1e-7, 1e-3}; break;
        case Profile::opinfo:
            t = dst == DataType::f32 ? Tolerance{1e-5, 1.3e-6} : dst == DataType::f16 ? Tolerance{1e-5, 1e-3} : Tolerance{1e-5, 1.6e-2};
            break;
        default: break;
    }
    const double allowed_ulps = 2.0 * static_cast<double>(products);
    for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
        const double w = want[i], g = got[i];
        bool ok = false;
        double ratio = 0.0;
        if (std::isnan(w) || std::isnan(g) || std::isinf(w) || std::isinf(g)) {
            ok = (std::isnan(w) && std::isnan(g)) || w == g;
            ratio = ok ? 0.0 : std::numeric_limits<double>::infinity();
        } else if (p == Profile::webnn) {
            const double ulps = static_cast<double>(ulp_distance(dst, g, round_to(dst, w)));
            ok = ulps <= allowed_ulps;
            ratio = ulps / allowed_ulps;
        } else if (p == Profile::benchdnn) {
            const double d = std::fabs(g - round_to(dst, w));
            ok = d == 0.0;
            ratio = ok ? 0.0 : std::numeric_limits<double>::infinity();
        } else {
            const double allowance = t.atol + t.rtol * std::fabs(w);
            const double d = std::fabs(g - w);
            ok = d <= allowance;
            ratio = d / allowance;
        }
        if (!ok) ++v.failing;
        v.worst_ratio = std::max(v.worst_ratio, ratio);
    }
    v.passed = v.failing == 0;
    return v;
}

}  // namespace convcheck::accuracy
