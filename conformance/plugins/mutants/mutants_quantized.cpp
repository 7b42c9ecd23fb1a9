// The mutants plugin's quantized convolution (ABI 1.5): the integer sum of every in-bounds tap,
//   acc = bias(oc) + sum (x - zx) * (w - zw)    in int32,
// (zx the input channel's, zx and the dst zero point per tensor or per channel: ABI 1.7),
// requantized with gemmlowp's double rounding (the rule the plugin declares): QuantizeMultiplier's Q31
// multiplier and shift, SaturatingRoundingDoublingHighMul, RoundingDivideByPOT; then + dzp, clamped to
// [dst_min, dst_max]. Written here from gemmlowp's description, apart from the reference. Each q_* mutant is
// one marked deviation.
// The general output (ABI 1.7: an F32 dst, or post-ops on an integer or F32 dst), oneDNN's definition in double:
//   dst = convert(post_ops(src_scale * weights_scale(oc) * acc) / dst_scale + dst_zero_point)   (oc's, per channel)
// with the post-ops relu, clip, linear and sum (conv_query declines others), convert: the nearest integer (ties to
// even) saturated to [dst_min, dst_max], or f32.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "convcheck/plugin_quantized.hpp"
#include "mutants_problem.hpp"

namespace convcheck::mutants {

namespace {

using namespace convcheck_plugin_support;

// real = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31) (TFLite QuantizeMultiplier)
void quantize_multiplier(double real, std::int32_t* multiplier, int* shift) {
    if (real == 0.0) {
        *multiplier = 0, *shift = 0;
        return;
    }
    const double q = std::frexp(real, shift);
    auto q31 = static_cast<std::int64_t>(std::round(q * double(std::int64_t{1} << 31)));
    if (q31 == (std::int64_t{1} << 31)) q31 /= 2, ++*shift;
    *multiplier = static_cast<std::int32_t>(q31);
}

std::int32_t doubling_high_mul(std::int32_t a, std::int32_t b) {
    if (a == b && a == std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::max();
    const std::int64_t ab = std::int64_t{a} * b;
    const std::int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));
}

std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent) {
    const std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << exponent) - 1);
    const std::int32_t remainder = x & mask, threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// acc * real under the declared rule (gemmlowp's double rounding), or a mutant's
std::int64_t requantize(std::int32_t acc, double real, Mutant m) {
    if (m == M::q_ties_to_even || m == M::q_zero_point_after_rounding)
        return static_cast<std::int64_t>(std::nearbyint(float(acc) * float(real)));
    std::int32_t multiplier = 0;
    int shift = 0;
    quantize_multiplier(real, &multiplier, &shift);
    if (m == M::q_single_rounding) {
        const int right = 31 - shift;
        return (std::int64_t{acc} * multiplier + (std::int64_t{1} << (right - 1))) >> right;
    }
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return rounding_divide_by_pot(doubling_high_mul(acc * (1 << left), multiplier), right);
}

// The post-ops extension on the chain, or NULL.
const convcheck_post_ops* chain_post_ops(const convcheck_conv_desc& desc) {
    for (const convcheck_extension* e = extensions(desc); e != nullptr; e = e->next)
        if (e->tag == CONVCHECK_EXTENSION_POST_OPS) return reinterpret_cast<const convcheck_post_ops*>(e);
    return nullptr;
}

// x (dst's units before the conversion) for the real value v of output channel oc; prior: dst's value before the call
// (a sum reads it)
double general_output(const convcheck_post_ops* ops, const convcheck_quantization& q, double v, double prior,
                      long long oc, Mutant m) {
    const auto quantize = [&](double r) { return r / double(q.dst_scale) + double(dst_zero_point(q, oc)); };
    if (m == M::q_dst_zero_point_before_post_ops) v = quantize(v);
    for (int64_t k = 0; ops != nullptr && k < ops->count; ++k) {
        const convcheck_post_op& op = ops->ops[k];
        if (op.kind == CONVCHECK_POST_OP_SUM) v += double(op.scale) * (prior - double(op.zero_point));
        else if (op.algorithm == CONVCHECK_ELTWISE_RELU) v = v > 0 ? v : double(op.alpha) * v;
        else if (op.algorithm == CONVCHECK_ELTWISE_CLIP) v = std::min(double(op.beta), std::max(double(op.alpha), v));
        else v = double(op.alpha) * v + double(op.beta);  // LINEAR
    }
    return m == M::q_dst_zero_point_before_post_ops ? v : quantize(v);
}

}  // namespace

