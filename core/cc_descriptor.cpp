#include "convcheck/core/cc_descriptor.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace convcheck {

std::string_view to_string(CcKernel kernel) {
    switch (kernel) {
        case CcKernel::internal_net: return "net";
        case CcKernel::linear: return "linear";
        case CcKernel::cubic: return "cubic";
        case CcKernel::gaussian: return "gaussian";
    }
    return "?";
}

std::int64_t cc_ceil(double x) {
    if (!(std::fabs(x) < 9.0e18))
        throw std::overflow_error("cc_ceil(" + std::to_string(x) + "): outside the 64-bit integer range");
    const double nearest = std::nearbyint(x);
    if (std::fabs(x - nearest) <= kCcRealTolerance * std::max(1.0, std::fabs(x))) return static_cast<std::int64_t>(nearest);
    return static_cast<std::int64_t>(std::ceil(x));
}

// ---------------------------------------------------------------------------------------------
// CcScale

namespace {

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// p1/q1 == p2/q2 for any integers (q != 0), without overflow.
bool same_ratio(std::int64_t p1, std::int64_t q1, std::int64_t p2, std::int64_t q2) {
    if (p1 == kInt64Min || q1 == kInt64Min || p2 == kInt64Min || q2 == kInt64Min) return p1 == p2 && q1 == q2;
    const std::int64_t g1 = std::gcd(p1, q1), g2 = std::gcd(p2, q2);
    std::int64_t a = p1 / g1, b = q1 / g1, c = p2 / g2, e = q2 / g2;
    if (b < 0) a = -a, b = -b;
    if (e < 0) c = -c, e = -e;
    return a == c && b == e;
}

std::string format_double(double v) {
    char buffer[64];
    auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    std::string s(buffer, ec == std::errc() ? ptr : buffer);
    return s;
}

}  // namespace

CcScale CcScale::exact(const Rational& s) { return CcScale{s.numerator(), s.denominator(), s.to_double()}; }
CcScale CcScale::real(double s) { return CcScale{0, 0, s}; }

bool CcScale::operator==(const CcScale& o) const {
    if (is_rational() != o.is_rational()) return false;
    if (is_rational()) return same_ratio(numerator, denominator, o.numerator, o.denominator);
    return value == o.value;
}

std::string CcScale::to_string() const {
    if (is_rational()) {
        if (numerator == kInt64Min || denominator == kInt64Min)
            return std::to_string(numerator) + "/" + std::to_string(denominator);
        const std::int64_t g = std::gcd(numerator, denominator);
        const std::int64_t p = numerator / g, q = denominator / g;
        return q == 1 ? std::to_string(p) : std::to_string(p) + "/" + std::to_string(q);
    }
    std::string s = format_double(value);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";  // "2" would read back as rational 2/1
    return s;
}

// ---------------------------------------------------------------------------------------------
// CcDescriptor

bool CcDescriptor::operator==(const CcDescriptor& o) const {
    bool same = batch == o.batch && in_channels == o.in_channels && out_channels == o.out_channels &&
                input_size == o.input_size && output_size == o.output_size && scale == o.scale &&
                support == o.support && kernel == o.kernel && has_bias == o.has_bias && dtype == o.dtype;
    if (same && kernel == CcKernel::internal_net)
        same = hidden_widths == o.hidden_widths && leaky_relu_slope == o.leaky_relu_slope;
    if (same && kernel == CcKernel::gaussian) same = kernel_parameter == o.kernel_parameter;
    return same;
}

std::int64_t CcDescriptor::src_elements() const { return batch * in_channels * input_size[0] * input_size[1]; }
std::int64_t CcDescriptor::dst_elements() const { return batch * out_channels * output_size[0] * output_size[1]; }
std::int64_t CcDescriptor::theta_elements() const {
    if (kernel != CcKernel::internal_net) return 0;
    const std::int64_t h1 = hidden_widths[0], h2 = hidden_widths[1], c = in_channels * out_channels;
    return h1 * 2 + h1 + h2 * h1 + h2 + c * h2 + c;
}

