// Sampled mode for the backward passes (the large suite; docs/large.md): a case with a tensor past 2^31
// elements or bytes, as conv/sampled.cpp does for the forward pass. The inputs (diff_dst and weights for
// backward data, src and diff_dst for backward weights) are written straight into the shared buffers in
// their dtype (sampled_data.hpp), the gradients are filled with the canary (every byte 0xFF, a NaN in
// every dtype), the backend runs the pass once (conv_execute), then
// - every gradient element is scanned: one still holding the canary was never written (kind unwritten);
// - the reference's sum over the forward's index set (reading 1), one gradient element at a time straight
//   from the buffers, in double with its magnitude and term count, judges a reproducible sample of
//   gradient elements under the case's accuracy contract: bound mode's per-element bound and statistics.
// The sample: the first and the last gradient element; for every limit of 2^31 and 2^32 bytes and 2^31
// elements the gradient passes, the elements on both sides of it in buffer order; for every limit an input
// passes, a gradient element whose sum reads the input element just below it and one reading the element
// at it or the nearest one past it; every bias gradient; and 1,024 drawn from the seed.
// Its time limit is --timeout per 256 MiB of tensors.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>

#include "convcheck/abi/abi_descriptor.hpp"
#include "operation.hpp"
#include "convcheck/runner/operation_calls.hpp"
#include "convcheck/runner/sampled_data.hpp"

