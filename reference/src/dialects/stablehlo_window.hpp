// Internal to the StableHLO dialects: the `convolution` op's verifier (constraints C2-C23 in the
// verifier's order and words) and its dim_labels, shared by the forward reading (stablehlo.cpp) and
// the transposed one (stablehlo_transposed.cpp: lhs_dilation > 1).
#pragma once

#include <string>
#include <vector>

#include "common.hpp"
#include "convcheck/reference/dialects/stablehlo.hpp"

namespace convcheck::reference::dialects::stablehlo::detail {

std::string spatial_digits(int rank);

struct Layouts {
    DataFormat data = DataFormat::ncx;
    FilterFormat filter = FilterFormat::oix;
    std::string data_name, filter_name;
    bool filter_reordered = false;  // a kernel order no canonical filter format stores
};

// The op's window once verified: every attribute with its default filled in (rank values each;
// padding [low, high] per axis).
struct Window {
    Layouts layouts;
    std::vector<std::int64_t> strides, lhs_dilation, rhs_dilation, padding;
};
// The text keys (stablehlo.hpp) read into the attributes; unknown keys refused naming `dialect`.
ConvolutionAttributes read_attributes(const AttributeSet& attributes, const char* dialect);

// Refuses (dialects::detail::Refusal) the first constraint broken, in StableHLO's words where it has them.
Window verify(const ConvolutionAttributes& attributes);

}  // namespace convcheck::reference::dialects::stablehlo::detail