std::int64_t cc_default_output_size(const CcScale& scale, std::int64_t input_size) {
    if (scale.is_rational()) return (scale.rational() * Rational(input_size)).ceil();  // exact ceil(s * in)
    return cc_ceil(scale.value * static_cast<double>(input_size));
}

// ---------------------------------------------------------------------------------------------
// validate

namespace {

const char* axis_name(int axis) { return axis == 0 ? "h" : "w"; }
std::string attr(const char* name, int axis) {
    return std::string(name) + "[" + std::to_string(axis) + "] (" + axis_name(axis) + ")";
}

void check_count(const char* what, std::initializer_list<std::int64_t> dims) {
    std::int64_t p = 1;
    for (auto v : dims)
        if (__builtin_mul_overflow(p, v, &p)) throw ConvError(what, "element count", "the element count overflows 64 bits");
    if (__builtin_mul_overflow(p, std::int64_t{8}, &p)) throw ConvError(what, "byte size", "the byte size overflows 64 bits");
}

void check_finite_positive(const std::string& name, double v) {
    if (!std::isfinite(v) || !(v > 0.0))
        throw ConvError(name, format_double(v), "must be a finite real number > 0");
}

// The projected grid of an axis must be computable: for a rational s = p/q the reference works on
// g - k/2 = (2nq + (in-1)p - (out-1)q - kp) / (2p), so 8 * (out*q + (in+k)*p) must fit in 64 bits;
// for a real s, |g| + k must stay below 2^52 so that every window edge is an exact integer in double.
void check_grid(const CcDescriptor& d, int a) {
    const CcScale& s = d.scale[a];
    const std::int64_t in = d.input_size[a], out = d.output_size[a], k = d.support[a];
    if (s.is_rational()) {
        std::int64_t x, y, z;
        if (__builtin_mul_overflow(out, s.denominator, &x) || __builtin_add_overflow(in, k, &y) ||
            __builtin_mul_overflow(y, s.numerator, &y) || __builtin_add_overflow(x, y, &z) ||
            __builtin_mul_overflow(z, std::int64_t{8}, &z))
            throw ConvError(attr("scale", a), s.to_string(),
                            "the projected grid for in = " + std::to_string(in) + ", out = " + std::to_string(out) +
                                ", support = " + std::to_string(k) +
                                " overflows 64-bit rational arithmetic (8*(out*q + (in+k)*p) must fit)");
        return;
    }
    const double sv = s.value, first = (static_cast<double>(in) - 1) / 2 - (static_cast<double>(out) - 1) / (2 * sv);
    const double last = (static_cast<double>(out) - 1) / sv + first;
    const double limit = 4503599627370496.0;  // 2^52
    if (!std::isfinite(first) || !std::isfinite(last) || std::fabs(first) + static_cast<double>(k) >= limit ||
        std::fabs(last) + static_cast<double>(k) >= limit)
        throw ConvError(attr("scale", a), s.to_string(),
                        "the projected grid g_n = n/s + (in-1)/2 - (out-1)/(2s) leaves the range |g| + k < 2^52 "
                        "(in = " + std::to_string(in) + ", out = " + std::to_string(out) + ")");
}

}  // namespace

