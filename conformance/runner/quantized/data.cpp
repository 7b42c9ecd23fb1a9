// Quantized convolution's case data and its trip through the backend (operation.hpp): the integers drawn
// from the seed, guarded buffers in the case's formats and integer types, the descriptor with its
// quantization extension (ABI 1.5), one isolated execution (conv/calls.cpp's execute_conv), dst read back.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "convcheck/abi/abi_quantized.hpp"
#include "convcheck/plugin_quantized.hpp"
#include "convcheck/core/memory_layout.hpp"
#include "convcheck/runner/offline.hpp"
#include "convcheck/runner/operation_calls.hpp"
#include "operation.hpp"

namespace convcheck::runner::detail {

namespace {

// The integers' element access is the plugins' own (plugin_quantized.hpp), by the type's ABI dtype.
using convcheck_plugin_support::integer_bytes;
std::size_t bytes_of(IntegerType t) { return integer_bytes(abi_dtype(t)); }
void store(void* data, IntegerType t, std::int64_t offset, std::int64_t v) {
    convcheck_plugin_support::store_integer(data, abi_dtype(t), offset, v);
}
std::int64_t load(const void* data, IntegerType t, std::int64_t offset) {
    return convcheck_plugin_support::load_integer(data, abi_dtype(t), offset);
}

}  // namespace

GuardedBuffer tensor_buffer(const ConvDescriptor& d, TensorRole role, IntegerType t, const std::vector<std::int32_t>& v) {
    GuardedBuffer b(static_cast<std::size_t>(layout_of(d, role).span()) * bytes_of(t));
    for_each_element(d, role, [&](std::int64_t flat, std::int64_t offset) { store(b.data(), t, offset, v[flat]); });
    return b;
}

QuantizedData quantized_data(const QuantizedDescriptor& q, std::uint64_t seed, bool ties) {
    const ConvDescriptor& d = q.conv;
    std::mt19937_64 rng(seed ^ 0x71636f6e76ULL);  // "qconv": a stream of its own
    const auto draw = [&rng](std::int64_t lo, std::int64_t hi) {
        return static_cast<std::int32_t>(std::uniform_int_distribution<std::int64_t>(lo, hi)(rng));
    };
    QuantizedData data;
    // per-channel zero points from a stream of their own (the other tensors' draws stay those of the per-tensor
    // case): over the type's range, none 0, each channel's differing from every other's while the range allows. An
    // s32 or float dst's come from [-128, 127]: a zero point is added to values of a few hundred at most (benchdnn
    // draws them from [-2, 2]), and one far out would saturate every output
    std::mt19937_64 zero_rng(seed ^ 0x717a70ULL);  // "qzp"
    const auto zero_points = [&](bool per_channel, const std::vector<std::int32_t>& given, std::int32_t one,
                                 std::int64_t channels, IntegerType t) {
        if (!per_channel) return std::vector<std::int32_t>{one};
        if (!given.empty()) return given;
        std::vector<std::int32_t> points;
        const std::int64_t lo = t == IntegerType::s32 ? -128 : lowest(t), hi = t == IntegerType::s32 ? 127 : highest(t);
        const bool distinct = channels <= (hi - lo) / 2;
        while (static_cast<std::int64_t>(points.size()) < channels) {
            const auto z = static_cast<std::int32_t>(std::uniform_int_distribution<std::int64_t>(lo, hi)(zero_rng));
            if (z != 0 && (!distinct || std::find(points.begin(), points.end(), z) == points.end())) points.push_back(z);
        }
        return points;
    };
    data.src_zero_points = zero_points(q.per_channel_src_zero_points, q.src_zero_points, q.src_zero_point, d.in_channels, q.src);
    data.dst_zero_points = zero_points(q.per_channel_dst_zero_points, q.dst_zero_points, q.dst_zero_point, d.out_channels, q.dst);
    data.weights_zero_points =  // drawn after the others: a case's src and dst zero points stay those without wzp=oc
        zero_points(q.per_channel_weights_zero_points, q.weights_zero_points, q.weights_zero_point, d.out_channels, q.weights);
    std::int64_t pixels = 1;  // of one input channel: src's canonical (NCX) element i is in channel (i / pixels) % C
    for (int a = 0; a < d.rank; ++a) pixels *= d.input_size[a];
    const auto src_zero_point = [&](std::int64_t i) {
        return data.src_zero_points.size() == 1 ? data.src_zero_points[0]
                                                : data.src_zero_points[static_cast<std::size_t>((i / pixels) % d.in_channels)];
    };
    // each value over its type's range, or within 3 of its zero point (fill=ties; a zero point outside the type,
    // zpt=s32: the type's values nearest it)
    const auto value = [&](IntegerType t, std::int32_t zero_point) {
        const auto inside = [t](std::int64_t v) { return std::clamp<std::int64_t>(v, lowest(t), highest(t)); };
        return ties ? draw(inside(std::int64_t{zero_point} - 3), inside(std::int64_t{zero_point} + 3))
                    : draw(lowest(t), highest(t));
    };
    for (std::int64_t i = 0; i < d.src_elements(); ++i) data.src.push_back(value(q.src, src_zero_point(i)));
    const std::int64_t per_output_channel = d.weights_elements() / std::max<std::int64_t>(1, d.out_channels);  // OIX
    for (std::int64_t i = 0; i < d.weights_elements(); ++i)
        data.weights.push_back(value(q.weights, data.weights_zero_points.size() == 1
                                                    ? data.weights_zero_points[0]
                                                    : data.weights_zero_points[static_cast<std::size_t>(i / per_output_channel)]));
    // the bias: within what the products leave of s32 (validate keeps products * largest below 2^31), and
    // within +-2^16 (+-8 with ties), about the sums' own size, so that outputs stay inside dst's range
    const std::int64_t room = std::numeric_limits<std::int32_t>::max() - q.products_per_output() * q.largest_product();
    const std::int64_t b = std::min<std::int64_t>(room, ties ? 8 : std::int64_t{1} << 16);
    for (std::int64_t o = 0; o < d.bias_elements(); ++o) data.bias.push_back(draw(-b, b));
    if (!q.per_channel_scales) {
        data.weights_scales = {q.weights_scale};
    } else if (!q.channel_scales.empty()) {
        data.weights_scales = q.channel_scales;  // given (a model's)
    } else {
        for (std::int64_t o = 0; o < d.out_channels; ++o)
            data.weights_scales.push_back(std::ldexp(float(2 * draw(0, 7) + 1), -static_cast<int>(draw(3, 8))));
    }
    if (q.f32_bias) {  // drawn last: the other tensors' values are those of the same case with an s32 bias
        for (std::int64_t o = 0; o < d.bias_elements(); ++o) {
            const double scale = double(q.src_scale) * data.weights_scales[data.weights_scales.size() == 1 ? 0 : o];
            const double eighths = double(draw(-8, 8)) / 8.0;
            data.f32_bias.push_back(static_cast<float>(scale * data.bias[o] + double(q.dst_scale_of(o)) * eighths));
        }
    }
    return data;
}

ChildOutcome execute_quantized(const Backend& backend, ConvExecution& e, const CheckSettings& s,
                               const CaseMemory& needs, bool one_shot_path) {
    if (backend.offline)  // export's or judge's stand-in (offline.hpp; it carries no post-ops)
        return backend.offline->quantized(e.desc, *e.src, *e.weights, e.bias, *e.dst);
    // with a plan, the one-shot conv_execute writes a dst of its own, filled like dst (operation_calls.hpp)
    GuardedBuffer one_shot;
    if (one_shot_path && backend.plugin->has_conv_plan() && e.dst->bytes() > 0) {
        one_shot = GuardedBuffer(e.dst->bytes());
        std::memcpy(one_shot.data(), e.dst->data(), e.dst->bytes());
        e.one_shot_dst = &one_shot;
    }
    static_cast<ExecutionLimits&>(e) = execution_limits(s, needs.total() + static_cast<std::int64_t>(one_shot.bytes()));
    const ChildOutcome o = execute_conv(*backend.plugin, backend.options, e);
    e.one_shot_dst = nullptr;
    if (s.log) s.log->record(e.src, e.weights, e.bias, *e.dst, o.kind == ChildOutcome::Kind::ok, backend.options.num_threads);
    return o;
}

ChildOutcome run_quantized(const Backend& backend, const QuantizedDescriptor& q, const QuantizedData& data,
                           std::int64_t fill, const CheckSettings& s, const CaseMemory& needs, QuantizedOutputs& out,
                           int warmups, int repeats) {
    const ConvDescriptor& d = q.conv;
    GuardedBuffer src = tensor_buffer(d, TensorRole::src, q.src, data.src);
    GuardedBuffer weights = tensor_buffer(d, TensorRole::weights, q.weights, data.weights);
    GuardedBuffer bias;
    if (d.has_bias) {
        bias = GuardedBuffer(static_cast<std::size_t>(d.out_channels) * 4);  // s32 or f32
        if (q.f32_bias) std::memcpy(bias.data(), data.f32_bias.data(), bias.bytes());
        else std::memcpy(bias.data(), data.bias.data(), bias.bytes());
    }
    GuardedBuffer dst(static_cast<std::size_t>(d.dst_elements()) * bytes_of(q.dst));
    for (std::int64_t i = 0; i < d.dst_elements(); ++i) store(dst.data(), q.dst, i, fill);

    // the descriptor with its quantization extension (ABI 1.5): lives through the call
    const std::unique_ptr<AbiQuantized> abi = to_abi(q, data.weights_scales, data.src_zero_points, data.dst_zero_points, data.weights_zero_points);
    ConvExecution e;
    e.desc = abi->desc;
    e.src = &src, e.weights = &weights, e.bias = d.has_bias ? &bias : nullptr, e.dst = &dst;
    e.warmups = warmups;
    e.repeats = repeats;
    const ChildOutcome o = execute_quantized(backend, e, s, needs, repeats == 1);
    if (o.kind != ChildOutcome::Kind::ok) return o;
    out.got.assign(static_cast<std::size_t>(d.dst_elements()), 0);
    out.unwritten = 0;
    for_each_element(d, TensorRole::dst, [&](std::int64_t flat, std::int64_t offset) {
        out.got[flat] = load(dst.data(), q.dst, offset);
        if (out.got[flat] == fill) ++out.unwritten;
    });
    return o;
}

}  // namespace convcheck::runner::detail
