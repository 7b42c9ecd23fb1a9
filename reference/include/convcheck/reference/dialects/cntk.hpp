// CNTK Convolution() (seed 003): the 2-D syntax (kernelWidth, kernelHeight, mapCount, horizontalStride,
// verticalStride, zeroPadding, imageLayout "cudnn" | "HWC") and the N-D syntax (kernel dims, mapCount,
// stride, sharing, autoPadding, lowerPad, upperPad; CNTK order, fastest axis first: W, H, [D], C).
//
// CNTK's ConvolveGeometry (SPEC-NOTES §2), per axis, K = (k-1)*d + 1:
//   the raw kernel must not exceed the input (+ lowerPad + upperPad when autoPadding is off):
//     "Convolution operation requires that kernel dim %d <= input dim %d."
//   autoPadding: out = ceil(in/s); e = (in-1) mod s;
//     pb = floor((K-1)/2) - floor(e/2), pe = ceil((K-1)/2) - ceil(e/2)   NOT clamped: a negative pad crops
//   otherwise:   out = floor((in + lo + hi - K)/s) + 1, pb = lo, pe = hi; with lo or hi > 0 the windows must
//     reach the end of the input: "Convolution requires that kernel fills the entire space if
//     auto-padding is disabled."
// The kernel's last (channel) dim equals the input channels and must produce one output position.
// Layouts: "cudnn" is (W,H,C) column-major = row-major [C][H][W] (NCX); "HWC" is (C,W,H) column-major =
// row-major [H][W][C] (NXC). Weights: the [mapCount, kW*kH*C] matrix, (kw, kh, c) at kw + kW*(kh + kH*c)
// within a row: row-major [mapCount][C][kH][kW] (OIX). sharing=false on an axis: one kernel per output
// position along it (a locally connected layer, see locally_connected.hpp).
#pragma once

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::cntk {

// The N-D syntax. Every list is in CNTK's order over rank+1 axes (spatial fastest first, then the
// channel axis), or a single value for every axis.
struct ConvolutionAttributes {
    ConvShapes shapes;                     // input sizes and channels (convcheck's order); kernel_size unused
    std::vector<std::int64_t> kernel;      // rank+1 values: kW:kH[:kD]:C
    std::int64_t map_count = 0;            // 0: shapes.out_channels (the row dimension of w)
    std::vector<std::int64_t> stride{1};
    std::vector<bool> sharing{true};
    std::vector<bool> auto_padding{true};
    std::vector<std::int64_t> lower_pad{0}, upper_pad{0};
    std::vector<std::int64_t> dilation{1};
    std::string image_layout = "cudnn";
};
DialectResult convolution(const ConvolutionAttributes& attributes);

// The 2-D syntax of seed 003.
struct Convolution2dAttributes {
    ConvShapes shapes;  // rank 2: in = HxW
    std::int64_t kernel_width = 1, kernel_height = 1, map_count = 0;
    std::int64_t horizontal_stride = 1, vertical_stride = 1;
    bool zero_padding = false;
    std::string image_layout = "cudnn";  // the signature's default (the text's "HWC" is an erratum)
};
DialectResult convolution2d(const Convolution2dAttributes& attributes);

// Text keys. 2-D syntax (chosen when kernelWidth is given): n c in, kernelWidth, kernelHeight,
// mapCount (or o), horizontalStride, verticalStride, zeroPadding, imageLayout.
// N-D syntax: n c o in, kernel (CNTK order, e.g. 3:3:1) or k (convcheck order), mapCount, stride,
// sharing, autoPadding, lowerPad, upperPad, dilation, imageLayout.
DialectResult read(const AttributeSet& attributes);
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::cntk
