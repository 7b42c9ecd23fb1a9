// Which evaluator of reading 1 gives a generated case its reference sums (docs/accuracy.md, "The reference's
// own error"). Bound mode judges a backend by |y - y*| <= bound(y*, M, n), and that bound carries the
// reference's own f64 error, so any evaluator within gamma_n(2^-53) M of the exact sums may give y* and M:
// the GEMM evaluator (im2col and Eigen's f64 GEMM), many times faster on large layers; the backward passes' sums
// likewise (backward/check.cpp, on reference/gemm_backward_sums.hpp). Exact mode compares bit for bit, and its
// data makes every sum exact, where both evaluators agree; it keeps the definition's bits all the same, as do
// the other dtypes (fp8, integers) and every other mode (stress, precision and probe call the definition's
// evaluator themselves).
#include "operation.hpp"

#include <algorithm>
#include <memory>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/fast_summation.hpp"
#include "convcheck/reference/gemm_summation.hpp"

namespace convcheck::runner::detail {

namespace {

// f32, f16 and bf16: a product of two of their values is exact in double (at most 2 * 24 significand bits).
bool wide_float(DataType t) { return t == DataType::f32 || t == DataType::f16 || t == DataType::bf16; }

// Outputs a slice of images holds at least (a whole batch where it has fewer): enough for the GEMM evaluator's
// threads and the statistics' thread beside the comparison (accuracy.cpp) to pay off, 2 MiB per double array.
constexpr std::int64_t kSliceOutputs = std::int64_t{1} << 18;

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

bool judged_an_image_at_a_time(const ConvDescriptor& d, accuracy::Mode mode, const accuracy::Contract& contract,
                               bool profiles) {
    return plane_term_counts_only(d, mode) && reference::dense_canonical_f32(d, TensorRole::src) &&
           reference::dense_canonical_f32(d, TensorRole::dst) &&
           contract.bound_kind == accuracy::BoundKind::per_output && !profiles && d.batch > 0;
}

accuracy::Comparison compare_an_image_at_a_time(const ConvDescriptor& d, const accuracy::Contract& contract,
                                                std::span<const float> src, std::span<const double> weights,
                                                std::span<const double> bias, std::span<const float> got) {
    const std::vector<std::int64_t> plane_terms = reference::plane_term_counts(d);
    const std::int64_t image_src = d.src_elements() / d.batch, image_dst = d.dst_elements() / d.batch;
    const std::int64_t images = std::clamp<std::int64_t>(kSliceOutputs / std::max<std::int64_t>(image_dst, 1), 1, d.batch);
    accuracy::SlicedBoundComparison comparison(contract, d.dst_elements());
    // the GEMM evaluator's tasks are one image's (its blocks of columns do not depend on the batch): a slice's sums
    // are the whole batch's bits for those images. One slice's arrays, reused by the next (written whole each time).
    const reference::GemmSums sums(d, weights, bias);
    const std::size_t slice_outputs = static_cast<std::size_t>(images * image_dst);
    const auto dst = std::make_unique_for_overwrite<double[]>(slice_outputs);
    const auto magnitude = std::make_unique_for_overwrite<double[]>(slice_outputs);
    std::vector<double> slice_src;  // the slice's src widened to double (exactly)
    for (std::int64_t n = 0; n < d.batch; n += images) {
        const std::int64_t count = std::min(images, d.batch - n);
        const auto from = src.subspan(static_cast<std::size_t>(n * image_src), static_cast<std::size_t>(count * image_src));
        slice_src.assign(from.begin(), from.end());
        const std::size_t outputs = static_cast<std::size_t>(count * image_dst);
        sums.sum_images(slice_src, count, {dst.get(), outputs}, {magnitude.get(), outputs});
        comparison.add({dst.get(), outputs}, {magnitude.get(), outputs}, plane_terms,
                       got.subspan(static_cast<std::size_t>(n * image_dst), outputs));
    }
    return comparison.finish();
}

}  // namespace convcheck::runner::detail
