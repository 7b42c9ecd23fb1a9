// Quantized convolution's general output (operation.hpp; docs/quantized.md, "General output: float dst, rounded s32, post-ops"):
// a float dst or post-ops on an int8 case, judged in bound mode against oneDNN's definition
//   dst[:] = post_ops(OP(src[:], weights[:], ...)) / scale_dst + zp_dst
// (reference/quantized_general_output.hpp quotes it).
//
// The bound. The backend forms conv_res = src_scale * weights_scale(oc) * acc + bias in f32 ("The scales are applied
// in single precision floating point data type"): f32(acc), the scales' product and the product with acc (three
// roundings, in whatever order it groups them: within gamma_3(u) |P| of P = src_scale * weights_scale(oc) * acc),
// then the bias's addition (one more: u times the sum's magnitude). So the backend's conv_res is within
//     E0 = gamma_3(u) |P| + u (|P| (1 + gamma_3(u)) + |bias|)
// of the exact one. carry_post_op_bound (conv/post_ops.cpp) carries it through each post-op to E. The dst scale
// and zero point in f32: v / dst_scale (a reciprocal and a product, or a quotient: two roundings at most) and
// + dst_zero_point (one; output channel oc's with dzp=oc):
//     E1 = E / dst_scale + 2u (|v| + E) / dst_scale,   Ex = E1 + u (|x| + E1)      (x = v / dst_scale + zp)
// A float dst then passes within output_error_bound(x, Ex) in its own type; an integer dst with any integer from
// the nearest-even rounding of x - Ex to that of x + Ex, each saturated to [dst_min, dst_max] — the rounding of some
// value the backend could hold, never a widened +-1.
//
// An f32 accumulation (acc=f32: an ONNX QDQ model, DequantizeLinear -> Conv -> QuantizeLinear) has no integer
// accumulator: the model dequantizes each tap in f32, xf = f32((x - zx) * src_scale) and wf = f32((w - zw) *
// weights_scale(oc)) (one rounding each), and its float Conv sums the n = products_per_output() products xf * wf and
// the f32 bias in f32, in any order. Higham's inner-product bound (Accuracy and Stability, 2nd ed., (3.5)) gives
// gamma_n(u) sum |xf wf| for the n products and n - 1 additions in any order, one more addition for the bias
// (gamma_{n+1}), and |xf wf - xr wr| <= gamma_2(u) |xr wr| for the dequantization (xr, wr exact); as gamma_a + gamma_b +
// gamma_a gamma_b <= gamma_{a+b}:
//     E0 = gamma_{n+3}(u) (src_scale * weights_scale(oc) * A + |bias|),   A = sum |x - zx| |w - zw| (an s32 bias among its
//     terms, in the accumulator's units)
// around the same exact value v. It is never below the integer accumulator's E0 (|acc| <= A, n >= 1), so a backend
// that sums in s32 and scales once is inside it too. QuantizeLinear rounds v / y_scale to even and then adds y's zero
// point; the window holds that integer as well: every value within Ex of x is inside it, and Ex > E1 strictly where
// x != 0, so a tie t of the quotient (t + zp within E1 of x) has both its neighbours, + zp, in the window.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "convcheck/abi/abi_post_ops.hpp"
#include "convcheck/runner/offline.hpp"
#include "convcheck/abi/abi_quantized.hpp"
#include "convcheck/core/dtype.hpp"
#include "convcheck/core/memory_layout.hpp"
#include "convcheck/core/rounding_error.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "convcheck/reference/quantized_convolution.hpp"
#include "convcheck/reference/quantized_general_output.hpp"
#include "convcheck/runner/operation_calls.hpp"
#include "../conv/operation.hpp"
#include "operation.hpp"

