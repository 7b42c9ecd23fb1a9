#include "convcheck/core/post_ops.hpp"

#include <charconv>
#include <cmath>
#include <utility>

#include "convcheck/core/descriptor.hpp"

namespace convcheck {

namespace {

// An eltwise algorithm's name and parameters: how many it takes, how many must be written, their defaults.
struct EltwiseInfo {
    EltwiseAlgorithm algorithm;
    const char* name;
    int parameters, required;
    float alpha, beta;
};
constexpr EltwiseInfo kEltwise[] = {
    {EltwiseAlgorithm::relu, "relu", 1, 0, 0.0f, 0.0f},       {EltwiseAlgorithm::clip, "clip", 2, 2, 0.0f, 0.0f},
    {EltwiseAlgorithm::linear, "linear", 2, 1, 0.0f, 0.0f},   {EltwiseAlgorithm::round, "round", 0, 0, 0.0f, 0.0f},
    {EltwiseAlgorithm::tanh, "tanh", 0, 0, 0.0f, 0.0f},       {EltwiseAlgorithm::logistic, "logistic", 0, 0, 0.0f, 0.0f},
    {EltwiseAlgorithm::swish, "swish", 1, 0, 1.0f, 0.0f},     {EltwiseAlgorithm::hardswish, "hardswish", 0, 0, 0.0f, 0.0f},
    {EltwiseAlgorithm::gelu_tanh, "gelu_tanh", 0, 0, 0.0f, 0.0f},
    {EltwiseAlgorithm::gelu_erf, "gelu_erf", 0, 0, 0.0f, 0.0f}, {EltwiseAlgorithm::elu, "elu", 1, 0, 1.0f, 0.0f},
    {EltwiseAlgorithm::exp, "exp", 0, 0, 0.0f, 0.0f},         {EltwiseAlgorithm::square, "square", 0, 0, 0.0f, 0.0f},
    {EltwiseAlgorithm::abs, "abs", 0, 0, 0.0f, 0.0f},         {EltwiseAlgorithm::sqrt, "sqrt", 0, 0, 0.0f, 0.0f},
    {EltwiseAlgorithm::soft_relu, "soft_relu", 1, 0, 1.0f, 0.0f}, {EltwiseAlgorithm::log, "log", 0, 0, 0.0f, 0.0f},
    {EltwiseAlgorithm::hardsigmoid, "hardsigmoid", 2, 2, 0.0f, 0.0f},
    {EltwiseAlgorithm::hardswish_ab, "hardswish_ab", 2, 2, 0.0f, 0.0f},
    {EltwiseAlgorithm::mish, "mish", 0, 0, 0.0f, 0.0f},       {EltwiseAlgorithm::pow, "pow", 2, 2, 0.0f, 0.0f},
};
constexpr const char* kBinary[] = {"add", "mul", "max", "min", "sub", "div"};
constexpr const char* kBroadcast[] = {"per_tensor", "per_oc", "full"};
constexpr std::pair<OperandType, const char*> kOperandType[] = {
    {OperandType::f32, "f32"}, {OperandType::f16, "f16"}, {OperandType::bf16, "bf16"},
    {OperandType::u8, "u8"},   {OperandType::s8, "s8"},   {OperandType::s32, "s32"},
};

const EltwiseInfo& info(EltwiseAlgorithm a) { return kEltwise[static_cast<int>(a)]; }

// The shortest text that reads back as the same float, with no '+' (the chain's separator): "1e10", not "1e+10".
std::string number(float v) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof(text), v).ptr;
    std::string s(text, end);
    if (const auto plus = s.find('+'); plus != std::string::npos) s.erase(plus, 1);
    return s;
}

