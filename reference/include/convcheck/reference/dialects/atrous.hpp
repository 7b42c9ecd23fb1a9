// TensorFlow atrous_conv2d (seed 000): value NHWC, filters HWIO, rate, padding SAME / VALID.
//
// As a dialect: the direct reading, a dilated convolution with d = rate and stride 1,
//   SAME:  pads (k-1)*rate split floor/ceil (extra at the end), out = in
//   VALID: out = in - rate*(k-1)   (the seed's "height - 2 * (filter_width - 1)" is an erratum, see docs/errata.md)
// As a third reading of the reference: the seed's reduction, literally,
//   paddings = ...; net = space_to_batch(value, paddings, block_size=rate)
//   net = conv2d(net, filters, strides=[1, 1, 1, 1], padding="VALID")
//   crops = ...;    net = batch_to_space(net, crops, block_size=rate)
// with TF's paddings/crops: base pads as above, plus an end pad that makes each padded size a
// multiple of rate, cropped again by batch_to_space. The shapes of that chain decide the errors.
#pragma once

#include <array>

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::atrous {

struct AtrousConv2dAttributes {
    ConvShapes shapes;  // rank 2: in = (height, width), k = (filter_height, filter_width)
    std::int64_t rate = 1;
    std::string padding = "VALID";
};

DialectResult atrous_conv2d(const AtrousConv2dAttributes& attributes);
// Text keys: n c o in k, rate, padding.
DialectResult read(const AttributeSet& attributes);
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

// A dense NHWC tensor of doubles.
struct Nhwc {
    std::int64_t batch = 0, height = 0, width = 0, channels = 0;
    std::vector<double> values;  // [batch][height][width][channels]
    double& at(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
        return values[((n * height + h) * width + w) * channels + c];
    }
    double at(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) const {
        return values[((n * height + h) * width + w) * channels + c];
    }
};

// paddings / crops: {{top, bottom}, {left, right}}.
using Pads2 = std::array<std::array<std::int64_t, 2>, 2>;

// tf.space_to_batch (NHWC, block [rate, rate]): zero-pad, then
//   output[(i*rate + j)*batch + b, y, x, c] = padded[b, y*rate + i, x*rate + j, c].
Nhwc space_to_batch(const Nhwc& input, const Pads2& paddings, std::int64_t block_size);
// tf.batch_to_space: the inverse interleave, then crop:
//   full[b, y*rate + i, x*rate + j, c] = input[(i*rate + j)*batch + b, y, x, c], output = full cropped.
Nhwc batch_to_space(const Nhwc& input, const Pads2& crops, std::int64_t block_size);

// TF's paddings and crops for atrous_conv2d on an input of height x width.
struct Reduction {
    Pads2 paddings{}, crops{};
};
Reduction atrous_paddings(std::int64_t height, std::int64_t width, std::int64_t filter_height,
                          std::int64_t filter_width, std::int64_t rate, const std::string& padding);

// The third reading: space_to_batch -> VALID conv2d (the reference summation) -> batch_to_space.
// filters_hwio: [filter_height][filter_width][in_channels][out_channels]. Throws ConvError where TF
// fails (a negative VALID size, a crop larger than the size).
Nhwc atrous_conv2d_by_space_to_batch(const Nhwc& value, const std::vector<double>& filters_hwio,
                                     std::int64_t filter_height, std::int64_t filter_width,
                                     std::int64_t out_channels, std::int64_t rate, const std::string& padding);

}  // namespace convcheck::reference::dialects::atrous
