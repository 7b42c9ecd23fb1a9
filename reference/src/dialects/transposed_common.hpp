// Internal to the transposed dialects: packing a framework's reading into a checked TransposedResult.
#pragma once

#include <cstdint>
#include <vector>

#include "common.hpp"
#include "convcheck/reference/dialects/transposed.hpp"

namespace convcheck::reference::dialects::detail {

// The canonical transposed descriptor from the shape keys (c = the op's input channels, o = its
// output channels) and per-axis attributes (vectors of length shapes.rank()).
struct TransposedAxisAttributes {
    std::vector<std::int64_t> strides, dilations, pads_begin, pads_end, output_padding;  // dilations 1-based
};
TransposedDescriptor make_transposed(const ConvShapes& shapes, std::int64_t groups, const TransposedAxisAttributes& geometry,
                                     DataFormat data_format, FilterFormat filter_format);

// Validates result.descriptor (a ConvError becomes a refusal in convcheck's words), checks that it gives
// the framework's own output sizes (a logic_error otherwise: a dialect bug, never a user's), and fills
// result.request from it with `padding`.
TransposedResult conclude_transposed(TransposedResult result, const std::vector<std::int64_t>& output_size,
                                     PaddingRequest padding);

// An auto_pad name (ONNX's SAME_UPPER or OpenVINO's same_upper, any case) as a request; anything else explicit.
PaddingRequest padding_request_named(std::string mode);

// For spelling pads through an output_shape (ONNX, OpenVINO: the only way they say a negative pad): the
// output sizes, and whether every axis's pads_begin is floor(total / 2) or total - floor(total / 2) of its
// total padding pads_begin + pads_end (the two fixed splits those formats have).
struct OutputShapeSplit {
    std::vector<std::int64_t> output_shape;
    bool begin_is_floor_half = true, begin_is_ceil_half = true;
};
OutputShapeSplit output_shape_split(const TransposedDescriptor& t);

// Runs `body` and turns a Refusal into result.error.
template <class Body>
TransposedResult guarded_transposed(std::string_view dialect, Body body) {
    try {
        return body();
    } catch (const Refusal& refusal) {
        TransposedResult r;
        r.dialect = std::string(dialect);
        r.error = refusal.error;
        return r;
    }
}

}  // namespace convcheck::reference::dialects::detail