float parse_number(const std::string& op, std::string_view text) {
    float v = 0.0f;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw ConvError("po", op, "parameter '" + std::string(text) + "' must be a number");
    return v;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        // '+' after "<digit>e" is an exponent's sign, not the separator
        const bool exponent = separator == '+' && i < text.size() && i >= 2 && (text[i - 1] == 'e' || text[i - 1] == 'E') &&
                              (std::isdigit(static_cast<unsigned char>(text[i - 2])) || text[i - 2] == '.');
        if (i == text.size() || (text[i] == separator && !exponent)) {
            parts.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    return parts;
}

PostOp parse_one(std::string_view text) {
    const std::string op(text);
    const auto parts = split(text, ':');
    const std::string_view name = parts[0];
    const int given = static_cast<int>(parts.size()) - 1;
    PostOp p;
    for (const EltwiseInfo& e : kEltwise) {
        if (name != e.name) continue;
        if (given < e.required || given > e.parameters)
            throw ConvError("po", op, std::string(e.name) + " takes " + std::to_string(e.required) +
                                          (e.parameters == e.required ? "" : " to " + std::to_string(e.parameters)) +
                                          " parameters");
        p.kind = PostOpKind::eltwise;
        p.eltwise = e.algorithm;
        p.alpha = given >= 1 ? parse_number(op, parts[1]) : e.alpha;
        p.beta = given >= 2 ? parse_number(op, parts[2]) : e.beta;
        return p;
    }
    if (name == "sum") {
        if (given > 2) throw ConvError("po", op, "sum takes at most 2 parameters (scale, zero point)");
        p.kind = PostOpKind::sum;
        p.scale = given >= 1 ? parse_number(op, parts[1]) : 1.0f;
        if (given >= 2) {
            const auto z = parts[2];
            const auto [ptr, ec] = std::from_chars(z.data(), z.data() + z.size(), p.zero_point);
            if (z.empty() || ec != std::errc() || ptr != z.data() + z.size())
                throw ConvError("po", op, "sum's zero point must be a 32-bit integer");
        }
        return p;
    }
    auto shape = [&](std::string_view text) {
        for (int s = 0; s < 3; ++s)
            if (text == kBroadcast[s]) return static_cast<OperandBroadcast>(s);
        throw ConvError("po", op, "the operand's shape must be per_tensor, per_oc or full");
    };
    if (name == "prelu") {
        if (given != 1) throw ConvError("po", op, "prelu takes its weights' shape: per_tensor, per_oc or full");
        p.kind = PostOpKind::prelu;
        p.broadcast = shape(parts[1]);
        return p;
    }
    for (int b = 0; b < 6; ++b) {
        if (name != kBinary[b]) continue;
        p.kind = PostOpKind::binary;
        p.binary = static_cast<BinaryAlgorithm>(b);
        if (given < 1 || given > 2)
            throw ConvError("po", op, std::string(kBinary[b]) + " takes its operand's shape (per_tensor, per_oc or full) "
                                      "and optionally its data type");
        p.broadcast = shape(parts[1]);
        if (given == 2) {
            bool known = false;
            for (const auto& [t, text] : kOperandType)
                if (parts[2] == text) p.operand_type = t, known = true;
            if (!known) throw ConvError("po", op, "the operand's data type must be f32, f16, bf16, u8, s8 or s32");
        }
        return p;
    }
    throw ConvError("po", op,
                    "unknown post-op (eltwise: relu clip linear round tanh logistic swish hardswish gelu_tanh gelu_erf "
                    "elu exp square abs sqrt soft_relu log hardsigmoid hardswish_ab mish pow; sum; binary: add mul max "
                    "min sub div; prelu)");
}

}  // namespace

bool PostOp::operator==(const PostOp& o) const {
    if (kind != o.kind) return false;
    switch (kind) {
        case PostOpKind::eltwise: return eltwise == o.eltwise && alpha == o.alpha && beta == o.beta;
        case PostOpKind::sum: return scale == o.scale && zero_point == o.zero_point;
        case PostOpKind::binary: return binary == o.binary && broadcast == o.broadcast && operand_type == o.operand_type;
        case PostOpKind::prelu: return broadcast == o.broadcast;
    }
    return false;
}

std::string_view to_string(EltwiseAlgorithm a) { return info(a).name; }
std::string_view to_string(BinaryAlgorithm a) { return kBinary[static_cast<int>(a)]; }
std::string_view to_string(OperandBroadcast b) { return kBroadcast[static_cast<int>(b)]; }
std::string_view to_string(OperandType t) {
    for (const auto& [type, text] : kOperandType)
        if (type == t) return text;
    return "?";
}
int size_of(OperandType t) {
    switch (t) {
        case OperandType::f32: case OperandType::s32: return 4;
        case OperandType::f16: case OperandType::bf16: return 2;
        case OperandType::u8: case OperandType::s8: return 1;
    }
    return 4;
}
bool has_operand(PostOpKind k) { return k == PostOpKind::binary || k == PostOpKind::prelu; }

