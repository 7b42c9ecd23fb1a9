// Internal: backward data of a layer with few input channels (C <= 4, one group; ResNet's first layer
// has 3), f32 channels last, straight from diff_dst. The polyphase form would run forward
// convolutions with C output channels, C of a vector's lanes used; here the vectors run over the output
// channels O (O a multiple of the vector width) instead, and the C sums of P input pixels of one
// residue modulo the stride stay in registers:
//   diff_src(n, x, c) = sum over taps k in increasing (kd, kh, kw) order with x = y*S - P + k*D for an
//                       output y in range, then over vectors of O in order, of diff_dst(n, y, o) * W(o, c, k)
//                       per lane, and finally the lanes added in a fixed order (one order for any thread count).
// Work: input rows (n, id, ih), each written by one task.
#pragma once

#include "problem.hpp"

namespace convcheck::optimized::detail {

inline constexpr i64 kNarrowMaxChannels = 4;

struct NarrowBackwardData {
    const Geometry* geometry = nullptr;  // make_geometry(d, 1)
    const float* weights = nullptr;      // [taps][C][O] f32
    const float* zeros = nullptr;        // O zeros (the diff_dst of an output outside the image)
    i64 rows() const { return geometry->batch * geometry->in[0] * geometry->in[1]; }
    i64 scratch_ints() const { return 2 * geometry->kernel[0] * geometry->kernel[1]; }  // one call's: per (kd, kh), two
};

namespace avx512 {
void narrow_backward_data_rows(const NarrowBackwardData& p, const float* dy, float* dx, i64 begin, i64 end,
                               i64* scratch);
}  // namespace avx512
namespace avx2 {
void narrow_backward_data_rows(const NarrowBackwardData& p, const float* dy, float* dx, i64 begin, i64 end,
                               i64* scratch);
}  // namespace avx2

}  // namespace convcheck::optimized::detail
