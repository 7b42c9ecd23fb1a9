// benchdnn convolution problem strings: parse (as benchdnn's str2desc + sanitize_desc + init_pad_r,
// then the checks oneDNN's convolution descriptor makes), and print.
#include "convcheck/formats/benchdnn.hpp"

#include "benchdnn_geometry.hpp"

#include <array>
#include <charconv>
#include <cstring>
#include <sstream>

namespace convcheck {

namespace benchdnn_detail {

namespace {

constexpr std::array<char, 3> kAxisLetter{'d', 'h', 'w'};

// benchdnn's entries, in the order str2desc tries them within one pass.
struct Field {
    const char* prefix;
    std::int64_t ProblemFields::*scalar;  // or
    int axis;
    std::int64_t Axis::*member;
};

constexpr Field kFields[] = {
    {"g", &ProblemFields::g, -1, nullptr},   {"mb", &ProblemFields::mb, -1, nullptr}, {"ic", &ProblemFields::ic, -1, nullptr},
    {"id", nullptr, 0, &Axis::i},       {"ih", nullptr, 1, &Axis::i},       {"iw", nullptr, 2, &Axis::i},
    {"oc", &ProblemFields::oc, -1, nullptr}, {"od", nullptr, 0, &Axis::o},       {"oh", nullptr, 1, &Axis::o},
    {"ow", nullptr, 2, &Axis::o},       {"kd", nullptr, 0, &Axis::k},       {"kh", nullptr, 1, &Axis::k},
    {"kw", nullptr, 2, &Axis::k},       {"sd", nullptr, 0, &Axis::s},       {"sh", nullptr, 1, &Axis::s},
    {"sw", nullptr, 2, &Axis::s},       {"pd", nullptr, 0, &Axis::p},       {"ph", nullptr, 1, &Axis::p},
    {"pw", nullptr, 2, &Axis::p},       {"dd", nullptr, 0, &Axis::d},       {"dh", nullptr, 1, &Axis::d},
    {"dw", nullptr, 2, &Axis::d},
};

std::string field(const char* what, int axis) { return std::string(what) + kAxisLetter[axis]; }

// strtol as benchdnn uses it: optional sign, then digits; a negative value is an error.
std::int64_t read_value(std::string_view text, std::size_t* pos, const char* prefix) {
    std::size_t start = *pos;
    bool negative = false;
    if (start < text.size() && (text[start] == '+' || text[start] == '-')) negative = text[start++] == '-';
    std::int64_t value = 0;
    const char* first = text.data() + start;
    auto [end, ec] = std::from_chars(first, text.data() + text.size(), value);
    if (end == first)
        throw ConvError(prefix, std::string(text.substr(*pos, 8)), "no value found (benchdnn: `" +
                                                                       std::string(prefix) + "` needs an integer)");
    if (ec == std::errc::result_out_of_range)
        throw ConvError(prefix, std::string(text.substr(start, end - first)), "does not fit in 64 bits");
    if (negative && value != 0)
        throw ConvError(prefix, "-" + std::to_string(value), "must not be negative (benchdnn rejects it)");
    *pos = static_cast<std::size_t>(end - text.data());
    return value;
}

std::int64_t checked(std::int64_t value, bool overflowed, const std::string& what) {
    if (overflowed) throw ConvError(what, "(overflow)", "the deduced value overflows 64 bits");
    return value;
}
// The builtin must run before its result is read: argument evaluation order is unspecified.
std::int64_t mul(std::int64_t a, std::int64_t b, const std::string& what) {
    std::int64_t r = 0;
    const bool overflowed = __builtin_mul_overflow(a, b, &r);
    return checked(r, overflowed, what);
}
std::int64_t add(std::int64_t a, std::int64_t b, const std::string& what) {
    std::int64_t r = 0;
    const bool overflowed = __builtin_add_overflow(a, b, &r);
    return checked(r, overflowed, what);
}
std::int64_t sub(std::int64_t a, std::int64_t b, const std::string& what) {
    std::int64_t r = 0;
    const bool overflowed = __builtin_sub_overflow(a, b, &r);
    return checked(r, overflowed, what);
}

// benchdnn's dilated kernel extent with 0-based dilation: (k - 1) * (d + 1) + 1.
std::int64_t extent(const Axis& x, int axis) {
    return add(mul(x.k - 1, add(x.d, 1, field("d", axis)), field("d", axis)), 1, field("d", axis));
}

// (a - 1) * s - b + K: the conv driver's (o, i) and the deconv driver's (i, o) in compute_pad and init_pad_r.
std::int64_t span(std::int64_t a, std::int64_t b, const Axis& x, int axis, const char* what) {
    return add(mul(a - 1, x.s, field(what, axis)) - b, extent(x, axis), field(what, axis));
}

// str2desc's scanning loop.
ProblemFields scan(std::string_view text) {
    ProblemFields raw;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t pass_start = pos;
        bool ok = false;
        for (const Field& f : kFields) {
            if (!text.substr(pos).starts_with(f.prefix)) continue;
            ok = true;
            pos += std::strlen(f.prefix);
            const std::int64_t value = read_value(text, &pos, f.prefix);
            if (f.scalar) raw.*f.scalar = value;
            else raw.axis[f.axis].*f.member = value;
        }
        if (pos < text.size() && text[pos] == 'n') {
            raw.name = std::string(text.substr(pos + 1));
            break;
        }
        if (pos < text.size() && text[pos] == '_') ++pos;
        if (!ok)
            throw ConvError("benchdnn problem", std::string(text),
                            "unrecognized entry at `" + std::string(text.substr(pass_start)) +
                                "` (entries: g mb ic id ih iw oc od oh ow kd kh kw sd sh sw pd ph pw dd dh dw, "
                                "n<name>, `_` separators)");
    }
    return raw;
}

void require_set(const char* name, std::int64_t value) {
    if (value <= 0)
        throw ConvError(name, value == 0 ? "0 (or missing)" : std::to_string(value),
                        "benchdnn requires it to be given and positive");
}

// The per-axis deductions of str2desc, for a present axis: compute_out and compute_pad of `driver`.
void deduce_axis(Axis& x, int axis, BenchdnnDriver driver) {
    const bool conv = driver == BenchdnnDriver::conv;
    require_set(field("i", axis).c_str(), x.i);
    require_set(field("k", axis).c_str(), x.k);
    const std::int64_t K = extent(x, axis);
    if (x.o == 0) {
        if (x.p < 0) x.p = 0;
        const std::int64_t two_p = mul(2, x.p, field("p", axis));
        if (conv)  // (i - ((k - 1) * (d + 1) + 1) + 2 * p) / s + 1, C division
            x.o = add(x.i - K, two_p, field("p", axis)) / x.s + 1;
        else  // (i - 1) * s + (k - 1) * (d + 1) - 2 * p + 1
            x.o = add(mul(x.i - 1, x.s, field("o", axis)), K, field("o", axis)) - two_p;
        if (x.o <= 0)
            throw ConvError(field("o", axis), std::to_string(x.o),
                            std::string("deduced as ") +
                                (conv ? "(i - ((k-1)*(d+1)+1) + 2*p)/s + 1 and not positive: the kernel extent " +
                                            std::to_string(K) + " exceeds the padded input"
                                      : "(i-1)*s + (k-1)*(d+1) - 2*p + 1 (benchdnn's deconv driver) and not "
                                        "positive: the pads take the whole output"));
    } else if (x.p < 0) {
        // compute_pad: conv ((o - 1) * s - i + K) / 2, deconv ((i - 1) * s - o + K) / 2, C division
        x.p = (conv ? span(x.o, x.i, x, axis, "o") : span(x.i, x.o, x, axis, "o")) / 2;
    }
}

}  // namespace

ProblemFields read_geometry(std::string_view text, BenchdnnDriver driver) {
    ProblemFields raw = scan(text);
    const bool conv = driver == BenchdnnDriver::conv;

    raw.g_given = raw.g >= 0;
    if (raw.g_given) require_set("g", raw.g);
    else raw.g = 1;
    require_set("ic", raw.ic);
    require_set("oc", raw.oc);
    for (int a = 0; a < 3; ++a) require_set(field("s", a).c_str(), raw.axis[a].s);

    for (int a = 0; a < 3; ++a) {
        Axis& x = raw.axis[a];
        const bool absent = x.i == 0 && x.k == 0 && x.o == 0 && x.d == 0 && x.s == 1 && x.p < 1;
        if (!absent) deduce_axis(x, a, driver);
    }

    // sanitize_desc: the rank comes from which output sizes exist.
    Axis &D = raw.axis[0], &H = raw.axis[1], &W = raw.axis[2];
    if (D.o != 0) {
        raw.rank = 3;
        if (H.o == 0 && W.o == 0) H = W = D;  // cubic: h and w copied from d
        else if (H.o == 0 || W.o == 0)
            throw ConvError(H.o == 0 ? "ih" : "iw", "(missing)",
                            "a 3-D benchdnn problem needs both h and w given, or neither (then copied from d)");
    } else if (H.o != 0) {
        raw.rank = 2;
        if (W.o == 0) W = H;  // square: w copied from h
    } else if (W.o != 0) {
        raw.rank = 1;
    } else {
        throw ConvError("benchdnn problem", std::string(text), "needs at least one spatial dimension (iw, ih or id)");
    }

    const char* pad_formula = conv ? "((o-1)*s - i + ((k-1)*(d+1)+1))/2" : "((i-1)*s - o + ((k-1)*(d+1)+1))/2";
    const char* right_formula = conv ? "(o-1)*s - i + ((k-1)*(d+1)+1) - p" : "(i-1)*s - o + ((k-1)*(d+1)+1) - p";
    for (int axis = 3 - raw.rank; axis < 3; ++axis) {
        Axis& x = raw.axis[axis];
        x.p_r = sub(conv ? span(x.o, x.i, x, axis, "o") : span(x.i, x.o, x, axis, "o"), x.p, field("p", axis));
        // oneDNN's convolution and deconvolution descriptors: pad_l >= 0 and pad_r + stride > 0
        if (x.p < 0)
            throw ConvError(field("p", axis), std::to_string(x.p),
                            std::string("deduced as ") + pad_formula + " and negative: o" +
                                std::string(1, kAxisLetter[axis]) + " = " + std::to_string(x.o) + " is too " +
                                (conv ? "small" : "large") + " for the input (oneDNN requires a left pad >= 0)");
        if (add(x.p_r, x.s, field("o", axis)) <= 0)
            throw ConvError(field("o", axis), std::to_string(x.o),
                            std::string("implies the right pad ") + right_formula + " = " + std::to_string(x.p_r) +
                                "; oneDNN requires right pad + stride > 0");
    }
    return raw;
}

std::string print_geometry(const ProblemFields& g, std::string_view name) {
    for (char c : name)
        if (c == '"' || c == ' ' || c == '\t' || c == '\n' || c == '\r')
            throw ConvError("name", std::string(name), "a benchdnn name cannot hold whitespace or a double quote");
    auto same = [](const Axis& a, const Axis& b) {
        return a.o == b.o && a.i == b.i && a.k == b.k && a.s == b.s && a.p == b.p && a.d == b.d;
    };
    const Axis &D = g.axis[0], &H = g.axis[1], &W = g.axis[2];
    // print_dhw: which axes benchdnn prints (h and w are left out when they repeat the axis before)
    const bool cubic = same(D, H) && same(H, W), square = same(H, W);
    const bool print_d = g.rank == 3;
    const bool print_h = g.rank == 2 || (g.rank == 3 && !cubic);
    const bool print_w = g.rank == 1 || (g.rank == 3 && !cubic) || (g.rank == 2 && !square);

    std::ostringstream s;
    auto spatial = [&](const char* what, std::int64_t Axis::*member) {
        if (print_d) s << what << 'd' << D.*member;
        if (print_h) s << what << 'h' << H.*member;
        if (print_w) s << what << 'w' << W.*member;
    };
    if (g.g != 1) s << 'g' << g.g;
    if (g.mb != 2) s << "mb" << g.mb;
    s << "ic" << g.ic;
    spatial("i", &Axis::i);
    s << "oc" << g.oc;
    spatial("o", &Axis::o);
    spatial("k", &Axis::k);
    if (D.s != 1 || H.s != 1 || W.s != 1) spatial("s", &Axis::s);
    spatial("p", &Axis::p);
    if (D.d != 0 || H.d != 0 || W.d != 0) spatial("d", &Axis::d);
    if (!name.empty()) s << "n\"" << name << '"';
    return s.str();
}

}  // namespace benchdnn_detail

