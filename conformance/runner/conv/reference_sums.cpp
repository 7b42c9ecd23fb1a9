// Which evaluator of reading 1 gives a generated case its reference sums (docs/accuracy.md, "The reference's
// own error"). Bound mode judges a backend by |y - y*| <= bound(y*, M, n), and that bound carries the
// reference's own f64 error, so any evaluator within gamma_n(2^-53) M of the exact sums may give y* and M:
// the GEMM evaluator (im2col and Eigen's f64 GEMM), many times faster on large layers; the backward passes' sums
// likewise (backward/check.cpp, on reference/gemm_backward_sums.hpp). Exact mode compares bit for bit, and its
// data makes every sum exact, where both evaluators agree; it keeps the definition's bits all the same, as do
// the other dtypes (fp8, integers) and every other mode (stress, precision and probe call the definition's
// evaluator themselves).
#include "operation.hpp"

#include "convcheck/reference/fast_summation.hpp"
#include "convcheck/reference/gemm_summation.hpp"

namespace convcheck::runner::detail {

namespace {

// f32, f16 and bf16: a product of two of their values is exact in double (at most 2 * 24 significand bits).
bool wide_float(DataType t) { return t == DataType::f32 || t == DataType::f16 || t == DataType::bf16; }

}  // namespace

bool gemm_reference_sums(const ConvDescriptor& d, accuracy::Mode mode) {
    return mode == accuracy::Mode::bound && wide_float(d.src_dtype()) && wide_float(d.weights_dtype()) &&
           (!d.has_bias || wide_float(d.bias_dtype())) && reference::gemm_summation_available();
}

bool gemm_backward_reference_sums(const ConvDescriptor& d, accuracy::Mode mode) {
    return mode == accuracy::Mode::bound && wide_float(d.src_dtype()) && wide_float(d.weights_dtype()) &&
           wide_float(d.dst_dtype()) && reference::gemm_summation_available();
}

bool plane_term_counts_only(const ConvDescriptor& d, accuracy::Mode mode) {
    return d.pass == Pass::forward && !d.scales.present() && d.post_ops.empty() && gemm_reference_sums(d, mode);
}

reference::ConvResult reference_sums(const ConvDescriptor& d, accuracy::Mode mode, std::span<const double> src,
                                     std::span<const double> weights, std::span<const double> bias,
                                     std::vector<std::int64_t>* plane_terms) {
    const bool gemm = gemm_reference_sums(d, mode);
    if (plane_terms != nullptr) plane_terms->clear();
    if (!gemm) return reference::fast_convolution_summation(d, src, weights, bias);
    if (plane_terms == nullptr) return reference::gemm_convolution_summation(d, src, weights, bias);
    *plane_terms = reference::plane_term_counts(d);
    return reference::gemm_convolution_sums(d, src, weights, bias);
}

}  // namespace convcheck::runner::detail