std::string quantized_general_unsupported(const convcheck_conv_desc& desc, const convcheck_quantization& q) {
    const TensorDtypes t = tensor_dtypes(desc);
    if (desc.has_bias && t.bias != CONVCHECK_S32) return "the mutants plugin's quantized bias is s32";
    if (is_float_dst_dtype(t.dst) && t.dst != CONVCHECK_F32) return "the mutants plugin's float quantized dst is f32";
    const convcheck_post_ops* ops = chain_post_ops(desc);
    if (ops == nullptr && rounded_s32_dst(desc, q))
        return "the mutants plugin's s32 dst without post-ops is the accumulator (no rounded s32)";
    for (int64_t k = 0; ops != nullptr && k < ops->count; ++k) {
        const convcheck_post_op& op = ops->ops[k];
        const bool taken = op.kind == CONVCHECK_POST_OP_SUM ||
                           (op.kind == CONVCHECK_POST_OP_ELTWISE &&
                            (op.algorithm == CONVCHECK_ELTWISE_RELU || op.algorithm == CONVCHECK_ELTWISE_CLIP ||
                             op.algorithm == CONVCHECK_ELTWISE_LINEAR));
        if (!taken) return "the mutants plugin's quantized post-ops are relu, clip, linear and sum";
    }
    return "";
}

namespace {

std::int32_t saturate_s16(std::int64_t v) {
    return static_cast<std::int32_t>(std::min<std::int64_t>(std::max<std::int64_t>(v, -32768), 32767));
}

}  // namespace