void validate(const CcDescriptor& d) {
    auto positive = [](const std::string& name, std::int64_t v) {
        if (v < 1) throw ConvError(name, std::to_string(v), "must be a positive integer (>= 1)");
    };
    positive("batch (n)", d.batch);
    positive("in_channels (cin)", d.in_channels);
    positive("out_channels (cout)", d.out_channels);
    for (int a = 0; a < 2; ++a) {
        positive(attr("input_size (in)", a), d.input_size[a]);
        positive(attr("output_size (out)", a), d.output_size[a]);
        positive(attr("support", a), d.support[a]);
        const CcScale& s = d.scale[a];
        if (s.denominator < 0 || (s.is_rational() && s.numerator < 1))
            throw ConvError(attr("scale", a), std::to_string(s.numerator) + "/" + std::to_string(s.denominator),
                            "a rational scale p/q needs integers p >= 1 and q >= 1 (a scale must be > 0)");
        if (!s.is_rational()) check_finite_positive(attr("scale", a), s.value);
    }
    switch (d.kernel) {
        case CcKernel::internal_net:
            positive("hidden_widths[0] (h1)", d.hidden_widths[0]);
            positive("hidden_widths[1] (h2)", d.hidden_widths[1]);
            if (!std::isfinite(d.leaky_relu_slope))
                throw ConvError("leaky_relu_slope (slope)", format_double(d.leaky_relu_slope), "must be finite");
            break;
        case CcKernel::gaussian: check_finite_positive("kernel_parameter (sigma)", d.kernel_parameter); break;
        case CcKernel::linear:
        case CcKernel::cubic: break;
        default:
            throw ConvError("kernel", std::to_string(static_cast<int>(d.kernel)),
                            "must be internal_net (0), linear (1), cubic (2) or gaussian (3)");
    }
    if (d.dtype != DataType::f32)
        throw ConvError("dtype (dt)", std::string(to_string(d.dtype)), "the CC layer is defined for f32 only (ABI 1.0)");
    for (int a = 0; a < 2; ++a) check_grid(d, a);
    const std::int64_t oh = d.output_size[0], ow = d.output_size[1];
    std::int64_t k = 1;
    if (__builtin_mul_overflow(d.support[0], d.support[1], &k))
        throw ConvError("support", std::to_string(d.support[0]) + "x" + std::to_string(d.support[1]),
                        "the neighbour count k_h*k_w overflows 64 bits");
    check_count("src", {d.batch, d.in_channels, d.input_size[0], d.input_size[1]});
    check_count("dst", {d.batch, d.out_channels, oh, ow});
    check_count("neighbours [N,1,Cin,K,H',W']", {d.batch, d.in_channels, k, oh, ow});
    check_count("distances [K,2,H',W']", {k, 2, oh, ow});
    check_count("weights [1,Cout,Cin,K,H',W']", {d.out_channels, d.in_channels, k, oh, ow});
    if (d.kernel == CcKernel::internal_net) {
        const std::int64_t h1 = d.hidden_widths[0], h2 = d.hidden_widths[1];
        // theta = W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout]
        std::int64_t c = 0, w2 = 0, w3 = 0, total = 0;
        if (__builtin_mul_overflow(d.in_channels, d.out_channels, &c) || __builtin_mul_overflow(h2, h1, &w2) ||
            __builtin_mul_overflow(c, h2, &w3) || __builtin_mul_overflow(h1, std::int64_t{3}, &total) ||
            __builtin_add_overflow(total, w2, &total) || __builtin_add_overflow(total, h2, &total) ||
            __builtin_add_overflow(total, w3, &total) || __builtin_add_overflow(total, c, &total))
            throw ConvError("theta", "element count", "the Internal-Net parameter count overflows 64 bits");
        check_count("theta", {total});
    }
}

// ---------------------------------------------------------------------------------------------
// The canonical string form.

