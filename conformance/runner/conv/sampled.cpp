// Sampled mode (the large suite, suite_large.cpp; docs/large.md): a case with a
// tensor past 2^31 elements or bytes. Its inputs are written straight into the shared buffers in their
// dtype (sampled_data.hpp), dst is filled with the canary (every byte 0xFF, a NaN in every dtype),
// the backend runs once (the plan only: the one-shot path would need a second dst and, in a backend
// that packs weights, a second copy of them), then
// - every dst element is scanned: one still holding the canary was never written (kind unwritten);
// - the reference (reading 1, one output at a time from the buffers) judges a reproducible sample of
//   outputs under the case's accuracy contract, bound mode's per-output bound and statistics.
// Its time limit is --timeout per 256 MiB of tensors.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "convcheck/abi/abi_descriptor.hpp"
#include "operation.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/runner/sampled_data.hpp"

namespace convcheck::runner::detail {

namespace {

// Random outputs in each sample besides the designed ones (sampled_data.hpp).
constexpr int kRandomSamples = 1024;
// Bytes of tensors per --timeout of time limit.
constexpr std::int64_t kTimeoutBytes = std::int64_t{256} << 20;

// Seeds of the three input tensors, apart so no two tensors hold the same values.
std::uint64_t tensor_seed(std::uint64_t seed, int tensor) { return seed * 0x9e3779b97f4a7c15ull + tensor; }

std::string where(const ConvDescriptor& d, std::int64_t buffer_offset) {
    return coordinates_text(output_coordinates(d, dst_ncx_of_buffer_offset(d, buffer_offset))) + " (dst element " +
           std::to_string(buffer_offset) + ", byte " + std::to_string(buffer_offset * size_of(d.dtype)) + ")";
}

}  // namespace

void check_conv_sampled(const Backend& backend, const Case& c, const CheckSettings& s,
                        const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    const std::size_t e = static_cast<std::size_t>(size_of(d.dtype));
    constexpr GuardedBuffer::Pages untouched = GuardedBuffer::Pages::untouched;
    Buffers b{GuardedBuffer(d.src_elements() * e, untouched), GuardedBuffer(d.weights_elements() * e, untouched),
              GuardedBuffer(d.bias_elements() * e, untouched), GuardedBuffer(d.dst_elements() * e, untouched), {}, {}};
    {
        // the query first, on the buffers still untouched (mapped, not yet paid for): a backend that
        // declines the case costs a fork, not the GiBs of data (seconds to minutes)
        ConvExecution q;
        q.desc = to_abi(d);
        q.src = &b.src, q.weights = &b.weights, q.bias = d.has_bias ? &b.bias : nullptr, q.dst = &b.dst;
        q.query_only = true;
        q.timeout_s = s.timeout_s;
        q.memory = {s.memory_limit_bytes, needs.total()};
        if (outcome_status(execute_conv(*backend.plugin, backend.options, q), r)) return;
    }
    for (const GuardedBuffer* buffer : {&b.src, &b.weights, &b.bias, &b.dst}) buffer->map_in(true);  // filled whole
    fill_sampled(b.src, d.dtype, d.src_elements(), tensor_seed(c.seed, 0));
    fill_sampled(b.weights, d.dtype, d.weights_elements(), tensor_seed(c.seed, 1));
    fill_sampled(b.bias, d.dtype, d.bias_elements(), tensor_seed(c.seed, 2));
    std::memset(b.dst.data(), 0xFF, b.dst.bytes());
    // The time limit (--timeout) applies per 256 MiB of the case's tensors: every element is read or
    // written once at least, and a plain backend takes seconds per GiB.
    CheckSettings scaled = s;
    scaled.log = nullptr;  // no failure bundle of GiBs (session.cpp): the execution log would copy the buffers
    const double tensors = double(b.src.bytes() + b.weights.bytes() + b.bias.bytes() + b.dst.bytes());
    scaled.timeout_s = s.timeout_s * std::max(1.0, std::ceil(tensors / double(kTimeoutBytes)));
    const ChildOutcome o = run_backend(backend, d, b, scaled, needs, /*one_shot=*/false);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;

    const std::vector<SampledOutput> sample = sample_outputs(d, c.seed, kRandomSamples);
    std::vector<double> want, magnitude, got;
    std::vector<std::int64_t> terms;
    for (const SampledOutput& y : sample) {
        const auto v = reference::convolution_output(d, b.src.data(), b.weights.data(), b.bias.data(), y.ncx);
        want.push_back(v.value), magnitude.push_back(v.magnitude), terms.push_back(v.terms);
        got.push_back(load_as_double(b.dst.data(), d.dtype, dst_buffer_offset(d, y.ncx)));
    }
    accuracy::Comparison cmp = accuracy::compare_bound(contract, want, magnitude, terms, got);
    const std::int64_t first_bad = cmp.first_mismatch;
    // the comparison's indices are into the sample: the report names outputs
    if (cmp.worst_index >= 0) cmp.worst_index = sample[static_cast<std::size_t>(cmp.worst_index)].ncx;
    if (cmp.first_mismatch >= 0) cmp.first_mismatch = sample[static_cast<std::size_t>(cmp.first_mismatch)].ncx;
    ErrorReport report;
    complete_error_report(conv_location(d), cmp, true, report);
    r.error = report;

    const Unwritten u = unwritten_region(b.dst.data(), d.dst_elements(), size_of(d.dtype));
    const std::string sampled = std::to_string(sample.size()) + " sampled outputs of " + std::to_string(d.dst_elements());
    judge_sampled({.cmp = cmp, .first_bad = first_bad, .got = got, .want = want, .sampled = sampled,
                   .unwritten_count = u.count,
                   .unwritten = u.count == 0 ? std::string()
                                             : std::to_string(u.count) + " of " + std::to_string(d.dst_elements()) +
                                                   " outputs never written (they still hold the canary, every byte "
                                                   "0xFF): the first at " + where(d, u.first) + ", the last at " +
                                                   where(d, u.last),
                   .first_words =
                       [&](std::size_t i) {
                           const SampledOutput& y = sample[i];
                           return "at " + where(d, dst_buffer_offset(d, y.ncx)) +
                                  (y.why.empty() ? "" : ", sampled as " + y.why);
                       }},
                  r);
    leak_status(o, s, r);
}

}  // namespace convcheck::runner::detail
