// The polyphase form of backward data (backward_phases.hpp).
#include "backward_phases.hpp"

#include <numeric>

#include "conversions.hpp"

namespace convcheck::optimized::detail {
namespace {

// 128-bit intermediates: a pad and a dilation may each be near 2^62
__extension__ typedef __int128 i128;

// The effective stride and dilation of an axis (a stride between one output, a dilation between one tap, is unused).
i64 effective_stride(const ConvDescriptor& d, int a) { return d.output_size(a) > 1 ? d.strides[a] : 1; }
i64 effective_dilation(const ConvDescriptor& d, int a) { return d.kernel_size[a] > 1 ? d.dilations[a] : 1; }

// The least k >= 0 with k*D = want (mod S), or -1 when there is none (gcd(S, D) does not divide want). Solved,
// not searched: S and D may be near 2^62, so a search up to S / gcd(S, D) could run for hours (the ABI fuzzer
// found one: a query that never returned). With g = gcd(S, D), k = (want/g) * (D/g)^-1 (mod S/g).
i64 first_solution(i64 D, i64 want, i64 S) {
    const i64 g = std::gcd(S, D);
    if (want % g != 0) return -1;
    const i64 T = S / g;
    // (D/g)^-1 mod T by the extended Euclidean algorithm (T = 1: every k works, the least is 0)
    i128 old_r = (D / g) % T, r = T, old_s = 1, s = 0;
    while (r != 0) {
        const i128 q = old_r / r;
        const i128 next_r = old_r - q * r, next_s = old_s - q * s;
        old_r = r, r = next_r, old_s = s, s = next_s;
    }
    const i128 inverse = ((old_s % T) + T) % T;
    return static_cast<i64>((static_cast<i128>(want / g) % T) * inverse % T);
}

i64 residues(const ConvDescriptor& d, int a) {
    const i64 s = effective_stride(d, a);
    return s < d.input_size[a] ? s : d.input_size[a];
}

AxisPhase axis_phase(const ConvDescriptor& d, int a, i64 r) {
    const i64 S = effective_stride(d, a), D = effective_dilation(d, a), K = d.kernel_size[a], P = d.pads_begin[a];
    const i64 out = d.output_size(a);
    AxisPhase p;
    p.residue = r;
    p.step = S;
    p.outputs = (d.input_size[a] - r + S - 1) / S;
    const i64 g = std::gcd(S, D);
    p.tap_step = S / g;
    p.dilation = D / g;
    // k*D = r + P (mod S): the first such k, if any, is below T = S / gcd(S, D)
    const i64 want = static_cast<i64>(((static_cast<i128>(r) + P) % S + S) % S);
    p.taps = 0;
    const i64 k = first_solution(D, want, S);
    if (k < 0 || k >= K) return p;
    p.first_tap = k;
    p.taps = (K - 1 - k) / p.tap_step + 1;
    // c = (r + P - k_first*D) / S, exact
    const i128 c = (static_cast<i128>(r) + P - static_cast<i128>(p.first_tap) * D) / S;
    const i128 span = static_cast<i128>(p.taps - 1) * p.dilation;
    p.pad_begin = static_cast<i64>(span - c);
    p.pad_end = static_cast<i64>(static_cast<i128>(p.outputs) - out - (span - c) + span);
    return p;
}

}  // namespace

std::int64_t backward_data_phase_count(const ConvDescriptor& d) {
    i64 count = 1;
    for (int a = 0; a < d.rank; ++a)
        if (__builtin_mul_overflow(count, residues(d, a), &count) || count > (i64{1} << 62)) return -1;
    return count;
}

std::vector<Phase> backward_data_phases(const ConvDescriptor& d) {
    std::vector<Phase> phases(1);
    for (int a = 0; a < d.rank; ++a) {
        std::vector<Phase> next;
        for (const Phase& base : phases)
            for (i64 r = 0; r < residues(d, a); ++r) {
                Phase p = base;
                p.axis[a] = axis_phase(d, a, r);
                p.has_taps = p.has_taps && p.axis[a].taps > 0;
                next.push_back(p);
            }
        phases = std::move(next);
    }
    for (Phase& p : phases) {
        if (!p.has_taps) continue;
        ConvDescriptor f = d;
        f.pass = Pass::forward;
        f.has_bias = false;
        f.in_channels = d.out_channels;
        f.out_channels = d.in_channels;
        f.filter_format = FilterFormat::oix;
        f.src_strides.clear(), f.weights_strides.clear(), f.dst_strides.clear();
        for (int a = 0; a < d.rank; ++a) {
            const AxisPhase& x = p.axis[a];
            f.input_size[a] = d.output_size(a);
            f.kernel_size[a] = x.taps;
            f.strides[a] = 1;
            f.dilations[a] = x.dilation;
            f.pads_begin[a] = x.pad_begin;
            f.pads_end[a] = x.pad_end;
        }
        p.forward = f;
    }
    return phases;
}

std::vector<unsigned char> phase_weights(const ConvDescriptor& d, const Phase& p, const std::vector<float>& canonical) {
    const ConvDescriptor& f = p.forward;
    const i64 G = d.groups, ICg = d.in_channels_per_group(), OCg = d.out_channels_per_group();
    i64 taps = 1, phase_taps = 1;
    for (int a = 0; a < d.rank; ++a) taps *= d.kernel_size[a], phase_taps *= f.kernel_size[a];
    std::vector<unsigned char> out(static_cast<std::size_t>(f.weights_elements() * size_of(d.dtype)));
    for (i64 t = 0; t < phase_taps; ++t) {
        // the phase tap's coordinates (outermost first), flipped, to the original tap's flat index
        i64 rest = t, k = 0, scale = 1;
        for (int a = d.rank - 1; a >= 0; --a) {
            const AxisPhase& x = p.axis[a];
            const i64 ta = rest % x.taps;
            rest /= x.taps;
            k += (x.first_tap + (x.taps - 1 - ta) * x.tap_step) * scale;
            scale *= d.kernel_size[a];
        }
        for (i64 grp = 0; grp < G; ++grp)
            for (i64 ic = 0; ic < ICg; ++ic)
                for (i64 oc = 0; oc < OCg; ++oc)
                    store_rounded(out.data(), d.dtype, ((grp * ICg + ic) * OCg + oc) * phase_taps + t,
                                  canonical[((grp * OCg + oc) * ICg + ic) * taps + k]);
    }
    return out;
}

}  // namespace convcheck::optimized::detail
