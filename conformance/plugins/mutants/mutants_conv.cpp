// The mutants plugin's discrete convolution. One rank-generic loop nest (spatial axes lifted to
// three); each mutant is one marked deviation from the summation formula
//   dst(n, g*OCg+oc, o) = bias + sum_{ic,k} src(n, g*ICg+ic, o*s - pb + k*d) * wei(g*OCg+oc, ic, k)
// accumulated in float, in tap order, and rounded once to the output type. A float case's scales (ABI 1.7,
// docs/scales.md) multiply the sum by src_scale * weights_scale(oc) before the bias, and the dst scale divides
// after the post-ops, in double.
#include <algorithm>
#include <array>
#include <barrier>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "convcheck/core/dtype.hpp"
#include "convcheck/plugin_scales.hpp"
#include "mutants_problem.hpp"

namespace convcheck::mutants {

namespace {

// The block size of a tail_dropped_* mutant (0 for any other).
long long tail_block(M m) {
    switch (m) {
        case M::tail_dropped_8: return 8;
        case M::tail_dropped_16: return 16;
        case M::tail_dropped_32: return 32;
        case M::tail_dropped_64: return 64;
        case M::tail_dropped_128: return 128;
        case M::tail_dropped_256: return 256;
        default: return 0;
    }
}

// The sum of one output over the taps [tap_begin, tap_end) of its ICg * k_spatial taps, in the order
// and precision of the mutant (a float value, or a double one for honest_f64_accumulation).
double partial_sum(const Problem& p, const convcheck_conv_args& a, long long n, long long oc, const Dims& o,
                   long long tap_begin, long long tap_end) {
    const bool half = p.m == M::half_accumulation && p.dt != DataType::f32 && p.dt != DataType::f64;
    // double: honest_f64_accumulation, and every f64 case (read and summed in double) but f64_computed_in_f32's
    const bool wide = p.m == M::honest_f64_accumulation || (p.dt == DataType::f64 && p.m != M::f64_computed_in_f32);
    const long long g = oc / p.OCg, block = tail_block(p.m);
    const long long kept_channels = block && p.ICg > block && p.ICg % block ? p.ICg / block * block : p.ICg;
    float sum = 0.0f, block_sum = 0.0f;
    double sum64 = 0.0;
    if (tap_begin >= tap_end) return 0.0;
    // tap = ic * k_spatial + kx, kx at kernel position kk: stepped from the first tap taken, in the mutant's order
    const bool reverse = p.m == M::honest_reverse_order;
    const long long first = reverse ? tap_end - 1 : tap_begin;
    long long next_ic = 0, next_kx = 0;
    if (first > 0) next_ic = first / p.k_spatial, next_kx = first % p.k_spatial;
    Position next_kk(p.k, next_kx);
    for (long long i = tap_begin; i < tap_end; ++i) {
        const long long ic = next_ic, kx = next_kx;
        const Dims kk = next_kk.at;
        if (reverse) {
            next_kk.previous();
            if (--next_kx < 0) next_kx = p.k_spatial - 1, --next_ic;
        } else {
            next_kk.next();
            if (++next_kx == p.k_spatial) next_kx = 0, ++next_ic;
        }
        if (ic >= kept_channels) continue;
        Dims x{};
        bool outside = false;
        for (int ax = 0; ax < 3; ++ax) {
            x[ax] = o[ax] * p.s[ax] - p.pb[ax] + kk[ax] * p.dil[ax];
            if (x[ax] < 0 || x[ax] >= p.in[ax]) {
                if (p.m == M::border_tap) x[ax] = std::clamp(x[ax], 0LL, p.in[ax] - 1);
                else outside = true;
            }
        }
        if (!outside) {
            long long channel = g * p.ICg + ic;
            if (p.m == M::groups_mixed) channel = ic;
            if (p.m == M::depthwise_multiplier_index && p.ICg == 1 && p.OCg > 1) channel = oc % p.C;
            const long long xs = (x[0] * p.in[1] + x[1]) * p.in[2] + x[2];
            long long wk = kx;
            if (p.m == M::kernel_flipped) wk = p.k_spatial - 1 - kx;
            if (p.m == M::kernel_axes_transposed && p.d.rank == 2) wk = (kx % p.k[2]) * p.k[1] + kx / p.k[2];
            const float xv = p.load(a.src, p.src_dt, p.src_index(n, channel, xs));
            const float wv = p.load(a.weights, p.weights_dt, p.weights_index(oc, ic, wk));
            if (p.m == M::zero_weight_skipped && wv == 0.0f) continue;  // a sparse kernel: NaN * 0 lost
            if (wide && p.dt == DataType::f64)  // f64 values as they are (xv, wv: rounded to float)
                sum64 += load_as_double(a.src, p.src_dt, p.src_index(n, channel, xs)) *
                         load_as_double(a.weights, p.weights_dt, p.weights_index(oc, ic, wk));
            else if (p.m == M::honest_fma) sum = std::fma(xv, wv, sum);
            else if (wide) sum64 += double(xv) * double(wv);
            else if (p.m == M::honest_blocked_sums) block_sum += xv * wv;
            else sum += xv * wv;
            if (p.m == M::window_overread && xs + 1 < p.in_spatial)
                sum += p.load(a.src, p.src_dt, p.src_index(n, channel, xs + 1)) * 0.0f;
            if (half) sum = static_cast<float>(round_to(p.dt, sum));
        }
        if (p.m == M::honest_blocked_sums && (i - tap_begin) % 16 == 15) sum += block_sum, block_sum = 0.0f;
    }
    if (p.m == M::honest_blocked_sums) sum += block_sum;
    return wide ? sum64 : double(sum);
}

// v rounded into the output type the way the mutant does it (exactly representable, or +-inf).
double to_output(const Problem& p, double v) {
    const Format f = format_of(p.dt);
    const bool half = p.dt != DataType::f32;
    double r = round_to(p.dt, v);
    if ((p.m == M::ties_away && half) || (p.m == M::f16_truncation && p.dt == DataType::f16)) {
        if (std::isfinite(v) && v != 0.0) {
            const int e = std::max(std::ilogb(v), std::ilogb(f.min_normal));
            const double ulp = std::ldexp(1.0, e - f.p + 1), q = v / ulp;
            r = (p.m == M::ties_away ? std::round(q) : std::trunc(q)) * ulp;  // std::round: half away from 0
            if (std::fabs(r) > f.max_finite) r = std::copysign(INFINITY, v);
        }
    }
    if (p.m == M::bf16_truncation && p.dt == DataType::bf16 && std::isfinite(v)) {
        std::uint32_t bits;
        const float value = static_cast<float>(v);
        std::memcpy(&bits, &value, 4);
        bits &= 0xFFFF0000u;
        float truncated;
        std::memcpy(&truncated, &bits, 4);
        r = truncated;
    }
    const bool saturate = (p.m == M::f16_saturation && p.dt == DataType::f16) ||
                          (p.m == M::bf16_saturation && p.dt == DataType::bf16);
    if (saturate && std::isinf(r)) r = std::copysign(f.max_finite, r);  // a clamp to the finite range
    if (p.m == M::overflow_before_rounding && half && std::fabs(v) > f.max_finite) r = std::copysign(INFINITY, v);
    // fp8: the saturating conversion where the declared one is non-saturating; e4m3 rounded with e5m2's precision
    if (p.m == M::fp8_saturation && is_fp8(p.dt) && !std::isnan(v) && !std::isfinite(r))
        r = std::copysign(f.max_finite, v);
    if (p.m == M::e4m3_rounded_as_e5m2 && p.dt == DataType::f8_e4m3) r = round_to(DataType::f8_e5m2, v);
    if (p.m == M::ftz && r != 0.0 && std::fabs(r) < f.min_normal) r = std::copysign(0.0, r);
    if (p.m == M::nan_clamped) r = std::fmin(std::fmax(r, -INFINITY), INFINITY);  // fmax drops a NaN
    return r;
}

}  // namespace

long long dst_span(const convcheck_conv_desc& desc) {
    const Problem p(desc, M::none);
    // every stride is positive, so the last output lies furthest in
    return p.N * p.O * p.out_spatial == 0 ? 0 : p.dst_index(p.N - 1, p.O - 1, p.out_spatial - 1) + 1;
}

void compute_conv(const convcheck_conv_desc& desc, const convcheck_conv_args& a, Mutant mutant, int threads,
                  const convcheck_post_ops* ops, const convcheck_scales* scales) {
    const Problem p(desc, mutant);
    PostOpChain chain;  // a float case's post-ops (mutants_post_ops.cpp), after the bias, before the rounding
    if (ops != nullptr)  // the plan checked that each binary op has its operand (mutants_plugin.cpp)
        chain = {ops, a.post_op_operands, p.O, p.OCg, p.out_spatial, desc.data_format == CONVCHECK_NXC, mutant};
    const bool sum = chain.has_sum();
    const long long taps = p.ICg * p.k_spatial;
    const long long outputs = p.N * p.O * p.out_spatial;
    // body(f, n, oc, x, o) for the outputs f in [begin, end) in turn: output f's (n, oc), its flat spatial index x
    // and its position o (stepped from output begin's)
    auto for_outputs = [&](long long begin, long long end, auto body) {
        if (begin >= end) return;
        long long x = begin % p.out_spatial, oc = (begin / p.out_spatial) % p.O, n = begin / (p.out_spatial * p.O);
        Position o(p.out, x);
        for (long long f = begin; f < end; ++f) {
            body(f, n, oc, x, o.at);
            o.next();
            if (++x == p.out_spatial) {
                x = 0;
                if (++oc == p.O) oc = 0, ++n;
            }
        }
    };
    const long long written_channels = p.m == M::out_tail_unwritten_16 && p.O > 16 && p.O % 16 ? p.O / 16 * 16 : p.O;
    // dst_unwritten_past_2gib: a loop over dst bytes whose bound is held in a 32-bit signed integer stops at 2^31
    // (an element offset: a strided dst's offsets run past its element count)
    const long long written_elements =
        p.m == M::dst_unwritten_past_2gib ? (1LL << 31) / size_of(p.dt) : std::numeric_limits<long long>::max();
    if (p.m == M::dst_gaps_written && p.strided_dst) {
        // the whole span of dst zeroed first, as a memset of "the output" does: its gaps too
        std::memset(a.dst, 0, static_cast<std::size_t>(dst_span(desc)) * static_cast<std::size_t>(size_of(p.dt)));
    }
    // Output f's sum (before the bias) into dst, the bias added, the post-ops applied and rounded the mutant's way.
    // (n, oc, x): output f's coordinates (for_outputs)
    auto store = [&](long long f, long long n, long long oc, long long x, double v) {
        if (oc >= written_channels) return;
        const long long index = p.dst_index(n, oc, x);
        // a sum's dst_prev: dst's value before this output is written (each output is written once)
        double prior = sum ? load_as_double(a.dst, p.dt, index) : 0.0;
        if (scales != nullptr) {  // src_scale * weights_scale(oc) * sum, before the bias
            const long long channel = p.m == M::sc_weights_scale_of_channel_0 ? 0 : oc;
            v *= double(scales->src_scale) * double(convcheck_plugin_support::weights_scale(*scales, channel));
        }
        if (p.m == M::po_before_bias) v = chain.apply(v, prior, n, oc, x);  // post_ops(sum) + bias
        if (p.d.has_bias && p.m != M::bias_dropped) {
            const long long bias_index = p.m == M::bias_per_group ? oc / p.OCg : oc;
            const DataType bias_dt = p.m == M::bias_read_as_src_type ? p.src_dt : p.bias_dt;
            const double b = load_as_double(a.bias, bias_dt, bias_index);
            const bool wide = p.m == M::honest_f64_accumulation || (p.dt == DataType::f64 && p.m != M::f64_computed_in_f32);
            v = wide ? v + b : double(static_cast<float>(v) + static_cast<float>(b));
        }
        // po_sum_reads_written_dst: the convolution's result stored first, then the sum reads it back as dst_prev
        if (p.m == M::po_sum_reads_written_dst) prior = to_output(p, v);
        if (p.m != M::po_before_bias) v = chain.apply(v, prior, n, oc, x);
        if (scales != nullptr && scales->dst_scale != 1.0f)  // the dst scale after the post-ops
            v = p.m == M::sc_dst_scale_multiplied ? v * double(scales->dst_scale) : v / double(scales->dst_scale);
        if (p.m == M::dst_rounded_to_src_type) v = round_to(p.src_dt, v);  // then stored in dst's own type
        if (index >= written_elements) return;
        store_from_double(a.dst, p.dt, index, to_output(p, v));
        if (p.m == M::last_ulp && f == outputs - 1) {
            const double stored = load_as_double(a.dst, p.dt, index);
            const double ulp = std::ldexp(1.0, std::ilogb(stored == 0.0 ? 1.0 : stored) - (format_of(p.dt).p - 1));
            store_from_double(a.dst, p.dt, index, stored + ulp);
        }
    };
    if (p.m == M::racy_split) {
        // Two threads each take half of the taps and do acc += partial without synchronisation. The
        // barrier between their reads and their writes forces the losing interleaving every time.
        std::vector<double> acc(outputs, 0.0);
        std::barrier sync(2);
        auto worker = [&](long long begin, long long end) {
            std::vector<double> read(outputs), part(outputs);
            for_outputs(0, outputs, [&](long long f, long long n, long long oc, long long, const Dims& o) {
                part[f] = partial_sum(p, a, n, oc, o, begin, end);
                read[f] = acc[f];
            });
            sync.arrive_and_wait();
            for (long long f = 0; f < outputs; ++f)
                if (part[f] != 0.0) acc[f] = static_cast<float>(read[f] + part[f]);
        };
        std::thread t1(worker, 0, taps / 2), t2(worker, taps / 2, taps);
        t1.join();
        t2.join();
        for_outputs(0, outputs,
                    [&](long long f, long long n, long long oc, long long x, const Dims&) { store(f, n, oc, x, acc[f]); });
    } else if (p.m == M::thread_split_order || p.m == M::run_to_run_order) {
        // Both sum every tap once, so each result is within the bound and exact data stays exact; only the
        // order of the float additions moves. thread_split_order: one chunk of taps per thread (0 threads
        // read as 1), the chunk sums added in order. run_to_run_order: the taps from a start drawn per
        // process to the end, then from 0 to the start. Once per process, not per call: the runner runs
        // every case in a fresh child and compares the plan's and the one-shot call's outputs bitwise
        // there (paths_differ), so a draw per call would be caught outside determinism mode too.
        const long long chunks = std::clamp<long long>(threads, 1, std::max(taps, 1LL));
        static const unsigned process_draw = std::random_device{}();
        const long long start = taps > 0 ? static_cast<long long>(process_draw % taps) : 0;
        for_outputs(0, outputs, [&](long long f, long long n, long long oc, long long x, const Dims& o) {
            // each addition in the accumulation type: float, double for an f64 case
            const auto acc = [&](double v) { return p.dt == DataType::f64 ? v : double(static_cast<float>(v)); };
            double sum = 0.0;
            if (p.m == M::thread_split_order)
                for (long long c = 0; c < chunks; ++c)
                    sum = acc(sum + acc(partial_sum(p, a, n, oc, o, taps * c / chunks, taps * (c + 1) / chunks)));
            else
                sum = acc(acc(partial_sum(p, a, n, oc, o, start, taps)) + acc(partial_sum(p, a, n, oc, o, 0, start)));
            store(f, n, oc, x, sum);
        });
    } else {
        // one output at a time, straight into dst: no copy of any tensor (the large suite's dst passes 2^31 elements).
        // The outputs are independent: a case of a million or more (the large suite's, up to 2^29) is cut into one
        // contiguous range per requested thread, each output still summed alone, so the values do not depend on it.
        auto outputs_in = [&](long long begin, long long end) {
            for_outputs(begin, end, [&](long long f, long long n, long long oc, long long x, const Dims& o) {
                store(f, n, oc, x, partial_sum(p, a, n, oc, o, 0, taps));
            });
        };
        const long long parts = outputs >= (1LL << 20) ? std::max(threads, 1) : 1;
        std::vector<std::thread> others;
        for (long long t = 1; t < parts; ++t) others.emplace_back(outputs_in, outputs * t / parts, outputs * (t + 1) / parts);
        outputs_in(0, outputs / parts);
        for (std::thread& t : others) t.join();
    }
    // out_tail_spill_16: each pixel's last partial block of 16 output channels stored as a whole vector once every
    // output is written (a tile loop with the output-channel blocks outermost stores it after the next pixel's first
    // block). Its lanes past O hold zeros (the packed weights' and bias' padded lanes); on a dense NXC dst they land
    // on the next pixel's first channels. The last pixel's would fall past dst: they are not written.
    if (p.m == M::out_tail_spill_16 && p.O % 16 != 0 && desc.data_format == CONVCHECK_NXC && !p.strided_dst) {
        const long long spill = 16 - p.O % 16, elements = p.N * p.out_spatial * p.O;
        for (long long pixel = 0; pixel < p.N * p.out_spatial; ++pixel)
            for (long long j = 0; j < spill && (pixel + 1) * p.O + j < elements; ++j)
                store_from_double(a.dst, p.dt, (pixel + 1) * p.O + j, 0.0);
    }
}

}  // namespace convcheck::mutants
