#include "convcheck/runner/case_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/gemm_backward_sums.hpp"
#include "convcheck/reference/gemm_summation.hpp"
#include "convcheck/core/memory_layout.hpp"
#include "convcheck/runner/memory_limit.hpp"
#include "convcheck/runner/operation_traits.hpp"
#include "conv/operation.hpp"

namespace convcheck::runner {

namespace {

// Byte counts in double: a huge but valid descriptor must not overflow the estimate.
std::int64_t saturate(double bytes) {
    return bytes >= static_cast<double>(std::numeric_limits<std::int64_t>::max() / 2)
               ? std::numeric_limits<std::int64_t>::max() / 2
               : static_cast<std::int64_t>(bytes);
}

double page_bytes() { return static_cast<double>(sysconf(_SC_PAGESIZE)); }

}  // namespace

// Mirrors conv/check.cpp and conv/data.cpp. S, W, B, D: element counts of src, weights, bias
// and dst.
//   generated data: the fill in double 8(S+W+B); the reference's dst, magnitude and terms 24D;
//     (bound mode on the GEMM evaluator without scales or post-ops: one output plane of terms, 16D + 8P; with a
//     dense NCX f32 src and dst a passing case holds neither src in double nor more than one slice of images of
//     these (conv/reference_sums.cpp), a failing one is judged again on the whole tensor's, which this counts);
//     the backend's dst read back 8D (bound mode on a dense NCX f32 dst compares it where it lies, but a failure's
//     message or a profile still widens it, with everything else alive). Exact mode adds the fill's shuffled tap
//     positions.
//   probe mode adds, per probe, a copy of src 8S, the probed reference 24D and the outputs the
//     probe does not reach (want, got, magnitude, terms, index) 40D (probe_judge.cpp).
//   sampled mode holds no tensor of its own: the buffers only (it writes its data into them).
//   a stored vector holds its arrays (in the dtype, and dst_f64, magnitude, terms) and the same
//     copies as generated data, plus want, magnitude and terms in double.
CaseMemory conv_memory(const Case& c) {
    const ConvDescriptor& d = c.conv;
    validate(d);
    // the widest of the tensors' dtypes (they differ in a mixed descriptor): an upper bound
    const double e = std::max({size_of(d.src_dtype()), size_of(d.weights_dtype()), size_of(d.bias_dtype()),
                               size_of(d.dst_dtype())}),
                 S = static_cast<double>(d.src_elements()),
                 W = static_cast<double>(d.weights_elements()), B = static_cast<double>(d.bias_elements()),
                 D = static_cast<double>(d.dst_elements());
    double kernel = 1;
    for (int a = 0; a < d.rank; ++a) kernel *= static_cast<double>(d.kernel_size[a]);
    const double taps = static_cast<double>(d.in_channels_per_group()) * kernel;
    // the shared buffers span each tensor's memory layout (strided_buffers.hpp), gaps included; the
    // gap maps of a strided tensor take a bit per element of its span
    const double Ss = static_cast<double>(layout_of(d, TensorRole::src).span()),
                 Ws = static_cast<double>(layout_of(d, TensorRole::weights).span()),
                 Ds = static_cast<double>(layout_of(d, TensorRole::dst).span());
    CaseMemory m;
    m.buffers = saturate(e * (Ss + Ws + B + Ds) + 4 * page_bytes());
    if (c.mode == accuracy::Mode::sampled) {
        // sampled mode (conv/sampled.cpp) fills the buffers in place and keeps, per sampled output
        // (at most a few thousand), its reason and five numbers: only the bookkeeping's 4 MiB
        m.reference = 4 << 20;
        return m;
    }
    // compare_bound computes each output's bound as it reads it (no array of them); with post-ops the bounds
    // carried through the chain are an array, 8D (conv/post_ops.cpp, compare_bound_given).
    // precision mode's diagnosis re-runs the reference on rounded inputs: 8(S+W) + 24D.
    double work = 8 * (S + W + B) + 32 * D + (d.post_ops.empty() ? 0.0 : 8 * D) + (Ss + Ws + Ds) / 8;
    if (!c.vector_dir.empty()) work += e * (S + W + B + D) + 24 * D + 24 * D;
    else if (c.mode == accuracy::Mode::exact) work += 8 * taps;
    else if (c.mode == accuracy::Mode::probe && d.pass != Pass::forward)
        // a backward pass (backward/probe.cpp): the probe fill 8(S+W+B), the probed copy of the inputs
        // 8(S+W+D), the probed reference and the one without the NaN 48G and the gradients judged (want, got,
        // magnitude, terms, index) 40G
        work += 8 * (S + W + B) + 8 * (S + W + D) + 88 * (d.pass == Pass::backward_data ? S : W + B);
    else if (c.mode == accuracy::Mode::probe) work += 8 * S + 24 * D + 40 * D;
    else if (c.mode == accuracy::Mode::precision) work += 8 * (S + W) + 24 * D;
    // bound mode's sums on the GEMM evaluators (conv/reference_sums.cpp, backward/check.cpp): their blocks of
    // columns and packed copies, and a backward pass's inputs' magnitudes
    if (c.vector_dir.empty() && c.mode == accuracy::Mode::bound)
        work += d.pass == Pass::backward_data      ? reference::gemm_backward_data_work_bytes(d)
                : d.pass == Pass::backward_weights ? reference::gemm_backward_weights_work_bytes(d)
                                                   : reference::gemm_summation_work_bytes(d);
    // a forward case without scales and post-ops keeps one output plane's term counts, 8P, not 8D (conv/check.cpp)
    if (c.vector_dir.empty() && detail::plane_term_counts_only(d, c.mode)) {
        double plane = 1;
        for (int a = 0; a < d.rank; ++a) plane *= static_cast<double>(d.output_size(a));
        work += 8 * plane - 8 * D;
    }
    // 4 MiB for the check's own bookkeeping (allocator arenas, page tables, the result record): the
    // peak measured around a check moves by a fraction of a MiB from run to run.
    m.reference = saturate(work + (4 << 20));
    return m;
}

// Mirrors cc/check.cpp and cc/data.cpp. S, T, B, D: src, theta, bias and dst elements (all f32
// in the ABI).
//   the case's data 4(S+T+B); the reference's result 24D and, while it computes, src and theta in
//   double 8(S+T) and one chunk of neighbours, distances, weights and partial result
//   (continuous_convolution.hpp); the weight error 8D; the backend's dst read back 8D; the projected
//   grid and the windows that place each output at the border or inside (cc/check.cpp), per axis
//   32 out + 24 out * support. Probe mode adds the probed copy of src 4S, the probed reference's
//   result 24D and the outputs the NaN does not reach (want, got, magnitude, weight error, terms,
//   index) 48D (probe_judge.cpp).
namespace {

// A CC layer's sizes, in double (saturate's argument): src, theta, bias and dst elements; neighbours, output
// rows and columns, batch, channels.
struct CcSizes {
    double S, T, B, D, K, OH, OW, N, CI, CO;
    explicit CcSizes(const CcDescriptor& d)
        : S(static_cast<double>(d.src_elements())), T(static_cast<double>(d.theta_elements())),
          B(d.has_bias ? static_cast<double>(d.out_channels) : 0.0), D(static_cast<double>(d.dst_elements())),
          K(static_cast<double>(d.neighbours())), OH(static_cast<double>(d.output_size[0])),
          OW(static_cast<double>(d.output_size[1])), N(static_cast<double>(d.batch)),
          CI(static_cast<double>(d.in_channels)), CO(static_cast<double>(d.out_channels)) {}
};

}  // namespace

CaseMemory cc_memory(const Case& c) {
    const CcDescriptor d = parse_cc_descriptor(c.cc);
    const auto [S, T, B, D, K, OH, OW, N, CI, CO] = CcSizes(d);
    const double row_weights = std::max(1.0, CO * CI * K * OW);
    const double rows = std::min(OH, std::max(1.0, std::floor(static_cast<double>(reference::cc::kWeightsChunkElements) /
                                                              row_weights)));
    const double chunk = 8 * K * rows * OW * (N * CI + 3 + CO * CI) + 24 * N * CO * rows * OW;
    CaseMemory m;
    m.buffers = saturate(4 * (S + T + B + D) + 4 * page_bytes());
    double work = 4 * (S + T + B) + 24 * D + 8 * (S + T) + chunk + 8 * D + 8 * D;
    if (c.mode == accuracy::Mode::probe) work += 4 * S + 24 * D + 48 * D;
    work += 32 * (OH + OW) + 24 * (OH * static_cast<double>(d.support[0]) + OW * static_cast<double>(d.support[1]));
    if (!c.vector_dir.empty()) work += 4 * (S + T + B);
    m.reference = saturate(work + (4 << 20));  // the check's own bookkeeping, as for conv
    return m;
}

// Mirrors cc_backward/data.cpp and cc_backward/check.cpp: the forward's case (data, grid, chunked
// neighbours and weights) plus, per chunk, the reference's dN, dW and their magnitudes; diff_dst (f32 and
// double); per gradient element its value, magnitude, terms, both bounds, the value read back and the
// bound judged (8 x 7 bytes); the output buffers shared with the child.
CaseMemory cc_backward_memory(const Case& c) {
    CaseMemory m = cc_memory(c);
    const auto [S, T, B, D, K, OH, OW, N, CI, CO] = CcSizes(parse_cc_descriptor(c.cc));
    const double gradients = S + T + B;
    m.buffers = saturate(static_cast<double>(m.buffers) + 4 * (D + gradients));
    double work = 16 * K * OH * OW * (N * CI + CO * CI) + 12 * D + 56 * gradients;
    // probe mode (cc_backward/probe.cpp), one probe at a time: the probed copy of the inputs 4(S+T+B+D), the
    // probed reference (values, magnitudes, terms) 24G, its gradients concatenated 8G, the backend's read back
    // 8G and the gradients the NaN does not reach (want, got, magnitude, terms, index, bound) 48G
    if (c.mode == accuracy::Mode::probe) work += 4 * (S + T + B + D) + 88 * gradients;
    // a stored vector (cc_backward/stored.cpp): its arrays, f32 inputs 4(S+T+D), the distances 16 K OH OW and
    // per gradient element the f32 value and four f64 / i64 arrays (36 bytes), then the inputs copied out 4(S+T+D)
    if (!c.vector_dir.empty()) work += 8 * (S + T + D) + 16 * K * OH * OW + 36 * gradients;
    m.reference = saturate(static_cast<double>(m.reference) + work);
    return m;
}

// Mirrors transposed/data.cpp and transposed/check.cpp. S, W, B, D: src, weights, bias and
// dst elements of the transposed convolution (dst is its forward convolution's src).
//   the data in double 8(S+W+B), drawn with the forward's src 8D (backward/data.cpp's inputs);
//   the reference's dst, magnitude and terms 24D; the backend's dst read back 8D; the bound
//   comparison's per-output bounds 8D. A stored vector adds its arrays (in the dtype, and dst_f64,
//   magnitude, terms 24D) and want, magnitude and terms in double 24D. Probe mode adds, per probe, a copy of
//   the inputs 8(S+W+B), the probed reference 24D and the outputs the probe does not reach 40D (as conv's).
CaseMemory transposed_memory(const Case& c) {
    const TransposedDescriptor& t = c.deconv;
    validate(t);
    const double e = size_of(t.dtype), S = static_cast<double>(t.src_elements()),
                 W = static_cast<double>(t.weights_elements()), B = t.has_bias ? static_cast<double>(t.out_channels) : 0.0,
                 D = static_cast<double>(t.dst_elements());
    CaseMemory m;
    m.buffers = saturate(e * (S + W + B + D) + 4 * page_bytes());
    double work = 8 * (S + W + B) + 8 * D + 24 * D + 8 * D + 8 * D;
    if (!c.vector_dir.empty()) work += e * (S + W + B + D) + 24 * D + 24 * D;
    // probe mode (transposed/probe.cpp): the probed copy of the inputs 8(S+W+B), the reference with the NaN
    // and without it 48D, the judged outputs and the may-reach flags 41D
    else if (c.mode == accuracy::Mode::probe) work += 8 * (S + W + B) + 48 * D + 41 * D;
    m.reference = saturate(work + (4 << 20));  // the check's own bookkeeping, as for conv
    return m;
}

std::string CaseMemory::text() const {
    return memory_text(buffers) + " for the buffers shared with the plugin, " + memory_text(reference) +
           " for the data and the reference's work";
}

CaseMemory case_memory(const Case& c) { return operation(c.op).memory(c); }

std::string over_memory_limit(const CaseMemory& needs, std::int64_t limit_bytes) {
    if (limit_bytes <= 0 || needs.total() <= limit_bytes) return "";
    return "over the memory limit: the runner needs " + memory_text(needs.total()) + " (" +
           std::to_string(needs.total()) + " bytes: " + needs.text() + ") to check this case, more than the limit of " +
           memory_text(limit_bytes) + " (" + std::to_string(limit_bytes) + " bytes; --memory-limit)";
}

}  // namespace convcheck::runner