namespace convcheck::runner::detail {

namespace {

// The post-op inputs: the binary operands as bound mode draws them for a float case, and for a sum dst's prior
// content: a float dst's values (rounded to its type), an integer dst's integers within 16 of its output channel's zero
// point (dst_zero_point(i): output i's).
template <typename ZeroPoint>
reference::PostOpData general_post_op_data(const QuantizedDescriptor& q, std::uint64_t seed, ZeroPoint dst_zero_point) {
    reference::PostOpData post = make_post_op_data(q.conv, accuracy::Mode::bound, seed);
    if (post.prior_dst.empty()) return post;
    std::mt19937_64 rng(seed ^ 0x7072696f72ULL);  // "prior"
    for (std::size_t i = 0; i < post.prior_dst.size(); ++i) {
        double& v = post.prior_dst[i];
        if (q.float_dst) {
            v = round_to(*q.float_dst, v);
        } else {
            const std::int64_t zp = dst_zero_point(i);
            const std::int64_t lo = std::max<std::int64_t>(q.dst_min, zp - 16);
            const std::int64_t hi = std::min<std::int64_t>(q.dst_max, zp + 16);
            v = double(std::uniform_int_distribution<std::int64_t>(lo, hi)(rng));
        }
    }
    return post;
}

// dst's element at `offset` in the case's dst type, and the store of one.
double load_dst(const QuantizedDescriptor& q, const void* data, std::int64_t offset) {
    return q.float_dst ? load_as_double(data, *q.float_dst, offset)
                       : double(convcheck_plugin_support::load_integer(data, abi_dtype(q.dst), offset));
}
void store_dst(const QuantizedDescriptor& q, void* data, std::int64_t offset, double v) {
    if (q.float_dst) store_from_double(data, *q.float_dst, offset, v);
    else convcheck_plugin_support::store_integer(data, abi_dtype(q.dst), offset, static_cast<std::int64_t>(v));
}
std::size_t dst_bytes(const QuantizedDescriptor& q) {
    return q.float_dst ? static_cast<std::size_t>(size_of(*q.float_dst))
                       : convcheck_plugin_support::integer_bytes(abi_dtype(q.dst));
}

}  // namespace

void check_quantized_general(const Backend& backend, const Case& c, const CheckSettings& s,
                             const accuracy::Contract& contract, const CaseMemory& needs, const QuantizedData& data,
                             const std::vector<std::int64_t>& accumulator, CaseResult& r) {
    const QuantizedDescriptor& q = c.qconv;
    const ConvDescriptor& d = q.conv;
    std::int64_t spatial = 1;
    for (int a = 0; a < d.rank; ++a) spatial *= d.output_size(a);
    const auto channel = [&](std::size_t i) { return static_cast<std::size_t>((std::int64_t(i) / spatial) % d.out_channels); };
    // output i's dst zero point: the one, or its output channel's (dzp=oc)
    const auto dst_zero_point = [&](std::size_t i) {
        return data.dst_zero_points.size() == 1 ? data.dst_zero_points[0] : data.dst_zero_points[channel(i)];
    };
    const reference::PostOpData post = general_post_op_data(q, c.seed, dst_zero_point);

    // the exact x per output and its bound (the header's derivation); f32 arithmetic: u = 2^-24
    accuracy::Contract f32 = contract;
    f32.accumulation_dtype = DataType::f32, f32.accumulation_is_f64 = false;
    const double u = accuracy::accumulation_roundoff(f32);
    accuracy::Contract out = f32;
    out.output_dtype = q.float_dst.value_or(DataType::f32);
    const std::size_t n = accumulator.size();
    // acc=f32: sum |x - zx| |w - zw| per output (the bias's magnitude among them when it is s32), and the products' count
    std::vector<std::int64_t> magnitude;
    const std::int64_t products = q.products_per_output();
    if (q.f32_accumulation) {
        const std::vector<std::int32_t>& wzp = data.weights_zero_points;
        const std::vector<std::int32_t> in_accumulator = data.accumulator_bias();
        const reference::IntegerSums sums =
            reference::integer_convolution_sum(d, {data.src, data.weights, in_accumulator, data.src_zero_points, wzp});
        magnitude.resize(n);
        for (std::size_t i = 0; i < n; ++i) magnitude[i] = sums.positive[i] + sums.negative[i];
    }
    std::vector<double> x(n), bound(n);
    std::vector<std::int64_t> lowest_ok(n), highest_ok(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t oc = channel(i);
        const double wsc = data.weights_scales[data.weights_scales.size() == 1 ? 0 : oc];
        const double bias = q.f32_bias ? double(data.f32_bias[oc]) : 0.0;
        const double p = std::fabs(double(q.src_scale) * wsc * double(accumulator[i]));
        const double e0 =
            q.f32_accumulation
                ? gamma(products + 3, u) * (double(q.src_scale) * wsc * double(magnitude[i]) + std::fabs(bias))
                : gamma(3, u) * p + u * (p * (1.0 + gamma(3, u)) + std::fabs(bias));
        double v = double(q.src_scale) * wsc * double(accumulator[i]) + bias;
        const double e = carry_post_op_bound(d, f32, post, std::int64_t(i), v, e0);
        // v is now reference::quantized_real_value's (the same chain on the same start)
        x[i] = reference::quantized_dst_real(q, v, dst_zero_point(i), std::int64_t(oc));
        const double dsc = q.dst_scale_of(std::int64_t(oc));  // output channel oc's (dsc=a:b:...)
        const double e1 = e / dsc + 2.0 * u * (std::fabs(v) + e) / dsc;
        const double ex = e1 + u * (std::fabs(x[i]) + e1);
        if (q.float_dst) {
            bound[i] = accuracy::output_error_bound(out, x[i], ex);
        } else {
            lowest_ok[i] = reference::nearest_even_saturated(q, x[i] - ex);
            highest_ok[i] = reference::nearest_even_saturated(q, x[i] + ex);
        }
    }

    // buffers: src, weights, bias as the exact path's; dst in its type, holding the sum's prior or a fill no right
    // answer holds (NaN for a float dst; for an integer one the highest value no window reaches, when there is one)
    GuardedBuffer src = tensor_buffer(d, TensorRole::src, q.src, data.src);
    GuardedBuffer weights = tensor_buffer(d, TensorRole::weights, q.weights, data.weights);
    GuardedBuffer bias;
    if (d.has_bias) {
        bias = GuardedBuffer(static_cast<std::size_t>(d.out_channels) * 4);
        if (q.f32_bias) std::memcpy(bias.data(), data.f32_bias.data(), bias.bytes());
        else std::memcpy(bias.data(), data.bias.data(), bias.bytes());
    }
    GuardedBuffer dst(static_cast<std::size_t>(d.dst_elements()) * dst_bytes(q));
    const bool sum = has_sum(d.post_ops);
    std::int64_t fill = highest(q.dst);  // moved below every window that holds it, until none does
    for (bool moved = !q.float_dst; moved && fill >= lowest(q.dst);) {
        moved = false;
        for (std::size_t i = 0; i < n; ++i)
            if (fill >= lowest_ok[i] && fill <= highest_ok[i]) fill = lowest_ok[i] - 1, moved = true;
    }
    const bool fill_telling = q.float_dst || fill >= lowest(q.dst);
    if (q.float_dst) std::memset(dst.data(), 0xFF, dst.bytes());
    for_each_element(d, TensorRole::dst, [&](std::int64_t flat, std::int64_t offset) {
        if (sum) store_dst(q, dst.data(), offset, post.prior_dst[static_cast<std::size_t>(flat)]);
        else if (!q.float_dst) store_dst(q, dst.data(), offset, double(std::max(fill, lowest(q.dst))));
    });
    std::vector<GuardedBuffer> operands;
    for (std::size_t k = 0; k < d.post_ops.size(); ++k) {
        const std::int64_t count = operand_elements(d, d.post_ops[k]);
        operands.emplace_back(static_cast<std::size_t>(count) * sizeof(float));
        if (count > 0)
            reference::canonical_to_operand(d, d.post_ops[k], post.operands[k], static_cast<float*>(operands.back().data()));
    }
    GuardedBuffer prior;
    if (sum) {
        prior = GuardedBuffer(dst.bytes());
        std::memcpy(prior.data(), dst.data(), dst.bytes());
    }

    // the descriptor: the quantization extension (1.5), the post-ops (1.6) beside it; 1.7's float dst
    const std::unique_ptr<AbiQuantized> abi = to_abi(q, data.weights_scales, data.src_zero_points, data.dst_zero_points, data.weights_zero_points);
    ConvExecution e;
    e.desc = abi->desc;
    if (!d.post_ops.empty() && !backend.offline) {
        e.post_ops = std::make_shared<AbiPostOps>();
        attach_post_ops(d, e.desc, *e.post_ops);
        for (const GuardedBuffer& operand : operands) e.operands.push_back(operand.bytes() > 0 ? &operand : nullptr);
        if (sum) e.prior_dst = &prior;
    }
    e.src = &src, e.weights = &weights, e.bias = d.has_bias ? &bias : nullptr, e.dst = &dst;
    const ChildOutcome o = execute_quantized(backend, e, s, needs, true);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;

    // the comparison
    std::vector<double> got(n);
    for_each_element(d, TensorRole::dst, [&](std::int64_t flat, std::int64_t offset) {
        got[static_cast<std::size_t>(flat)] = load_dst(q, dst.data(), offset);
    });
    const OutputLocation where = conv_location(d);
    ErrorReport report;
    const accuracy::OnMismatch count = count_failures(report, where);
    accuracy::Comparison cmp;
    cmp.elements = static_cast<std::int64_t>(n);
    std::int64_t unwritten = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double want = x[i], fraction = 0.0;
        bool bad = false;
        if (q.float_dst) {
            fraction = accuracy::bound_fraction(out, x[i], got[i], bound[i]);
            bad = !(fraction <= 1.0);
            if (std::isnan(got[i]) && !sum) ++unwritten;
        } else {
            want = std::clamp(got[i], double(lowest_ok[i]), double(highest_ok[i]));
            bad = got[i] != want;
            if (fill_telling && !sum && got[i] == double(fill)) ++unwritten;
        }
        const double error = std::fabs(got[i] - want);
        if (cmp.worst_index < 0 || error > cmp.max_abs)
            cmp.max_abs = error, cmp.worst_index = std::int64_t(i), cmp.worst_got = got[i], cmp.worst_want = want;
        cmp.max_bound_fraction = std::max(cmp.max_bound_fraction, fraction);
        if (!bad) continue;
        if (cmp.mismatches++ == 0) cmp.first_mismatch = std::int64_t(i);
        count(std::int64_t(i));
    }
    complete_error_report(where, cmp, q.float_dst.has_value(), report);
    r.error = report;
    if (cmp.mismatches > 0) {
        const auto i = static_cast<std::size_t>(cmp.first_mismatch);
        const std::size_t oc = channel(i);
        const double wsc = data.weights_scales[data.weights_scales.size() == 1 ? 0 : oc];
        std::vector<double> steps;
        reference::quantized_real_value(q, post, std::int64_t(i), accumulator[i], wsc,
                                        q.f32_bias ? double(data.f32_bias[oc]) : 0.0, &steps);
        char text[160];
        std::string why = "dst" + coordinates_text(output_coordinates(d, std::int64_t(i))) + " = ";
        if (q.float_dst) std::snprintf(text, sizeof(text), "%.9g", got[i]);
        else std::snprintf(text, sizeof(text), "%lld", static_cast<long long>(got[i]));  // an integer, whole
        why += text;
        if (q.float_dst) {
            std::snprintf(text, sizeof(text), ", want %.17g within %.3g", x[i], bound[i]);
        } else {
            std::snprintf(text, sizeof(text), ", want an integer in [%lld, %lld] (x = %.17g)", (long long)lowest_ok[i],
                          (long long)highest_ok[i], x[i]);
        }
        why += text;
        std::snprintf(text, sizeof(text), ": acc %lld, ssc * wsc * acc + bias = %.17g", (long long)accumulator[i], steps[0]);
        why += text;
        for (std::size_t k = 1; k < steps.size(); ++k) {
            std::snprintf(text, sizeof(text), ", after %s %.17g", to_string(d.post_ops[k - 1]).c_str(), steps[k]);
            why += text;
        }
        std::snprintf(text, sizeof(text), ", / dsc %.9g + dzp %d", double(q.dst_scale_of(std::int64_t(channel(i)))),
                      dst_zero_point(i));
        why += text;
        why += "; " + std::to_string(cmp.mismatches) + " of " + std::to_string(n) + " outputs differ";
        if (unwritten > 0)
            why += "; " + std::to_string(unwritten) + " outputs hold the value dst was filled with (never written?)";
        r.status = Status::failed;
        r.kind = unwritten == cmp.mismatches ? Kind::unwritten : Kind::mismatch;
        r.reason = why;
    }
    leak_status(o, s, r);
}

}  // namespace convcheck::runner::detail