namespace convcheck::runner::detail {

namespace {

constexpr int kRandomSamples = 1024;
constexpr std::int64_t kTimeoutBytes = std::int64_t{256} << 20;
constexpr std::int64_t k2G = std::int64_t{1} << 31;

std::uint64_t tensor_seed(std::uint64_t seed, int tensor) { return seed * 0x9e3779b97f4a7c15ull + tensor; }

using Coords = std::vector<std::int64_t>;

// The sizes of one case as the sums read them: spatial extents and element offsets in each layout.
struct Shape {
    const ConvDescriptor& d;
    Coords in, k, out;
    std::int64_t X = 1, K = 1, Y = 1, C, O, ICg, OCg;
    explicit Shape(const ConvDescriptor& desc)
        : d(desc), C(desc.in_channels), O(desc.out_channels), ICg(desc.in_channels_per_group()),
          OCg(desc.out_channels_per_group()) {
        for (int a = 0; a < d.rank; ++a) {
            in.push_back(d.input_size[a]), k.push_back(d.kernel_size[a]), out.push_back(d.output_size(a));
            X *= in.back(), K *= k.back(), Y *= out.back();
        }
    }
    // buffer offsets of src (diff_src), weights (diff_weights) and dst (diff_dst) elements
    std::int64_t src_at(std::int64_t n, std::int64_t c, std::int64_t x) const {
        return d.data_format == DataFormat::ncx ? (n * C + c) * X + x : (n * X + x) * C + c;
    }
    std::int64_t weights_at(std::int64_t o, std::int64_t ic, std::int64_t kf) const {
        return d.filter_format == FilterFormat::oix ? (o * ICg + ic) * K + kf : (kf * ICg + ic) * O + o;
    }
    std::int64_t dst_at(std::int64_t n, std::int64_t o, std::int64_t y) const {
        return d.data_format == DataFormat::ncx ? (n * O + o) * Y + y : (n * Y + y) * O + o;
    }
    // canonical (NCX, OIX) flat index of a buffer offset
    std::int64_t src_canonical(std::int64_t at) const {
        if (d.data_format == DataFormat::ncx) return at;
        const std::int64_t n = at / (X * C), x = at / C % X, c = at % C;
        return (n * C + c) * X + x;
    }
    std::int64_t weights_canonical(std::int64_t at) const {
        if (d.filter_format == FilterFormat::oix) return at;
        const std::int64_t kf = at / (ICg * O), ic = at / O % ICg, o = at % O;
        return (o * ICg + ic) * K + kf;
    }
    std::int64_t dst_canonical(std::int64_t at) const {
        if (d.data_format == DataFormat::ncx) return at;
        const std::int64_t n = at / (Y * O), y = at / O % Y, o = at % O;
        return (n * O + o) * Y + y;
    }
    Coords split(std::int64_t flat, const Coords& sizes) const {
        Coords c(sizes.size());
        for (std::size_t a = sizes.size(); a-- > 0;) c[a] = flat % sizes[a], flat /= sizes[a];
        return c;
    }
    std::int64_t join(const Coords& c, const Coords& sizes) const {
        std::int64_t flat = 0;
        for (std::size_t a = 0; a < sizes.size(); ++a) flat = flat * sizes[a] + c[a];
        return flat;
    }
};

struct Sum {
    double value = 0, magnitude = 0;
    std::int64_t terms = 0;
    void add(double a, double b) { value += a * b, magnitude += std::fabs(a * b), ++terms; }
};

// diff_src[n, c, x] = sum over (oc of c's group, k) with y = (x + pb - k*d) / s on the output
Sum data_gradient(const Shape& s, const void* diff_dst, const void* weights, std::int64_t canonical) {
    const ConvDescriptor& d = s.d;
    const std::int64_t n = canonical / (s.C * s.X), c = canonical / s.X % s.C;
    const Coords x = s.split(canonical % s.X, s.in);
    const std::int64_t g = c / s.ICg, ic = c % s.ICg;
    Sum sum;
    Coords y(x.size());
    for (std::int64_t oc = 0; oc < s.OCg; ++oc)
        for (std::int64_t kf = 0; kf < s.K; ++kf) {
            const Coords k = s.split(kf, s.k);
            bool pairs = true;
            for (std::size_t a = 0; a < x.size() && pairs; ++a) {
                const std::int64_t t = x[a] + d.pads_begin[a] - k[a] * d.dilations[a];
                pairs = t >= 0 && t % d.strides[a] == 0 && t / d.strides[a] < s.out[a];
                y[a] = pairs ? t / d.strides[a] : 0;
            }
            if (!pairs) continue;
            const std::int64_t o = g * s.OCg + oc;
            sum.add(load_as_double(diff_dst, d.dtype, s.dst_at(n, o, s.join(y, s.out))),
                    load_as_double(weights, d.dtype, s.weights_at(o, ic, kf)));
        }
    return sum;
}

// diff_weights[o, ic, k] = sum over (n, y) with x = y*s - pb + k*d inside the input; diff_bias[o] = sum of diff_dst
Sum weights_gradient(const Shape& s, const void* src, const void* diff_dst, std::int64_t canonical) {
    const ConvDescriptor& d = s.d;
    Sum sum;
    if (canonical >= d.weights_elements()) {
        const std::int64_t o = canonical - d.weights_elements();
        for (std::int64_t n = 0; n < d.batch; ++n)
            for (std::int64_t y = 0; y < s.Y; ++y) sum.add(load_as_double(diff_dst, d.dtype, s.dst_at(n, o, y)), 1.0);
        return sum;
    }
    const std::int64_t o = canonical / (s.ICg * s.K), ic = canonical / s.K % s.ICg, kf = canonical % s.K;
    const std::int64_t c = o / s.OCg * s.ICg + ic;
    const Coords k = s.split(kf, s.k);
    Coords x(k.size());
    for (std::int64_t yf = 0; yf < s.Y; ++yf) {
        const Coords y = s.split(yf, s.out);
        bool inside = true;
        for (std::size_t a = 0; a < k.size() && inside; ++a) {
            x[a] = y[a] * d.strides[a] - d.pads_begin[a] + k[a] * d.dilations[a];
            inside = x[a] >= 0 && x[a] < s.in[a];
        }
        if (!inside) continue;
        const std::int64_t xf = s.join(x, s.in);
        for (std::int64_t n = 0; n < d.batch; ++n)
            sum.add(load_as_double(src, d.dtype, s.src_at(n, c, xf)), load_as_double(diff_dst, d.dtype, s.dst_at(n, o, yf)));
    }
    return sum;
}

// The limits of 2^31 bytes, 2^32 bytes and 2^31 elements a tensor of `elements` passes, with their names.
std::vector<std::pair<std::int64_t, std::string>> limits_crossed(std::int64_t elements, int bytes) {
    std::vector<std::pair<std::int64_t, std::string>> limits;
    for (const auto& limit : std::vector<std::pair<std::int64_t, std::string>>{
             {k2G / bytes, "byte 2^31"}, {2 * k2G / bytes, "byte 2^32"}, {k2G, "element 2^31"}}) {
        const std::int64_t at = limit.first;  // a plain local: clang-14 cannot capture a structured binding
        if (at < elements && std::none_of(limits.begin(), limits.end(), [&](const auto& l) { return l.first == at; }))
            limits.push_back(limit);
    }
    return limits;
}

// A gradient element whose sum reads the src element at canonical index `src` (backward weights): per axis
// the first tap that pairs it with an output; the first output channel of its group.
std::optional<std::int64_t> weights_gradient_reading_src(const Shape& s, std::int64_t src) {
    const ConvDescriptor& d = s.d;
    const std::int64_t c = src / s.X % s.C;
    const Coords x = s.split(src % s.X, s.in);
    Coords k(x.size());
    for (std::size_t a = 0; a < x.size(); ++a) {
        std::optional<std::int64_t> tap;
        for (std::int64_t t = 0; t < s.k[a] && !tap; ++t) {
            const std::int64_t num = x[a] + d.pads_begin[a] - t * d.dilations[a];
            if (num >= 0 && num % d.strides[a] == 0 && num / d.strides[a] < s.out[a]) tap = t;
        }
        if (!tap) return std::nullopt;
        k[a] = *tap;
    }
    const std::int64_t o = c / s.ICg * s.OCg;
    return (o * s.ICg + c % s.ICg) * s.K + s.join(k, s.k);
}

struct Sampled {
    std::int64_t canonical;
    std::string why;
};

std::vector<Sampled> sample_gradients(const Shape& s, std::uint64_t seed) {
    const ConvDescriptor& d = s.d;
    const bool data = d.pass == Pass::backward_data;
    const int e = size_of(d.dtype);
    const std::int64_t G = data ? d.src_elements() : d.weights_elements();
    std::vector<Sampled> picks{{0, "the first gradient element"}, {G - 1, "the last gradient element"}};
    const char* gradient = data ? "diff_src" : "diff_weights";
    for (const auto& [at, name] : limits_crossed(G, e))
        for (const std::int64_t b : {at - 1, at})
            picks.push_back({data ? s.src_canonical(b) : s.weights_canonical(b),
                             std::string(gradient) + " " + name + (b < at ? " - 1" : "")});
    // an input past a limit: the nearest element on each side of it that some gradient element reads
    constexpr std::int64_t kSearch = std::int64_t{1} << 20;
    auto readers = [&](const char* tensor, std::int64_t elements, auto reader) {
        for (const auto& [at, name] : limits_crossed(elements, e)) {
            for (std::int64_t j = 1; j <= kSearch && at - j >= 0; ++j)
                if (const auto g = reader(at - j)) {
                    picks.push_back({*g, "reads " + std::string(tensor) + " " + name + " - " + std::to_string(j)});
                    break;
                }
            for (std::int64_t j = 0; j < kSearch && at + j < elements; ++j)
                if (const auto g = reader(at + j)) {
                    picks.push_back({*g, "reads " + std::string(tensor) + " " + name + (j ? " + " + std::to_string(j) : "")});
                    break;
                }
        }
    };
    auto pair_part = [&](std::optional<IndexPair> p, bool src) -> std::optional<std::int64_t> {
        if (!p) return std::nullopt;
        return src ? p->src : p->weights;
    };
    if (data) {
        readers("diff_dst", d.dst_elements(), [&](std::int64_t at) { return pair_part(first_pair_with_dst(d, s.dst_canonical(at)), true); });
        readers("weights", d.weights_elements(),
                [&](std::int64_t at) { return pair_part(first_pair_with_weights(d, s.weights_canonical(at)), true); });
    } else {
        readers("diff_dst", d.dst_elements(), [&](std::int64_t at) { return pair_part(first_pair_with_dst(d, s.dst_canonical(at)), false); });
        readers("src", d.src_elements(), [&](std::int64_t at) { return weights_gradient_reading_src(s, s.src_canonical(at)); });
    }
    std::mt19937_64 rng(seed ^ 0x1a7e5a3b1ed0c0deull);
    std::uniform_int_distribution<std::int64_t> any(0, G - 1);
    for (int i = 0; i < kRandomSamples; ++i) picks.push_back({any(rng), ""});
    if (!data && d.has_bias)
        for (std::int64_t o = 0; o < d.out_channels; ++o) picks.push_back({G + o, "diff_bias"});
    std::stable_sort(picks.begin(), picks.end(), [](const auto& a, const auto& b) { return a.canonical < b.canonical; });
    std::vector<Sampled> unique;
    for (auto& p : picks)
        if (unique.empty() || unique.back().canonical != p.canonical) unique.push_back(std::move(p));
        else if (unique.back().why.empty()) unique.back().why = std::move(p.why);
    return unique;
}

}  // namespace

void check_backward_sampled(const Backend& backend, const Case& c, const CheckSettings& s,
                            const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r) {
    const ConvDescriptor& d = c.conv;
    const bool data = d.pass == Pass::backward_data;
    const std::size_t e = static_cast<std::size_t>(size_of(d.dtype));
    // inputs: diff_dst, and weights (data) or src (weights); outputs: diff_src, or diff_weights and diff_bias
    constexpr GuardedBuffer::Pages untouched = GuardedBuffer::Pages::untouched;
    GuardedBuffer diff_dst(d.dst_elements() * e, untouched),
        input(data ? d.weights_elements() * e : d.src_elements() * e, untouched),
        gradient(data ? d.src_elements() * e : d.weights_elements() * e, untouched),
        bias_gradient(data ? 0 : d.bias_elements() * e, untouched);
    {
        // the query first, on the buffers still untouched (mapped, not yet paid for): a backend that
        // declines the case costs a fork, not the GiBs of data
        ConvExecution q;
        q.desc = to_abi(d);
        q.src = data ? &gradient : &input, q.weights = data ? &input : &gradient, q.dst = &diff_dst;
        q.query_only = true;
        q.timeout_s = s.timeout_s;
        q.memory = {s.memory_limit_bytes, needs.total()};
        if (outcome_status(execute_conv(*backend.plugin, backend.options, q), r)) return;
    }
    for (const GuardedBuffer* buffer : {&diff_dst, &input, &gradient, &bias_gradient}) buffer->map_in(true);  // filled whole
    fill_sampled(diff_dst, d.dtype, d.dst_elements(), tensor_seed(c.seed, 2));
    fill_sampled(input, d.dtype, data ? d.weights_elements() : d.src_elements(), tensor_seed(c.seed, data ? 1 : 0));
    std::memset(gradient.data(), 0xFF, gradient.bytes());
    if (bias_gradient.bytes()) std::memset(bias_gradient.data(), 0xFF, bias_gradient.bytes());
    ConvBackwardExecution x;
    x.desc = to_abi(d);
    x.diff_dst = &diff_dst;
    if (data) x.weights = &input, x.diff_src = &gradient;
    else x.src = &input, x.diff_weights = &gradient, x.diff_bias = d.has_bias ? &bias_gradient : nullptr;
    const double tensors = double(diff_dst.bytes() + input.bytes() + gradient.bytes() + bias_gradient.bytes());
    CheckSettings scaled = s;
    scaled.timeout_s = s.timeout_s * std::max(1.0, std::ceil(tensors / double(kTimeoutBytes)));
    static_cast<ExecutionLimits&>(x) = execution_limits(scaled, needs.total());
    const ChildOutcome o = execute_conv_backward(*backend.plugin, backend.options, x);
    if (outcome_status(o, r)) return;
    r.time_ms = o.times_ms.empty() ? 0.0 : o.times_ms.front();
    r.implementation = o.implementation;

    const Shape shape(d);
    const std::vector<Sampled> sample = sample_gradients(shape, c.seed);
    std::vector<double> want, magnitude, got;
    std::vector<std::int64_t> terms;
    for (const Sampled& g : sample) {
        const Sum v = data ? data_gradient(shape, diff_dst.data(), input.data(), g.canonical)
                           : weights_gradient(shape, input.data(), diff_dst.data(), g.canonical);
        want.push_back(v.value), magnitude.push_back(v.magnitude), terms.push_back(v.terms);
        const bool bias = !data && g.canonical >= d.weights_elements();
        const std::int64_t at = data ? shape.src_at(g.canonical / (shape.C * shape.X), g.canonical / shape.X % shape.C,
                                                    g.canonical % shape.X)
                                : bias ? g.canonical - d.weights_elements()
                                       : shape.weights_at(g.canonical / (shape.ICg * shape.K),
                                                          g.canonical / shape.K % shape.ICg, g.canonical % shape.K);
        got.push_back(load_as_double(bias ? bias_gradient.data() : gradient.data(), d.dtype, at));
    }
    accuracy::Comparison cmp = accuracy::compare_bound(contract, want, magnitude, terms, got);
    const std::int64_t first_bad = cmp.first_mismatch;
    if (cmp.worst_index >= 0) cmp.worst_index = sample[static_cast<std::size_t>(cmp.worst_index)].canonical;
    if (cmp.first_mismatch >= 0) cmp.first_mismatch = sample[static_cast<std::size_t>(cmp.first_mismatch)].canonical;
    ErrorReport report;
    report.comparison = cmp;
    if (!cmp.passed() && std::isfinite(cmp.max_bound_fraction)) report.bound_growth_needed = cmp.max_bound_fraction;
    r.error = report;

    const char* name = data ? "diff_src" : "diff_weights";
    const std::int64_t G = data ? d.src_elements() : d.weights_elements();
    Unwritten u = unwritten_region(gradient.data(), G, static_cast<int>(e));
    std::string where = u.count ? std::string(name) + " element " + std::to_string(u.first) + " (byte " +
                                      std::to_string(u.first * static_cast<std::int64_t>(e)) + ") to " +
                                      std::to_string(u.last)
                                : "";
    if (!data && d.has_bias) {
        const Unwritten b = unwritten_region(bias_gradient.data(), d.bias_elements(), static_cast<int>(e));
        if (b.count && !u.count) where = "diff_bias element " + std::to_string(b.first) + " to " + std::to_string(b.last);
        u.count += b.count;
    }
    const std::string sampled = std::to_string(sample.size()) + " sampled gradient elements of " +
                                std::to_string(G + (data ? 0 : d.bias_elements()));
    judge_sampled({.cmp = cmp, .first_bad = first_bad, .got = got, .want = want, .sampled = sampled,
                   .unwritten_count = u.count,
                   .unwritten = std::to_string(u.count) + " gradient elements never written (they still hold the "
                                "canary, every byte 0xFF): " + where + " in buffer order",
                   .first_words =
                       [&](std::size_t i) {
                           const Sampled& g = sample[i];
                           return gradient_element(d, g.canonical) + (g.why.empty() ? "" : ", sampled as " + g.why);
                       },
                   .after_want = [&](std::size_t i) { return " (" + std::to_string(terms[i]) + " terms)"; }},
                  r);
    leak_status(o, s, r);
}

}  // namespace convcheck::runner::detail
