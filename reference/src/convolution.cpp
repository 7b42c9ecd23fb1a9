#include "convcheck/reference/convolution.hpp"

#include <cmath>

#include "geometry.hpp"

namespace convcheck::reference {

ConvResult convolution_summation(const ConvDescriptor& d, std::span<const double> src,
                                 std::span<const double> weights, std::span<const double> bias) {
    const detail::Geometry3 geo = detail::lift(d);
    const std::int64_t ID = geo.in[0], IH = geo.in[1], IW = geo.in[2];
    const std::int64_t KD = geo.kernel[0], KH = geo.kernel[1], KW = geo.kernel[2];
    const std::int64_t SD = geo.stride[0], SH = geo.stride[1], SW = geo.stride[2];
    const std::int64_t DD = geo.dilation[0], DH = geo.dilation[1], DW = geo.dilation[2];
    const std::int64_t PD = geo.pad_begin[0], PH = geo.pad_begin[1], PW = geo.pad_begin[2];
    const std::int64_t OD = geo.out[0], OH = geo.out[1], OW = geo.out[2];
    const std::int64_t G = d.groups, IC_G = d.in_channels_per_group(), OC_G = d.out_channels_per_group();
    const std::int64_t IC = d.in_channels, OC = d.out_channels;

    ConvResult r;
    const std::int64_t dst_elements = d.batch * OC * OD * OH * OW;
    r.dst.assign(dst_elements, 0.0);
    r.magnitude.assign(dst_elements, 0.0);
    r.terms.assign(dst_elements, 0);

    auto src_at = [&](std::int64_t n, std::int64_t c, std::int64_t id, std::int64_t ih, std::int64_t iw) {
        return src[(((n * IC + c) * ID + id) * IH + ih) * IW + iw];
    };
    auto weights_at = [&](std::int64_t oc, std::int64_t ic_g, std::int64_t kd, std::int64_t kh, std::int64_t kw) {
        return weights[(((oc * IC_G + ic_g) * KD + kd) * KH + kh) * KW + kw];
    };

    for (std::int64_t n = 0; n < d.batch; ++n)
    for (std::int64_t g = 0; g < G; ++g)
    for (std::int64_t oc_g = 0; oc_g < OC_G; ++oc_g)
    for (std::int64_t od = 0; od < OD; ++od)
    for (std::int64_t oh = 0; oh < OH; ++oh)
    for (std::int64_t ow = 0; ow < OW; ++ow) {
        const std::int64_t oc = g * OC_G + oc_g;
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
            // id = od*SD - PD + kd*DD (seed 002: oh'' = oh*SH - PH_L + kh*DH, 1-based DH)
            const std::int64_t id = od * SD - PD + kd * DD;
            const std::int64_t ih = oh * SH - PH + kh * DH;
            const std::int64_t iw = ow * SW - PW + kw * DW;
            if (id < 0 || id >= ID || ih < 0 || ih >= IH || iw < 0 || iw >= IW) continue;  // zero padding
            const double product = src_at(n, g * IC_G + ic_g, id, ih, iw) * weights_at(oc, ic_g, kd, kh, kw);
            sum += product;
            magnitude += std::fabs(product);
            ++terms;
        }
        const std::int64_t o = (((n * OC + oc) * OD + od) * OH + oh) * OW + ow;
        r.dst[o] = sum;
        r.magnitude[o] = magnitude;
        r.terms[o] = terms;
    }
    return r;
}

ConvResult convolution(const ConvDescriptor& d, const void* src, const void* weights, const void* bias) {
    validate(d);
    const std::vector<double> src_ncx = src_to_ncx(d, src);
    const std::vector<double> weights_oix = weights_to_oix(d, weights);
    const std::vector<double> bias_values = bias_to_double(d, bias);
    return convolution_summation(d, src_ncx, weights_oix, bias_values);
}

}  // namespace convcheck::reference