const char* benchdnn_driver_name(BenchdnnDriver driver) { return driver == BenchdnnDriver::conv ? "conv" : "deconv"; }

std::optional<BenchdnnDriver> parse_benchdnn_driver(std::string_view name) {
    if (name == "conv") return BenchdnnDriver::conv;
    if (name == "deconv") return BenchdnnDriver::deconv;
    return std::nullopt;
}

const char* benchdnn_version_name(BenchdnnVersion version) {
    return version == BenchdnnVersion::current ? "current" : "3.7.1";
}

std::optional<BenchdnnVersion> parse_benchdnn_version(std::string_view name) {
    if (name == "current") return BenchdnnVersion::current;
    if (name == "3.7.1") return BenchdnnVersion::v3_7_1;
    return std::nullopt;
}

using benchdnn_detail::ProblemFields;

BenchdnnProblem parse_benchdnn(std::string_view text, const BenchdnnSettings& settings) {
    const ProblemFields raw = benchdnn_detail::read_geometry(text, BenchdnnDriver::conv);
    ConvDescriptor d;
    benchdnn_detail::fill_descriptor(raw, settings, d);
    validate(d);
    return {d, benchdnn_unquoted_name(raw.name), raw.name, raw.g_given};
}

std::string benchdnn_unquoted_name(const std::string& written) {
    if (written.size() >= 2 && written.front() == '"' && written.back() == '"') return written.substr(1, written.size() - 2);
    return written;
}

std::string to_benchdnn(const ConvDescriptor& d, std::string_view name) {
    validate(d);
    return benchdnn_detail::print_geometry(benchdnn_detail::geometry_of(d, BenchdnnDriver::conv), name);
}

}  // namespace convcheck