std::string to_string(const PostOp& op) {
    switch (op.kind) {
        case PostOpKind::eltwise: {
            const EltwiseInfo& e = info(op.eltwise);
            // trailing parameters that equal their defaults are left out (never a required one)
            int shown = e.parameters;
            if (shown == 2 && e.required < 2 && op.beta == e.beta) shown = 1;
            if (shown == 1 && e.required < 1 && op.alpha == e.alpha) shown = 0;
            std::string s = e.name;
            if (shown >= 1) s += ":" + number(op.alpha);
            if (shown >= 2) s += ":" + number(op.beta);
            return s;
        }
        case PostOpKind::sum: {
            std::string s = "sum";
            if (op.scale != 1.0f || op.zero_point != 0) s += ":" + number(op.scale);
            if (op.zero_point != 0) s += ":" + std::to_string(op.zero_point);
            return s;
        }
        case PostOpKind::binary:
            return std::string(to_string(op.binary)) + ":" + std::string(to_string(op.broadcast)) +
                   (op.operand_type == OperandType::f32 ? "" : ":" + std::string(to_string(op.operand_type)));
        case PostOpKind::prelu: return "prelu:" + std::string(to_string(op.broadcast));
    }
    return "?";
}

std::string post_ops_text(const std::vector<PostOp>& ops) {
    std::string s;
    for (const PostOp& op : ops) s += (s.empty() ? "" : "+") + to_string(op);
    return s;
}

std::vector<PostOp> parse_post_ops(std::string_view text) {
    std::vector<PostOp> ops;
    if (text.empty()) throw ConvError("po", "", "an empty chain is written by leaving po= out");
    for (std::string_view part : split(text, '+')) {
        if (part.empty()) throw ConvError("po", std::string(text), "an empty post-op between '+' separators");
        ops.push_back(parse_one(part));
    }
    return ops;
}

void validate_post_ops(const ConvDescriptor& d) {
    const auto& ops = d.post_ops;
    if (ops.empty()) return;
    if (d.pass != Pass::forward)
        throw ConvError("po", post_ops_text(ops), "post-ops apply to the forward pass only (dir=fwd)");
    if (ops.size() > 32) throw ConvError("po", std::to_string(ops.size()) + " ops", "at most 32 post-ops (oneDNN's limit)");
    int sums = 0;
    for (const PostOp& op : ops) {
        const std::string name = to_string(op);
        auto finite = [&](const char* what, float v) {
            if (!std::isfinite(v)) throw ConvError("po", name, std::string(what) + " must be finite");
        };
        switch (op.kind) {
            case PostOpKind::eltwise: {
                const EltwiseInfo& e = info(op.eltwise);
                finite("alpha", op.alpha);
                finite("beta", op.beta);
                if ((e.parameters < 1 && op.alpha != 0.0f) || (e.parameters < 2 && op.beta != 0.0f))
                    throw ConvError("po", name, std::string(e.name) + " takes " + std::to_string(e.parameters) +
                                                    " parameters; the others must be 0");
                if (op.eltwise == EltwiseAlgorithm::clip && !(op.alpha <= op.beta))
                    throw ConvError("po", name, "clip's lower bound alpha must not exceed its upper bound beta");
                if (op.eltwise == EltwiseAlgorithm::soft_relu && op.alpha == 0.0f)
                    throw ConvError("po", name, "soft_relu's alpha must not be 0 ((1 / alpha) log(1 + e^(alpha x)))");
                break;
            }
            case PostOpKind::sum:
                finite("the scale", op.scale);
                if (++sums > 1) throw ConvError("po", post_ops_text(ops), "at most one sum (dst holds one prior value)");
                break;
            case PostOpKind::binary: case PostOpKind::prelu: break;
        }
    }
}

std::int64_t operand_elements(const ConvDescriptor& d, const PostOp& op) {
    if (!has_operand(op.kind)) return 0;
    switch (op.broadcast) {
        case OperandBroadcast::per_tensor: return 1;
        case OperandBroadcast::per_oc: return d.out_channels;
        case OperandBroadcast::full: return d.dst_elements();
    }
    return 0;
}

bool has_sum(const std::vector<PostOp>& ops) {
    for (const PostOp& op : ops)
        if (op.kind == PostOpKind::sum) return true;
    return false;
}

}  // namespace convcheck
