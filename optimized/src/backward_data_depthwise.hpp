// Internal: backward data of a depthwise layer (ICg = OCg = 1) with a stride, straight from diff_dst
// (f32 channels last) into diff_src (f32 channels last), without the polyphase form's separate forward
// convolutions and scatter. Per input pixel x and lane block of channels:
//   diff_src(n, x, c) = sum over taps k in increasing (kd, kh, kw) order with x = y*S - P + k*D for an
//                       output y in range, of diff_dst(n, y, c) * W(c, k)
// in f32 (one order for any thread count). Work: input rows (n, id, ih), each written by one task.
#pragma once

#include "problem.hpp"

namespace convcheck::optimized::detail {

struct DepthwiseBackwardData {
    const Geometry* geometry = nullptr;  // make_geometry(d, 1): in, out, kernel, stride, dilation, pads
    const float* weights = nullptr;      // [taps][lane_blocks * W] f32, zeros past C
    i64 lane_blocks = 1;                 // ceil(C / W)
    bool stream_output = false;          // the runs' whole lines stored non-temporally (diff_src past the streaming bound)
    i64 rows() const { return geometry->batch * geometry->in[0] * geometry->in[1]; }
    // the i64 scratch of one call: per (kd, kh) and per tap, two each; per phase of the width stride, four
    i64 scratch_ints() const {
        return 2 * (geometry->kernel[0] * geometry->kernel[1] + geometry->taps()) + 4 * geometry->stride[2];
    }
};

namespace avx512 {
int backward_data_lanes();
void depthwise_backward_data_rows(const DepthwiseBackwardData& p, const float* dy, float* dx, i64 begin, i64 end,
                                  i64* scratch);
}  // namespace avx512
namespace avx2 {
int backward_data_lanes();
void depthwise_backward_data_rows(const DepthwiseBackwardData& p, const float* dy, float* dx, i64 begin, i64 end,
                                  i64* scratch);
}  // namespace avx2

}  // namespace convcheck::optimized::detail