namespace {

template <typename T, typename Format>
std::string join2(const std::array<T, 2>& v, Format format) {
    return format(v[0]) + "x" + format(v[1]);
}
std::string int_text(std::int64_t v) { return std::to_string(v); }

std::int64_t parse_int(std::string_view key, std::string_view text) {
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw ConvError(std::string(key), std::string(text), "must be a 64-bit integer");
    return v;
}

double parse_real(std::string_view key, std::string_view text) {
    double v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw ConvError(std::string(key), std::string(text), "must be a decimal number (e.g. 0.01)");
    return v;
}

// "a" or "axb": one value applies to both axes.
std::array<std::string_view, 2> split2(std::string_view key, std::string_view text) {
    const std::size_t x = text.find('x');
    if (x == std::string_view::npos) return {text, text};
    if (text.find('x', x + 1) != std::string_view::npos)
        throw ConvError(std::string(key), std::string(text), "at most 2 values separated by 'x' (H then W)");
    return {text.substr(0, x), text.substr(x + 1)};
}

CcScale parse_scale(std::string_view text) {
    if (text.find_first_of(".eEin") != std::string_view::npos) return CcScale::real(parse_real("scale", text));
    Rational r;
    const std::size_t slash = text.find('/');
    if (slash != std::string_view::npos && text.substr(slash + 1) == "0")
        throw ConvError("scale", std::string(text), "the denominator of a rational scale p/q must be >= 1");
    if (!Rational::parse(text, &r))
        throw ConvError("scale", std::string(text),
                        "must be p/q or p with integers (exact), or a decimal such as 0.7071 (real)");
    return CcScale::exact(r);
}

}  // namespace

std::string to_string(const CcDescriptor& d) {
    std::string s = "cc:n=" + std::to_string(d.batch) + ",cin=" + std::to_string(d.in_channels) +
                    ",cout=" + std::to_string(d.out_channels) + ",in=" + join2(d.input_size, int_text) +
                    ",scale=" + join2(d.scale, [](const CcScale& c) { return c.to_string(); }) +
                    ",out=" + join2(d.output_size, int_text) + ",support=" + join2(d.support, int_text) +
                    ",kernel=" + std::string(to_string(d.kernel));
    if (d.kernel == CcKernel::internal_net)
        s += ",hidden=" + join2(d.hidden_widths, int_text) + ",slope=" + format_double(d.leaky_relu_slope);
    if (d.kernel == CcKernel::gaussian) s += ",sigma=" + format_double(d.kernel_parameter);
    s += std::string(",bias=") + (d.has_bias ? "1" : "0") + ",dt=" + std::string(to_string(d.dtype));
    return s;
}

