// Discrete convolution's entry in the case pipeline (operation_traits.cpp): its descriptor's rules
// and claims, where its outputs are, and its check in every mode but invalid (check_invalid.cpp):
// exact and bound here, a stored golden vector, stress, precision and probe beside it.
#include <cmath>

#include "convcheck/runner/abi_claims.hpp"
#include "convcheck/abi/abi_descriptor.hpp"
#include "operation.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/fast_summation.hpp"
#include "convcheck/formats/manifest.hpp"
#include "convcheck/runner/strided_buffers.hpp"

namespace convcheck::runner::detail {

using accuracy::Mode;

void conv_validate(const Case& c) { validate(c.conv); }

DataType conv_output_dtype(const Case& c) { return c.conv.dst_dtype(); }

std::string tensors_unclaimed(const PluginInfo& info, DataType dtype, int rank, DataFormat data, FilterFormat filter) {
    if (!(info.dtypes & CONVCHECK_BIT(static_cast<int>(dtype))))
        return "the plugin does not claim dtype " + std::string(to_string(dtype));
    if (!(info.ranks & CONVCHECK_BIT(rank))) return "the plugin does not claim rank " + std::to_string(rank);
    if (!(info.data_formats & CONVCHECK_BIT(static_cast<int>(data))))
        return "the plugin does not claim data format " + std::string(to_string(data));
    if (!(info.filter_formats & CONVCHECK_BIT(static_cast<int>(filter))))
        return "the plugin does not claim filter format " + std::string(to_string(filter));
    return "";
}

std::string conv_pass_unclaimed(const PluginInfo& info, const Case& c) {
    return unclaimed_pass(info, to_abi(c.conv).prop_kind);
}

std::string conv_unclaimed(const PluginInfo& info, const Case& c) {
    const ConvDescriptor& d = c.conv;
    // the memory layout first: a plugin of ABI 1.0 or 1.1 cannot be told about strides or OXI at all
    if (std::string why = layout_unclaimed(info, d); !why.empty()) return why;
    // ABI 1.7's fp8 types: by the plugin's version first (bits 7 and 8 meant nothing before 1.7)
    if (d.has_fp8() && info.abi_major == 1 && info.abi_minor < 7)
        return "the plugin was built against ABI 1." + std::to_string(info.abi_minor) +
               ", which has no fp8 data types (f8_e4m3, f8_e5m2: ABI 1.7)";
    if (std::string why = tensors_unclaimed(info, d.dtype, d.rank, d.data_format, d.filter_format); !why.empty())
        return why;
    if (std::string why = post_ops_unclaimed(info, d); !why.empty()) return why;  // ABI 1.6
    if (std::string why = scales_unclaimed(info, d); !why.empty()) return why;    // ABI 1.7
    return unclaimed_abi(info, to_abi(d));  // ABI 1.2: per-tensor dtypes, the pass, extensions
}

std::vector<std::int64_t> output_coordinates(const ConvDescriptor& d, std::int64_t flat) {
    std::vector<std::int64_t> dims{d.batch, d.out_channels};
    for (int a = 0; a < d.rank; ++a) dims.push_back(d.output_size(a));
    std::vector<std::int64_t> c(dims.size());
    for (std::size_t i = dims.size(); i-- > 0;) {
        c[i] = flat % dims[i];
        flat /= dims[i];
    }
    return c;
}

bool touches_border(const ConvDescriptor& d, const std::vector<std::int64_t>& coordinates) {
    for (int a = 0; a < d.rank; ++a) {
        const std::int64_t first = coordinates[2 + a] * d.strides[a] - d.pads_begin[a];
        const std::int64_t last = first + (d.kernel_size[a] - 1) * d.dilations[a];
        if (first < 0 || last >= d.input_size[a]) return true;
    }
    return false;
}

OutputLocation conv_location(const ConvDescriptor& d) {
    return {[&d](std::int64_t flat) { return output_coordinates(d, flat); },
            [&d](std::int64_t flat) { return touches_border(d, output_coordinates(d, flat)); }};
}

std::string mismatch_reason(const ConvDescriptor& d, const ErrorReport& e, Mode mode, std::span<const double> got,
                            std::span<const double> want, std::int64_t unwritten) {
    const auto& c = e.comparison;
    const std::int64_t nan = nan_outputs(got, want);
    std::string r = std::to_string(c.mismatches) + " of " + std::to_string(c.elements) + " outputs " +
                    (accuracy::compares_exactly(mode) ? "differ from the exact result" : "exceed the error bound");
    r += " (" + std::to_string(e.border_mismatches) + " at the border, " + std::to_string(e.interior_mismatches) +
         " inside)";
    const auto first = output_coordinates(d, c.first_mismatch);
    r += "; first at " + coordinates_text(first) + ": got " + format_double(got[c.first_mismatch]) + ", want " +
         format_double(want[c.first_mismatch]);
    if (e.bound_growth_needed) {
        std::string bound = c.statistics.judged_by;  // "whole_tensor+statistics": the bound is "whole_tensor"
        if (bound.ends_with("+statistics")) bound.resize(bound.size() - std::string("+statistics").size());
        r += "; worst " + format_double(c.max_bound_fraction) + "x the bound: the " + bound +
             " bound would have to grow " + format_double(*e.bound_growth_needed) + "x to pass";
    }
    if (unwritten > 0) r += "; " + std::to_string(unwritten) + " outputs never written";
    else if (nan > 0) r += "; NaN in " + std::to_string(nan) + " outputs where the reference is finite";
    return r;
}

namespace {

// The backend's result on buffers `b` against `want` (exactly, or under the contract's bound with
// magnitude and terms), judged into r; `prefix` leads a failure's reason. `passing`: bound mode's comparison
// already made an image at a time (compare_an_image_at_a_time), which passed: its verdict, without want.
void judge(const ConvDescriptor& d, const Buffers& b, const ChildOutcome& o, Mode mode, bool exact,
           std::span<const double> want, std::span<const double> magnitude, accuracy::TermCounts terms,
           const accuracy::Contract& contract, const CheckSettings& s, const std::string& prefix, CaseResult& r,
           const std::vector<double>* bounds = nullptr, const accuracy::Comparison* passing = nullptr) {
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;
    // an fp8 dst: the "never written" fill byte 0xFF is a NaN a backend writes itself (e4m3's -NaN for a negative
    // overflow), so unwritten outputs are not told apart there: they fail as values (a NaN where a number belongs)
    const std::int64_t unwritten = is_fp8(d.dst_dtype()) ? 0 : unwritten_elements(d, b.dst.data());
    ErrorReport e;
    const auto count = count_failures(e, conv_location(d));
    // bound mode on a dense NCX f32 dst reads the backend's values where they lie (each widened to double as it is
    // read: the same numbers); every other case, and a failure's message below, takes the dst widened to NCX double
    const bool in_place = !exact && !bounds && reference::dense_canonical_f32(d, TensorRole::dst);
    std::vector<double> got;
    if (!in_place) got = reference::dst_to_ncx(d, b.dst.data());
    // with post-ops, bound mode's per-output bounds come carried through the chain (conv/post_ops.cpp)
    accuracy::Comparison cmp =
        passing    ? *passing
        : exact    ? accuracy::compare_exact(want, got, count)
        : bounds   ? accuracy::compare_bound_given(contract, want, magnitude, terms, got, *bounds, count)
        : in_place ? accuracy::compare_bound(contract, want, magnitude, terms,
                                             std::span<const float>(static_cast<const float*>(b.dst.data()), want.size()),
                                             count)
                   : accuracy::compare_bound(contract, want, magnitude, terms, got, count);
    if (in_place && (!cmp.passed() || !s.profiles.empty())) got = reference::dst_to_ncx(d, b.dst.data());
    // exact mode under a declared saturating fp8 conversion: the one right answer was rounded by it, and says so
    if (exact && accuracy::fp8_saturates(contract)) cmp.statistics.judged_by = "exact+fp8_saturating";
    complete_error_report(conv_location(d), cmp, !exact, e);
    r.error = e;
    r.status = cmp.passed() ? Status::passed : Status::failed;
    if (!cmp.passed()) {
        r.kind = mismatch_kind(unwritten, nan_outputs(got, want));
        r.reason = prefix + mismatch_reason(d, *r.error, exact ? mode : Mode::bound, got, want, unwritten);
    }
    if (!exact) apply_statistics(cmp, r);
    if (!s.profiles.empty() && d.post_ops.empty() && !d.has_fp8() && (mode == Mode::exact || mode == Mode::bound)) {
        std::int64_t products = d.in_channels_per_group();
        for (int a = 0; a < d.rank; ++a) products *= d.kernel_size[a];
        for (const accuracy::Profile p : s.profiles)
            r.profiles.push_back(accuracy::judge_profile(p, d.dst_dtype(), products, want, got));
    }
    leak_status(o, s, r);
}

// A stored golden vector: its own data in, its stored result as the truth (bitwise in exact mode,
// else under the contract's bound with the stored magnitude and term counts).
void check_conv_stored(const Backend& backend, const Case& c, const CheckSettings& s,
                       const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    const StoredConvData data = stored_conv_data(c);
    const ChildOutcome o = run_backend(backend, d, data.buffers, s, needs);
    if (outcome_status(o, r)) return;
    // a declared whole-tensor bound (a transform-domain algorithm) judges exact mode by that bound: no result of such
    // an algorithm is exact (docs/accuracy.md, "Declared algorithms and input precision")
    const bool exact = c.mode == Mode::exact && accuracy::holds_to_exact_results(contract);
    judge(d, data.buffers, o, c.mode, exact, exact ? data.want_rounded : data.want, data.magnitude, data.terms,
          contract, s, "stored vector " + data.name + ": ", r);
}

// Bound mode on the GEMM evaluator with a dense f32 src and dst (judged_an_image_at_a_time): the fill goes straight
// into src's buffer, the backend runs, then the reference comes an image at a time and is judged as it comes, so
// neither src nor the whole tensor's exact values are held in double (conv1 of ResNet-50 at batch 50: 321 MB each
// for the sums and the magnitudes). A failure is judged again on the whole tensor's sums, the same bits, for its
// message and its outputs' coordinates.
void check_conv_an_image_at_a_time(const Backend& backend, const ConvDescriptor& d, std::uint64_t seed,
                                   const CheckSettings& s, const accuracy::Contract& contract, const CaseMemory& needs,
                                   CaseResult& r) {
    std::vector<double> weights, bias;
    const Buffers b = make_random_buffers(d, seed, weights, bias);
    const ChildOutcome o = run_backend(backend, d, b, s, needs);
    if (outcome_status(o, r)) return;
    // src as the backend read it: its buffer is read-only in the plugin's child
    const std::span<const float> src(static_cast<const float*>(b.src.data()), static_cast<std::size_t>(d.src_elements()));
    const std::span<const float> got(static_cast<const float*>(b.dst.data()), static_cast<std::size_t>(d.dst_elements()));
    const accuracy::Comparison cmp = compare_an_image_at_a_time(d, contract, src, weights, bias, got);
    if (cmp.passed()) return judge(d, b, o, Mode::bound, false, {}, {}, std::span<const std::int64_t>(), contract, s,
                                   "", r, nullptr, &cmp);
    std::vector<std::int64_t> plane_terms;
    const auto want = reference_sums(d, Mode::bound, reference::src_to_ncx(d, b.src.data()), weights, bias, &plane_terms);
    judge(d, b, o, Mode::bound, false, want.dst, want.magnitude, plane_terms, contract, s, "", r);
}

}  // namespace

void check_conv(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
                const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor d = with_drawn_scales(c.conv, c.seed);  // wsc=oc: the seed's per-channel scales
    if (d.mixed() && (!c.vector_dir.empty() || (c.mode != Mode::exact && c.mode != Mode::bound)))
        if (declined("mixed per-tensor dtypes (" + dtypes_text(d) + ") are checked in exact and bound mode on generated data only (" +
                         (c.vector_dir.empty() ? std::string("mode ") + accuracy::to_string(c.mode) : "a stored vector") +
                         ": its data and judgement assume one dtype)",
                     r))
            return;
    if (d.has_fp8() && (!c.vector_dir.empty() || (c.mode != Mode::exact && c.mode != Mode::bound)))
        if (declined("fp8 (" + dtypes_text(d) + ") is checked in exact and bound mode on generated data only (" +
                         (c.vector_dir.empty() ? std::string("mode ") + accuracy::to_string(c.mode) : "a stored vector") +
                         ": its data and judgement are designed for f32, f16 and bf16)",
                     r))
            return;
    if (!d.post_ops.empty() &&
        (!c.vector_dir.empty() || (c.mode != Mode::exact && c.mode != Mode::bound && c.mode != Mode::probe)) &&
        declined("post-ops are judged in exact, bound and probe modes only, not in " +
                     std::string(c.vector_dir.empty() ? accuracy::to_string(c.mode) : "a stored vector"),
                 r))
        return;
    if (d.scales.present() && (!c.vector_dir.empty() || (c.mode != Mode::exact && c.mode != Mode::bound)) &&
        declined("scales (" + scales_text(d.scales).substr(1) + ") are judged in exact and bound modes on generated data "
                     "only, not in " + std::string(c.vector_dir.empty() ? accuracy::to_string(c.mode) : "a stored vector"),
                 r))
        return;
    if (!c.vector_dir.empty()) return check_conv_stored(backend, c, s, contract, needs, r);
    if (c.mode == Mode::stress) return check_conv_stress(backend, c, s, contract, needs, r);
    if (c.mode == Mode::precision) return check_conv_precision(backend, c, s, contract, needs, r);
    if (c.mode == Mode::probe) return check_conv_probe(backend, c, s, contract, needs, r);
    if (c.mode == Mode::sampled) return check_conv_sampled(backend, c, s, contract, needs, r);

    if (judged_an_image_at_a_time(d, c.mode, contract, !s.profiles.empty()))
        return check_conv_an_image_at_a_time(backend, d, c.seed, s, contract, needs, r);
    std::vector<double> src, weights, bias;
    if (c.mode == Mode::exact) {
        // special fills (accuracy/include/convcheck/accuracy/special_fill.hpp): data designed for one rounding question each
        if (declined(accuracy::fill_not_applicable(c.fill, d, contract), r)) return;
        auto f = accuracy::make_fill(d, contract, c.fill, c.seed);
        if (declined(inputs_beyond_declared_precision(contract, f.src, f.weights), r)) return;
        src = std::move(f.src), weights = std::move(f.weights), bias = std::move(f.bias);
    } else {
        auto f = accuracy::make_random_fill(d, c.seed);
        src = std::move(f.src), weights = std::move(f.weights), bias = std::move(f.bias);
    }
    // scales (docs/scales.md): the sum times src_scale * weights_scale(oc), then the bias; the dst scale after the
    // chain. Without scales, bound mode takes the GEMM evaluator's sums (conv/reference_sums.cpp)
    // without scales and post-ops, which take every output's own count, the GEMM evaluator's term counts stay one
    // plane's (the same for every (n, oc)): no int64 per output (bench/results/reference-gemm.md)
    std::vector<std::int64_t> plane_terms;
    const bool compact_terms = plane_term_counts_only(d, c.mode);
    auto want = d.scales.present() ? reference::scaled_summation(d, src, weights, bias)
                                   : reference_sums(d, c.mode, src, weights, bias, compact_terms ? &plane_terms : nullptr);
    const accuracy::TermCounts terms = plane_terms.empty() ? accuracy::TermCounts(want.terms) : accuracy::TermCounts(plane_terms);
    if (d.scales.present()) {
        if (c.mode == Mode::exact && declined(scales_not_exact(d, want), r)) return;
        count_scale_roundings(d, want.terms);
    }
    // post-ops (ABI 1.6): the chain on the exact sum with its bias, before the rounding (reference/post_ops.hpp)
    const reference::PostOpData post = make_post_op_data(d, c.mode, c.seed);
    // exact mode: the one right answer is the exact sum rounded once to the output type (the same
    // value for the standard fill, whose sums are representable; special fills round on purpose); under a declared
    // whole-tensor bound (a transform-domain algorithm: no result of one is exact) the exact data is judged by that
    // bound, and the record's judged_by says so
    const bool exact = c.mode == Mode::exact && accuracy::holds_to_exact_results(contract);
    std::vector<double> bounds;
    if (!d.post_ops.empty()) {
        if (c.mode == Mode::exact && declined(post_ops_not_exact(d, contract, post, want.dst), r)) return;
        std::string undetermined;
        if (!exact)
            bounds = post_op_bounds(d, contract, post, want.dst, want.magnitude, want.terms, &undetermined, d.scales.dst);
        if (declined(undetermined, r)) return;
        reference::apply_post_ops(d, post, want.dst, contract.post_op_nan);
    }
    if (d.scales.dst != 1.0f) {  // v / dst_scale: the value and its magnitude (the bound's M) alike
        reference::apply_dst_scale(d, want.dst);
        reference::apply_dst_scale(d, want.magnitude);
    }
    if (exact)  // an fp8 dst past its range: the declared overflow rule (docs/fp8.md)
        for (double& v : want.dst) v = accuracy::round_to_output(contract, v);
    Buffers b = make_buffers(d, src, weights, bias);
    if (!d.post_ops.empty()) add_post_op_buffers(d, post.operands, post.prior_dst, b);
    const ChildOutcome o = run_backend(backend, d, b, s, needs);
    if (outcome_status(o, r)) return;
    judge(d, b, o, c.mode, exact, want.dst, want.magnitude, terms, contract, s, "", r,
          bounds.empty() ? nullptr : &bounds);
}

}  // namespace convcheck::runner::detail

namespace convcheck::runner {

std::string unclaimed(const PluginInfo& info, const ConvDescriptor& d) {
    if (std::string why = unclaimed_operation(info, Op::conv); !why.empty()) return why;
    Case c;
    c.conv = d;
    return detail::conv_unclaimed(info, c);
}

}  // namespace convcheck::runner
