// A locally connected layer: CNTK's sharing=false. Along an unshared axis the weights are not shared
// between output positions: every output position along it has its own kernel.
//
//   dst(n, g*OC_G + oc_g, o...) = bias(g*OC_G + oc_g)
//       + sum_{ic_g, k...} src(n, g*IC_G + ic_g, o*S - P_L + k*D ...) * weights(p(o), g*OC_G + oc_g, ic_g, k...)
// where p(o) numbers the output positions along the unshared axes only (row-major over those axes,
// outermost first); along a shared axis every position uses the same kernel. With every axis shared it
// is the convolution; with all per-position kernels equal it equals the convolution.
#pragma once

#include <array>
#include <span>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/core/descriptor.hpp"

namespace convcheck::reference {

// The number of distinct kernels: the product of the output sizes along the unshared axes.
std::int64_t kernel_positions(const ConvDescriptor& d, const std::array<bool, kMaxSpatialRank>& weights_shared);

// src NCX, weights [positions][O][I/G][k...] (canonical doubles), bias [O] or empty.
// Validates d (throws ConvError); throws ConvError when a buffer has the wrong size.
ConvResult locally_connected(const ConvDescriptor& d, const std::array<bool, kMaxSpatialRank>& weights_shared,
                             std::span<const double> src_ncx, std::span<const double> weights,
                             std::span<const double> bias);

}  // namespace convcheck::reference