CcDescriptor parse_cc_descriptor(std::string_view text) {
    constexpr std::string_view prefix = "cc:";
    if (text.substr(0, prefix.size()) == prefix) text.remove_prefix(prefix.size());
    if (text.size() > 4096)
        throw ConvError("descriptor", "(" + std::to_string(text.size()) + " characters)", "longer than 4096 characters");
    std::map<std::string, std::string, std::less<>> fields;
    for (std::size_t start = 0; start <= text.size();) {
        std::size_t comma = text.find(',', start);
        if (comma == std::string_view::npos) comma = text.size();
        const std::string_view field = text.substr(start, comma - start);
        const std::size_t eq = field.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw ConvError("descriptor", std::string(field), "every field is key=value (e.g. scale=2/3)");
        std::string key(field.substr(0, eq));
        if (fields.count(key)) throw ConvError(key, std::string(field.substr(eq + 1)), "the key appears twice");
        fields[key] = std::string(field.substr(eq + 1));
        start = comma + 1;
    }
    static const char* known[] = {"n",      "cin",    "cout",   "in",    "scale", "out", "support",
                                  "kernel", "hidden", "slope", "sigma", "bias",  "dt"};
    for (const auto& [key, value] : fields) {
        bool ok = false;
        for (const char* k : known) ok = ok || key == k;
        if (!ok)
            throw ConvError(key, value,
                            "unknown key (known: n cin cout in scale out support kernel hidden slope sigma bias dt)");
    }
    for (const char* required : {"cin", "cout", "in"})
        if (!fields.count(required)) throw ConvError(required, "(missing)", "the key is required");
    auto has = [&](const char* key) { return fields.count(key) != 0; };

    CcDescriptor d;
    d.batch = has("n") ? parse_int("n", fields["n"]) : 1;
    d.in_channels = parse_int("cin", fields["cin"]);
    d.out_channels = parse_int("cout", fields["cout"]);
    auto pair = [&](const char* key) {
        const auto parts = split2(key, fields[key]);
        return std::array<std::int64_t, 2>{parse_int(key, parts[0]), parse_int(key, parts[1])};
    };
    d.input_size = pair("in");
    if (has("kernel")) {
        const std::string& k = fields["kernel"];
        if (k == "net") d.kernel = CcKernel::internal_net;
        else if (k == "linear") d.kernel = CcKernel::linear;
        else if (k == "cubic") d.kernel = CcKernel::cubic;
        else if (k == "gaussian") d.kernel = CcKernel::gaussian;
        else throw ConvError("kernel", k, "must be net, linear, cubic or gaussian");
    }
    const std::int64_t natural_support = d.kernel == CcKernel::linear ? 2 : d.kernel == CcKernel::cubic ? 4 : 3;
    d.support = has("support") ? pair("support") : std::array<std::int64_t, 2>{natural_support, natural_support};
    if (has("hidden")) d.hidden_widths = pair("hidden");
    if (has("slope")) d.leaky_relu_slope = parse_real("slope", fields["slope"]);
    d.kernel_parameter = d.kernel == CcKernel::gaussian ? (has("sigma") ? parse_real("sigma", fields["sigma"]) : 0.5) : 0.0;
    if (has("bias")) {
        if (fields["bias"] != "0" && fields["bias"] != "1") throw ConvError("bias", fields["bias"], "must be 0 or 1");
        d.has_bias = fields["bias"] == "1";
    }
    if (has("dt") && !parse_data_type(fields["dt"], &d.dtype)) throw ConvError("dt", fields["dt"], "must be f32");

    if (has("out")) d.output_size = pair("out");
    for (int a = 0; a < 2; ++a) {
        if (has("scale")) {
            d.scale[a] = parse_scale(split2("scale", fields["scale"])[a]);
        } else if (has("out")) {
            // only the output size is given: the scale is out/in, exactly
            if (d.input_size[a] < 1 || d.output_size[a] < 1)
                throw ConvError(attr(d.input_size[a] < 1 ? "input_size (in)" : "output_size (out)", a),
                                std::to_string(d.input_size[a] < 1 ? d.input_size[a] : d.output_size[a]),
                                "must be a positive integer (>= 1)");
            d.scale[a] = CcScale::exact(Rational(d.output_size[a], d.input_size[a]));
        }
        if (!has("out")) {
            const CcScale& s = d.scale[a];
            const bool scale_ok = s.is_rational() ? s.numerator >= 1 : std::isfinite(s.value) && s.value > 0;
            if (d.input_size[a] >= 1 && scale_ok) {
                // out = ceil(s * in): a huge product is a descriptor error, not an overflow
                try {
                    d.output_size[a] = cc_default_output_size(s, d.input_size[a]);
                } catch (const std::overflow_error&) {
                    throw ConvError(attr("scale", a), s.to_string(),
                                    "ceil(s * in) with in = " + std::to_string(d.input_size[a]) + " does not fit in 64 bits");
                }
            }
        }
    }
    validate(d);
    return d;
}

CcPassText split_cc_pass(std::string_view text) {
    CcPassText t;
    bool dir_seen = false;
    for (std::size_t start = 0; start <= text.size();) {
        std::size_t end = text.find(',', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view field = text.substr(start, end - start);
        if (field.starts_with("dir=")) {
            const std::string dir(field.substr(4));
            if (dir_seen) throw ConvError("dir", dir, "the key appears twice");
            dir_seen = true;
            if (dir == "bwd") t.backward = true;
            else if (dir != "fwd")
                throw ConvError("dir", dir, "a CC layer has two passes: dir=fwd (forward, the default) or dir=bwd "
                                            "(backward: diff_src, diff_theta, diff_bias)");
        } else {
            t.layer += (t.layer.empty() ? "" : ",") + std::string(field);
        }
        start = end + 1;
    }
    return t;
}

}  // namespace convcheck
