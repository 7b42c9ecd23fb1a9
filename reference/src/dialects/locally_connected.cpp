// The locally connected layer (CNTK sharing=false): see locally_connected.hpp.
#include "convcheck/reference/dialects/locally_connected.hpp"

#include <cmath>

#include "geometry.hpp"

namespace convcheck::reference {

std::int64_t kernel_positions(const ConvDescriptor& d, const std::array<bool, kMaxSpatialRank>& shared) {
    std::int64_t p = 1;
    for (int a = 0; a < d.rank; ++a)
        if (!shared[a]) p *= d.output_size(a);
    return p;
}

ConvResult locally_connected(const ConvDescriptor& d, const std::array<bool, kMaxSpatialRank>& shared,
                             std::span<const double> src, std::span<const double> weights,
                             std::span<const double> bias) {
    validate(d);
    const detail::Geometry3 geo = detail::lift(d);
    const std::int64_t ID = geo.in[0], IH = geo.in[1], IW = geo.in[2];
    const std::int64_t KD = geo.kernel[0], KH = geo.kernel[1], KW = geo.kernel[2];
    const std::int64_t SD = geo.stride[0], SH = geo.stride[1], SW = geo.stride[2];
    const std::int64_t DD = geo.dilation[0], DH = geo.dilation[1], DW = geo.dilation[2];
    const std::int64_t PD = geo.pad_begin[0], PH = geo.pad_begin[1], PW = geo.pad_begin[2];
    const std::int64_t OD = geo.out[0], OH = geo.out[1], OW = geo.out[2];
    // the shared flags lifted like the geometry: unit axes are shared
    std::array<bool, 3> unshared{false, false, false};
    for (int a = 0; a < d.rank; ++a) unshared[3 - d.rank + a] = !shared[a];
    const std::int64_t G = d.groups, IC_G = d.in_channels_per_group(), OC_G = d.out_channels_per_group();
    const std::int64_t IC = d.in_channels, OC = d.out_channels;
    const std::int64_t kernel_elements = OC * IC_G * KD * KH * KW;
    if (static_cast<std::int64_t>(src.size()) != d.src_elements())
        throw ConvError("src", std::to_string(src.size()), "must have " + std::to_string(d.src_elements()) + " elements");
    if (static_cast<std::int64_t>(weights.size()) != kernel_positions(d, shared) * kernel_elements)
        throw ConvError("weights", std::to_string(weights.size()),
                        "must have positions * O * I/G * k... = " +
                            std::to_string(kernel_positions(d, shared) * kernel_elements) + " elements");
    if (d.has_bias && static_cast<std::int64_t>(bias.size()) != OC)
        throw ConvError("bias", std::to_string(bias.size()), "must have O elements");

    ConvResult r;
    const std::int64_t dst_elements = d.batch * OC * OD * OH * OW;
    r.dst.assign(dst_elements, 0.0);
    r.magnitude.assign(dst_elements, 0.0);
    r.terms.assign(dst_elements, 0);
    for (std::int64_t n = 0; n < d.batch; ++n)
    for (std::int64_t g = 0; g < G; ++g)
    for (std::int64_t oc_g = 0; oc_g < OC_G; ++oc_g)
    for (std::int64_t od = 0; od < OD; ++od)
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow) {
        const std::int64_t oc = g * OC_G + oc_g;
        // p(o): the output position along the unshared axes only
        std::int64_t position = 0;
        if (unshared[0]) position = position * OD + od;
        if (unshared[1]) position = position * OH + oh;
        if (unshared[2]) position = position * OW + ow;
        const double* kernel = weights.data() + position * kernel_elements;
        double sum = 0.0, magnitude = 0.0;
        std::int64_t terms = 0;
        if (d.has_bias) {
            sum = bias[oc];
            magnitude = std::fabs(bias[oc]);
            terms = 1;
        }
        for (std::int64_t ic_g = 0; ic_g < IC_G; ++ic_g)
        for (std::int64_t kd = 0; kd < KD; ++kd)
        for (std::int64_t kh = 0; kh < KH; ++kh)
        for (std::int64_t kw = 0; kw < KW; ++kw) {
            const std::int64_t id = od * SD - PD + kd * DD;
            const std::int64_t ih = oh * SH - PH + kh * DH;
            const std::int64_t iw = ow * SW - PW + kw * DW;
            if (id < 0 || id >= ID || ih < 0 || ih >= IH || iw < 0 || iw >= IW) continue;  // zero padding
            const double x = src[(((n * IC + g * IC_G + ic_g) * ID + id) * IH + ih) * IW + iw];
            const double w = kernel[(((oc * IC_G + ic_g) * KD + kd) * KH + kh) * KW + kw];
            sum += x * w;
            magnitude += std::fabs(x * w);
            ++terms;
        }
        const std::int64_t o = (((n * OC + oc) * OD + od) * OH + oh) * OW + ow;
        r.dst[o] = sum;
        r.magnitude[o] = magnitude;
        r.terms[o] = terms;
    }
    return r;
}

}  // namespace convcheck::reference