void compute_quantized(const convcheck_conv_desc& desc, const convcheck_quantization& q, const convcheck_conv_args& args,
                       Mutant m) {
    using namespace convcheck_plugin_support;
    const TensorDtypes t = tensor_dtypes(desc);
    const Problem p(desc, m);
    // output channel oc's weights zero point (per tensor or per output channel, ABI 1.8), or the mutant's: the output
    // channel within its group
    const auto weights_zp = [&](long long oc) -> std::int64_t {
        return weights_zero_point(q, m == M::q_weights_zero_point_in_group ? oc % (desc.out_channels / desc.groups) : oc);
    };
    // input channel c's src zero point (per tensor or per channel, ABI 1.7), or the mutant's: output channel oc's
    const auto src_zp = [&](long long c, long long oc) -> std::int64_t {
        return src_zero_point(q, m == M::q_src_zero_point_by_oc ? oc % desc.in_channels : c);
    };
    // VPMADDUBSW adds the raw u8 x s8 products of each tap's input channels 2j and 2j + 1 in a saturating s16, an
    // odd last channel alone; the zero points are compensated apart, exactly (quantization.h's S16_PAIRS): the bug
    // q_s16_pairs does so while declaring s32, honest_s16_pairs declares it (for u8 src and s8 weights without a
    // weights zero point, where the accumulator is defined)
    const bool u8_s8 = t.src == CONVCHECK_U8 && t.weights == CONVCHECK_S8;
    const convcheck_post_ops* ops = chain_post_ops(desc);
    const bool float_dst = t.dst == CONVCHECK_F32, general = float_dst || ops != nullptr;
    const bool one_src_zp = !per_channel_zero_points(q) || q.src_zero_point_count == 1;
    const bool one_zero_weights_zp = !per_channel_weights_zero_points(q) && q.weights_zero_point == 0;
    const bool pairs =
        (m == M::q_s16_pairs && u8_s8) || (m == M::honest_s16_pairs && u8_s8 && one_zero_weights_zp && one_src_zp);
    // tap kx of output pixel y: false in the padding, else its input pixel's flat offset in *xs
    const auto tap_source = [&p](const Dims& y, long long kx, long long* xs) {
        const Dims kk{kx / (p.k[1] * p.k[2]), (kx / p.k[2]) % p.k[1], kx % p.k[2]};
        bool outside = false;
        for (int ax = 0; ax < 3; ++ax) {
            const long long x = y[ax] * p.s[ax] - p.pb[ax] + kk[ax] * p.dil[ax];
            outside = outside || x < 0 || x >= p.in[ax];
            *xs = *xs * p.in[ax] + x;
        }
        return !outside;
    };
    for (long long n = 0; n < p.N; ++n)
        for (long long oc = 0; oc < p.O; ++oc)
            for (long long o = 0; o < p.out_spatial; ++o) {
                const Dims y{o / (p.out[1] * p.out[2]), (o / p.out[2]) % p.out[1], o % p.out[2]};
                const long long g = oc / p.OCg;
                const std::int64_t zw = weights_zp(oc);
                std::int64_t acc = 0, raw = 0;
                for (long long kx = 0; pairs && kx < p.k_spatial; ++kx) {  // tap by tap, channel pair by pair
                    long long xs = 0;
                    if (!tap_source(y, kx, &xs)) continue;
                    std::int64_t pair = 0;
                    for (long long ic = 0; ic < p.ICg; ++ic) {
                        const std::int64_t w = load_integer(args.weights, t.weights, p.weights_index(oc, ic, kx));
                        const std::int64_t x = load_integer(args.src, t.src, p.src_index(n, g * p.ICg + ic, xs));
                        pair += x * w;
                        if (ic % 2 == 1 || ic + 1 == p.ICg) raw += saturate_s16(pair), pair = 0;
                        const std::int64_t zx = src_zp(g * p.ICg + ic, oc);
                        acc += -zx * w - zw * x + zx * zw;  // -zx * w - zw * x + zx * zw: exact
                    }
                }
                for (long long ic = 0; !pairs && ic < p.ICg; ++ic)
                    for (long long kx = 0; kx < p.k_spatial; ++kx) {
                        long long xs = 0;
                        const bool outside = !tap_source(y, kx, &xs);
                        const std::int64_t w = load_integer(args.weights, t.weights, p.weights_index(oc, ic, kx));
                        const std::int64_t zx = src_zp(g * p.ICg + ic, oc);
                        if (outside) {
                            if (m == M::q_zero_point_in_padding) acc += (0 - zx) * (w - zw);
                            continue;
                        }
                        const std::int64_t x = load_integer(args.src, t.src, p.src_index(n, g * p.ICg + ic, xs));
                        acc += (x - zx) * (w - zw);
                    }
                acc += raw;
                const std::int64_t bias = desc.has_bias ? load_integer(args.bias, CONVCHECK_S32, oc) : 0;
                std::int64_t v = acc + (m == M::q_bias_after_requantization ? 0 : bias);
                if (general) {
                    const long long at = p.dst_index(n, oc, o);
                    const double prior = float_dst ? double(static_cast<const float*>(args.dst)[at])
                                                   : double(load_integer(args.dst, t.dst, at));
                    const double x = general_output(ops, q, double(q.src_scale) * double(weights_scale(q, oc)) * double(v),
                                                    prior, oc, m);
                    if (float_dst) static_cast<float*>(args.dst)[at] = static_cast<float>(x);
                    else store_integer(args.dst, t.dst, at, static_cast<std::int64_t>(std::nearbyint(
                                                                std::min(std::max(x, double(q.dst_min)), double(q.dst_max)))));
                    continue;
                }
                if (t.dst != CONVCHECK_S32) {
                    const long long scale_channel = m == M::q_channel_scale_in_group ? oc % p.OCg : oc;
                    const double real = double(q.src_scale) * double(weights_scale(q, scale_channel)) / double(q.dst_scale);
                    v = requantize(static_cast<std::int32_t>(v), real, m) + dst_zero_point(q, oc);
                    if (m == M::q_bias_after_requantization) v += bias;
                    const std::int64_t hi =
                        m == M::q_clamp_off_by_one && q.dst_max < (t.dst == CONVCHECK_U8 ? 255 : 127) ? q.dst_max - 1 : q.dst_max;
                    v = std::min<std::int64_t>(std::max<std::int64_t>(v, q.dst_min), hi);
                }
                store_integer(args.dst, t.dst, p.dst_index(n, oc, o), v);
            }
}

}  // namespace convcheck::mutants
