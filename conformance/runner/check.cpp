#include "check.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "abi_descriptor.hpp"
#include "convcheck/reference/convolution.hpp"
#include "case_data.hpp"
#include "case_memory.hpp"
#include "check_detail.hpp"
#include "manifest.hpp"
#include "strided_buffers.hpp"

namespace convcheck::runner {

namespace detail {

using accuracy::Mode;

std::string format_double(double v) {
    std::ostringstream s;
    s.precision(9);
    s << v;
    return s.str();
}

// What the plugin's describe claims against what the case needs; empty when claimed.
std::string unclaimed(const PluginInfo& info, const ConvDescriptor& d) {
    if (!(info.operations & CONVCHECK_OP_CONV)) return "the plugin does not claim discrete convolution";
    // the memory layout first: a plugin of ABI 1.0 or 1.1 cannot be told about strides or OXI at all
    if (std::string why = layout_unclaimed(info, d); !why.empty()) return why;
    if (!(info.dtypes & CONVCHECK_BIT(static_cast<int>(d.dtype))))
        return "the plugin does not claim dtype " + std::string(to_string(d.dtype));
    if (!(info.ranks & CONVCHECK_BIT(d.rank))) return "the plugin does not claim rank " + std::to_string(d.rank);
    if (!(info.data_formats & CONVCHECK_BIT(static_cast<int>(d.data_format))))
        return "the plugin does not claim data format " + std::string(to_string(d.data_format));
    if (!(info.filter_formats & CONVCHECK_BIT(static_cast<int>(d.filter_format))))
        return "the plugin does not claim filter format " + std::string(to_string(d.filter_format));
    return "";
}

std::int64_t unwritten_elements(const void* dst, std::int64_t elements, int element_bytes) {
    const auto* p = static_cast<const unsigned char*>(dst);
    std::int64_t count = 0;
    for (std::int64_t i = 0; i < elements; ++i)
        count += std::all_of(p + i * element_bytes, p + (i + 1) * element_bytes, [](unsigned char b) { return b == 0xFF; });
    return count;
}

std::int64_t unwritten_elements(const ConvDescriptor& d, const void* dst) { return unwritten_dst_elements(d, dst); }

std::int64_t nan_outputs(std::span<const double> got, std::span<const double> want) {
    std::int64_t count = 0;
    for (std::size_t i = 0; i < got.size(); ++i) count += std::isnan(got[i]) && !std::isnan(want[i]);
    return count;
}

Kind mismatch_kind(std::int64_t unwritten, std::int64_t nan_outputs) {
    return unwritten > 0 ? Kind::unwritten : nan_outputs > 0 ? Kind::nan : Kind::mismatch;
}

bool refused_for_memory(const CaseMemory& needs, const CheckSettings& s, CaseResult& r) {
    const std::string why = over_memory_limit(needs, s.memory_limit_bytes);
    if (why.empty()) return false;
    r.status = Status::unsupported;
    r.kind = Kind::over_memory_limit;
    r.reason = why;
    return true;
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

std::string coordinates_text(const std::vector<std::int64_t>& c) {
    std::string s = "[";
    for (std::size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + std::to_string(c[i]);
    return s + "]";
}

bool touches_border(const ConvDescriptor& d, const std::vector<std::int64_t>& coordinates) {
    for (int a = 0; a < d.rank; ++a) {
        const std::int64_t first = coordinates[2 + a] * d.strides[a] - d.pads_begin[a];
        const std::int64_t last = first + (d.kernel_size[a] - 1) * d.dilations[a];
        if (first < 0 || last >= d.input_size[a]) return true;
    }
    return false;
}

Buffers make_buffers(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                     const std::vector<double>& bias) {
    const std::size_t e = static_cast<std::size_t>(size_of(d.dtype));
    // each buffer spans its tensor's memory layout; the gaps of a strided one hold the fill (strided_buffers.hpp)
    Buffers b{GuardedBuffer(layout_bytes(d, TensorRole::src)), GuardedBuffer(layout_bytes(d, TensorRole::weights)),
              GuardedBuffer(d.bias_elements() * e), GuardedBuffer(layout_bytes(d, TensorRole::dst))};
    fill_gaps(d, TensorRole::src, b.src.data());
    fill_gaps(d, TensorRole::weights, b.weights.data());
    reference::ncx_to_src(d, src, b.src.data());
    reference::oix_to_weights(d, weights, b.weights.data());
    for (std::int64_t o = 0; o < d.bias_elements(); ++o) store_from_double(b.bias.data(), d.dtype, o, bias[o]);
    std::memset(b.dst.data(), 0xFF, b.dst.bytes());
    return b;
}

ChildOutcome run_backend(const Backend& backend, const ConvDescriptor& d, const Buffers& b, const CheckSettings& s,
                         const CaseMemory& needs) {
    ConvExecution e;
    e.desc = to_abi(d);
    e.src = &b.src;
    e.weights = &b.weights;
    e.bias = d.has_bias ? &b.bias : nullptr;
    e.dst = &b.dst;
    e.leak_check = s.leak_check;
    e.timeout_s = s.timeout_s;
    // The plan decides the verdict; the one-shot conv_execute writes its own dst, filled like dst,
    // which must then hold the same outputs (isolation.hpp).
    GuardedBuffer one_shot;
    if (backend.plugin->has_conv_plan() && b.dst.bytes() > 0) {
        one_shot = GuardedBuffer(b.dst.bytes());
        std::memset(one_shot.data(), 0xFF, one_shot.bytes());
        e.one_shot_dst = &one_shot;
    }
    e.memory = {s.memory_limit_bytes, needs.total() + static_cast<std::int64_t>(one_shot.bytes())};
    ChildOutcome o = execute_conv(*backend.plugin, backend.options, e);
    if (o.kind == ChildOutcome::Kind::ok)
        if (std::string why = written_gaps(d, b.dst.data()); !why.empty()) {
            o.kind = ChildOutcome::Kind::gaps_written;
            o.reason = std::move(why);
        }
    if (s.log) s.log->record(&b.src, &b.weights, e.bias, b.dst, o.kind == ChildOutcome::Kind::ok, backend.options.num_threads);
    return o;
}

// Turns a child outcome that is not "ok" into the case's status; false when it was ok.
bool outcome_status(const ChildOutcome& o, CaseResult& r) {
    if (o.workspace_bytes) r.workspace_bytes = o.workspace_bytes;
    switch (o.kind) {
        case ChildOutcome::Kind::ok: return false;
        case ChildOutcome::Kind::unsupported: r.status = Status::unsupported, r.kind = Kind::declined; break;
        case ChildOutcome::Kind::plugin_error: r.status = Status::failed, r.kind = Kind::plugin_error; break;
        case ChildOutcome::Kind::crashed: r.status = Status::crashed, r.kind = Kind::crash; break;
        case ChildOutcome::Kind::hanged: r.status = Status::hanged, r.kind = Kind::hang; break;
        case ChildOutcome::Kind::out_of_memory: r.status = Status::crashed, r.kind = Kind::out_of_memory; break;
        case ChildOutcome::Kind::paths_differ: r.status = Status::failed, r.kind = Kind::paths_differ; break;
        case ChildOutcome::Kind::gaps_written: r.status = Status::failed, r.kind = Kind::gaps_written; break;
    }
    r.reason = o.reason;
    r.error_code = o.error_code;
    return true;
}

void leak_status(const ChildOutcome& o, const CheckSettings& s, CaseResult& r) {
    if (s.leak_check && o.heap_growth_per_cycle > s.leak_threshold_bytes && r.status == Status::passed) {
        r.status = Status::failed;
        r.kind = Kind::leak;
        r.reason = "leak: " + std::to_string(o.heap_growth_per_cycle) +
                   " bytes of heap not given back per create..execute..destroy cycle";
    }
}

ErrorReport error_report(const ConvDescriptor& d, const accuracy::Comparison& cmp, std::span<const double> want,
                         std::span<const double> got, bool bound_mode, const accuracy::Contract& contract,
                         std::span<const double> magnitude, std::span<const std::int64_t> terms) {
    ErrorReport e;
    e.comparison = cmp;
    if (cmp.worst_index >= 0) e.worst_coordinates = output_coordinates(d, cmp.worst_index);
    if (cmp.mismatches == 0) return e;
    // the factor the bound would have to grow by (a bound comparison whose worst error is finite)
    if (bound_mode && std::isfinite(cmp.max_bound_fraction)) e.bound_growth_needed = cmp.max_bound_fraction;
    const std::vector<double> bounds = bound_mode ? accuracy::error_bounds(contract, want, magnitude, terms)
                                                  : std::vector<double>{};
    for (std::size_t i = 0; i < want.size(); ++i) {
        bool bad;
        if (bound_mode) {
            bad = !(accuracy::bound_fraction(contract, want[i], got[i], bounds[i]) <= 1.0);
        } else {
            bad = !(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])));
        }
        if (!bad) continue;
        if (touches_border(d, output_coordinates(d, static_cast<std::int64_t>(i)))) ++e.border_mismatches;
        else ++e.interior_mismatches;
    }
    return e;
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

const vectors::VectorCase& stored_case(const vectors::VectorSet& set, const Case& c) {
    for (const auto& vc : set.cases)
        if (vc.name == c.vector_case) return vc;
    throw std::invalid_argument("vector set " + c.vector_dir + " has no case " + c.vector_case);
}

namespace {

std::vector<double> f64_values(const npy::Array& a) {
    std::vector<double> v(static_cast<std::size_t>(a.elements()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = a.get(static_cast<std::int64_t>(i));
    return v;
}

// A stored golden vector: its own data in, its stored result as the truth (bitwise in exact mode,
// else under the contract's bound with the stored magnitude and term counts).
void check_conv_stored(const Backend& backend, const Case& c, const CheckSettings& s,
                       const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    const vectors::VectorSet set = vectors::load_vector_set(c.vector_dir);
    const vectors::VectorCase* stored = &stored_case(set, c);
    const vectors::CaseData data = vectors::load_case_data(set, *stored);
    if (!(data.descriptor == d))  // the buffers below are sized from d: the stored arrays must fit it
        throw std::invalid_argument("stored vector " + c.vector_case + " is " + to_string(data.descriptor) + ", not " +
                                    to_string(d));
    const Buffers b = make_buffers(d, reference::src_to_ncx(d, data.src.data.data()),
                                   reference::weights_to_oix(d, data.weights.data.data()),
                                   reference::bias_to_double(d, d.has_bias ? data.bias.data.data() : nullptr));
    const ChildOutcome o = run_backend(backend, d, b, s, needs);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;
    const std::int64_t unwritten = unwritten_elements(d, b.dst.data());
    const std::vector<double> got = reference::dst_to_ncx(d, b.dst.data());
    const std::vector<double> want_rounded = reference::dst_to_ncx(d, data.dst.data.data());
    const std::vector<double> want = f64_values(data.dst_f64), magnitude = f64_values(data.magnitude);
    std::vector<std::int64_t> terms(static_cast<std::size_t>(data.terms.elements()));
    for (std::size_t i = 0; i < terms.size(); ++i) terms[i] = static_cast<std::int64_t>(data.terms.get(std::int64_t(i)));
    const bool exact = c.mode == Mode::exact;
    const accuracy::Comparison cmp = exact ? accuracy::compare_exact(want_rounded, got)
                                           : accuracy::compare_bound(contract, want, magnitude, terms, got);
    r.error = error_report(d, cmp, exact ? want_rounded : want, got, !exact, contract, magnitude, terms);
    r.status = cmp.passed() ? Status::passed : Status::failed;
    if (!cmp.passed()) {
        r.kind = mismatch_kind(unwritten, nan_outputs(got, exact ? want_rounded : want));
        r.reason = "stored vector " + set.name + "/" + stored->name + ": " +
                   mismatch_reason(d, *r.error, c.mode, got, exact ? want_rounded : want, unwritten);
    }
    if (!exact) apply_statistics(cmp, r);
    leak_status(o, s, r);
}

}  // namespace

void check_conv(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r) {
    if (c.mode == Mode::invalid) return check_conv_invalid(backend, c, s, r);
    const ConvDescriptor& d = c.conv;
    validate(d);
    if (const std::string why = unclaimed(backend.info, d); !why.empty()) {
        r.status = Status::unsupported;
        r.kind = Kind::declined;
        r.reason = why;
        return;
    }
    const CaseMemory needs = case_memory(c);
    if (refused_for_memory(needs, s, r)) return;
    const accuracy::Contract contract = contract_for(backend, d.dtype);
    if (!c.vector_dir.empty()) return check_conv_stored(backend, c, s, contract, needs, r);
    if (c.mode == Mode::stress) return check_conv_stress(backend, c, s, contract, needs, r);
    if (c.mode == Mode::precision) return check_conv_precision(backend, c, s, contract, needs, r);

    if (c.mode == Mode::probe) return check_conv_probe(backend, c, s, contract, needs, r);

    std::vector<double> src, weights, bias;
    if (c.mode == Mode::exact) {
        // special fills (accuracy/special_fill.hpp): data designed for one rounding question each
        if (const std::string why = accuracy::fill_not_applicable(c.fill, d, contract); !why.empty()) {
            r.status = Status::unsupported;
            r.kind = Kind::declined;
            r.reason = why;
            return;
        }
        auto f = accuracy::make_fill(d, contract, c.fill, c.seed);
        if (const std::string why = inputs_beyond_declared_precision(contract, f.src, f.weights); !why.empty()) {
            r.status = Status::unsupported;
            r.kind = Kind::declined;
            r.reason = why;
            return;
        }
        src = std::move(f.src), weights = std::move(f.weights), bias = std::move(f.bias);
    } else {
        auto f = accuracy::make_random_fill(d, c.seed);
        src = std::move(f.src), weights = std::move(f.weights), bias = std::move(f.bias);
    }
    auto want = reference::convolution_summation(d, src, weights, bias);
    // exact mode: the one right answer is the exact sum rounded once to the output type (the same
    // value for the standard fill, whose sums are representable; special fills round on purpose)
    if (c.mode == Mode::exact)
        for (double& v : want.dst) v = round_to(d.dtype, v);
    const Buffers b = make_buffers(d, src, weights, bias);
    const ChildOutcome o = run_backend(backend, d, b, s, needs);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;
    const std::int64_t unwritten = unwritten_elements(d, b.dst.data());
    const std::vector<double> got = reference::dst_to_ncx(d, b.dst.data());
    const accuracy::Comparison cmp = c.mode == Mode::exact
                                         ? accuracy::compare_exact(want.dst, got)
                                         : accuracy::compare_bound(contract, want.dst, want.magnitude, want.terms, got);
    r.error = error_report(d, cmp, want.dst, got, c.mode == Mode::bound, contract, want.magnitude, want.terms);
    r.status = cmp.passed() ? Status::passed : Status::failed;
    if (!cmp.passed()) {
        r.kind = mismatch_kind(unwritten, nan_outputs(got, want.dst));
        r.reason = mismatch_reason(d, *r.error, c.mode, got, want.dst, unwritten);
    }
    if (c.mode == Mode::bound) apply_statistics(cmp, r);
    leak_status(o, s, r);
}

}  // namespace detail

using namespace detail;

accuracy::Contract contract_for(const Backend& backend, DataType output_dtype) {
    return contract_for(backend.expectations, backend.info.name, backend.info.accumulation_dtype, output_dtype);
}

std::string reproducer(const Backend& backend, const std::string& descriptor, std::uint64_t seed, accuracy::Mode mode) {
    std::string r = "convcheck run --backend " + backend.spec;
    if (!backend.options.options.empty()) r += " --backend-option '" + backend.options.options + "'";
    r += " --case '" + descriptor + "' --seed " + std::to_string(seed) + " --mode " + accuracy::to_string(mode);
    return r;
}

void detail::apply_expectations(const Backend& backend, CaseResult& r) {
    const Case& c = r.c;
    if (backend.expectations && r.status != Status::unsupported)
        if (const ExpectedFailure* x = backend.expectations->expected_failure(backend.info.name, c, r.status)) {
            if (r.status == Status::passed && x->may_pass) {
                r.reason = "passed; an intermittent expected failure did not show (" + x->reason + ")";
            } else if (r.status == Status::passed) {
                r.status = Status::xpass;
                r.kind = Kind::xpass;
                r.reason = "expected to fail (" + x->reason + ") but passed";
            } else if (is_failure(r.status)) {
                r.reason = "expected: " + x->reason + " | " + r.reason;
                r.status = Status::xfail;
            }
        }
}

CaseResult detail::check_case_once(const Backend& backend, const Case& c, const CheckSettings& settings) {
    CaseResult r;
    r.c = c;
    r.reproducer = reproducer(backend, c.descriptor(), c.seed, c.mode);
    if (c.fill != accuracy::Fill::standard) r.reproducer += std::string(" --fill ") + accuracy::to_string(c.fill);
    try {
        if (c.op == Op::conv) check_conv(backend, c, settings, r);
        else check_cc(backend, c, settings, r);
    } catch (const ConvError& e) {
        r.status = Status::failed;
        r.kind = Kind::invalid_case;
        r.reason = std::string("invalid case: ") + e.what();
    }
    apply_expectations(backend, r);
    return r;
}

}  // namespace convcheck::runner

namespace convcheck::runner {

ChildOutcome time_case(const Backend& backend, const Case& c, int warmups, int repeats, double timeout_s,
                       std::int64_t memory_limit_bytes) {
    const ConvDescriptor& d = c.conv;
    validate(d);
    Case timed = c;
    timed.mode = accuracy::Mode::bound;  // generated bound-mode data, never a stored vector's
    timed.vector_dir.clear();
    const CaseMemory needs = case_memory(timed);
    std::string why = unclaimed(backend.info, d);
    if (why.empty()) why = over_memory_limit(needs, memory_limit_bytes);
    if (!why.empty()) {
        ChildOutcome o;
        o.kind = ChildOutcome::Kind::unsupported;
        o.reason = why;
        return o;
    }
    const auto fill = accuracy::make_random_fill(d, c.seed);
    const Buffers b = make_buffers(d, fill.src, fill.weights, fill.bias);
    ConvExecution e;
    e.desc = to_abi(d);
    e.src = &b.src;
    e.weights = &b.weights;
    e.bias = d.has_bias ? &b.bias : nullptr;
    e.dst = &b.dst;
    e.warmups = warmups;
    e.repeats = repeats;
    e.timeout_s = timeout_s;
    e.memory = {memory_limit_bytes, needs.total()};
    return execute_conv(*backend.plugin, backend.options, e);
}

}  // namespace convcheck::runner
