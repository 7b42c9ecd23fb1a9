// The GEMM evaluator of reading 1, for bound mode: the sums of convolution_summation (convolution.hpp)
// as im2col and Eigen's f64 matrix product, in Eigen's order of additions, not the definition's.
//
// convolution_summation stays the definition; this one is not bitwise the same. What it gives, per output:
//   - dst: bias + sum src*w over the definition's terms (the same index set), each term's product formed
//     in double and the n terms (+ bias) added in an order of Eigen's choosing (FMA allowed);
//   - magnitude: the same sum over |src|*|w| (+ |bias|);
//   - terms: the definition's count, from the geometry: IC_G * prod over axes of the taps whose input
//     index lies inside [0, in) (+ 1 for a bias).
// Its error: any order of n additions of exact products differs from the exact sum by at most
// gamma_{n}(2^-53) * M (M: the exact sum of magnitudes), as does the definition's own sequential order, so
// the two differ by at most 2 gamma_n(2^-53) M; where every partial sum is exact in double (exact mode's
// integer data) both are the exact sum, bit for bit. docs/accuracy.md, "The reference's own error", says how
// the accuracy contract accounts for it; reference_gemm_summation_test checks both statements against the
// definition on random descriptors.
#pragma once

#include <memory>
#include <span>

#include "convcheck/reference/convolution.hpp"

namespace convcheck::reference {

// Whether this machine runs the GEMM evaluator (x86-64 with AVX2 and FMA: its Eigen code is built for
// those). Where it does not, callers use fast_convolution_summation (the definition's bits).
bool gemm_summation_available();

// The sums above on canonical double arrays (src NCX, weights OIX, bias [O] or empty), on `threads`
// threads (0: one per core; one for small problems). The result does not depend on `threads`.
// Precondition: gemm_summation_available().
ConvResult gemm_convolution_summation(const ConvDescriptor& d, std::span<const double> src_ncx,
                                      std::span<const double> weights_oix, std::span<const double> bias,
                                      int threads = 0);
// The same sums and magnitudes without the per-output term counts (`terms` left empty): every output plane (one
// (n, oc)) has the same counts, plane_term_counts(d), so a caller that reads them as a repeated pattern
// (accuracy::TermCounts) needs no array of one count per output.
ConvResult gemm_convolution_sums(const ConvDescriptor& d, std::span<const double> src_ncx,
                                 std::span<const double> weights_oix, std::span<const double> bias, int threads = 0);
// The same sums, prepared for one layer and its weights (their magnitudes, and the taps-first copies the blocks
// that leave out taps read, formed once), then summed a run of the batch's images at a time into the caller's
// arrays: a caller that judges a large batch a few images at a time forms and holds only those images' sums. An
// image's sums are the same bits whichever run it is summed in (each task is one image's block of output positions)
// and whatever `threads`. `weights_oix` and `bias` must outlive it. Precondition: gemm_summation_available().
class GemmSums {
public:
    GemmSums(const ConvDescriptor& d, std::span<const double> weights_oix, std::span<const double> bias);
    ~GemmSums();
    GemmSums(const GemmSums&) = delete;
    GemmSums& operator=(const GemmSums&) = delete;
    // The sums and magnitudes of `images` images, src_ncx holding those images only ([images][I][in...]), written
    // whole into dst and magnitude ([images][O][out...] each); std::invalid_argument where a size does not match.
    void sum_images(std::span<const double> src_ncx, std::int64_t images, std::span<double> dst,
                    std::span<double> magnitude, int threads = 0) const;

private:
    struct Prepared;
    std::unique_ptr<Prepared> p_;
};

// One output plane's term counts ([out...]; every (n, oc) has the same): IC_G times the taps that land inside the
// input along each axis, plus one for a bias.
std::vector<std::int64_t> plane_term_counts(const ConvDescriptor& d);

// The bytes gemm_convolution_summation holds beyond its result, at most, on `threads` threads (0: one per core):
// |weights| 8W, the weights and |weights| taps first where a block leaves out taps that read only padding (16W), and per
// thread its im2col block and that block's magnitudes (2 x 8 K C, K = IC_G * taps, C its columns) and Eigen's packed
// copies of a block of each operand (at most 8 K C + 8 OC_G K).
double gemm_summation_work_bytes(const ConvDescriptor& d, int threads = 0);

}  // namespace convcheck::reference
