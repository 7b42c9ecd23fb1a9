// The reference run through each dialect: a dialect's descriptor (in the framework's own layouts,
// with its own pads, negative ones included) must compute what the framework documents.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/testing/tensor.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;

namespace {

std::vector<double> small_integers(std::int64_t n, int seed) {
    std::vector<double> v(n);
    for (std::int64_t i = 0; i < n; ++i) v[i] = double(int((i * 7 + seed * 3) % 9) - 4);
    return v;
}

// The reference on buffers laid out in d's own formats, from canonical NCX / OIX doubles.
std::vector<double> run_in_own_layout(ConvDescriptor d, const std::vector<double>& src_ncx,
                                      const std::vector<double>& weights_oix, const std::vector<double>& bias) {
    d.dtype = DataType::f32;  // small integers: exact
    d.has_bias = !bias.empty();
    Tensor src(d.dtype, d.src_dims()), weights(d.dtype, d.weights_dims()), b(d.dtype, {d.out_channels});
    reference::ncx_to_src(d, src_ncx, src.data());
    reference::oix_to_weights(d, weights_oix, weights.data());
    for (std::size_t i = 0; i < bias.size(); ++i) b.set(static_cast<std::int64_t>(i), bias[i]);
    return reference::convolution(d, src.data(), weights.data(), bias.empty() ? nullptr : b.data()).dst;
}

// "Pad the input with pads_begin / pads_end zeros (a negative pad removes elements), then convolve
// where the kernel fully overlaps": the process every framework describes, done literally on NCX.
std::vector<double> pad_then_valid(const ConvDescriptor& d, const std::vector<double>& src_ncx,
                                   const std::vector<double>& weights_oix) {
    ConvDescriptor v = d;
    for (int a = 0; a < d.rank; ++a) {
        v.input_size[a] = d.input_size[a] + d.pads_begin[a] + d.pads_end[a];
        v.pads_begin[a] = v.pads_end[a] = 0;
    }
    v.data_format = DataFormat::ncx;
    v.filter_format = FilterFormat::oix;
    v.has_bias = false;
    std::array<std::int64_t, 3> in{1, 1, 1}, padded{1, 1, 1}, begin{0, 0, 0};
    for (int a = 0; a < d.rank; ++a) {
        in[3 - d.rank + a] = d.input_size[a];
        padded[3 - d.rank + a] = v.input_size[a];
        begin[3 - d.rank + a] = d.pads_begin[a];
    }
    const std::int64_t planes = d.batch * d.in_channels;
    std::vector<double> p(planes * padded[0] * padded[1] * padded[2], 0.0);
    for (std::int64_t q = 0; q < planes; ++q)
        for (std::int64_t z = 0; z < padded[0]; ++z)
            for (std::int64_t y = 0; y < padded[1]; ++y)
                for (std::int64_t x = 0; x < padded[2]; ++x) {
                    const std::int64_t iz = z - begin[0], iy = y - begin[1], ix = x - begin[2];
                    if (iz < 0 || iz >= in[0] || iy < 0 || iy >= in[1] || ix < 0 || ix >= in[2]) continue;
                    p[((q * padded[0] + z) * padded[1] + y) * padded[2] + x] =
                        src_ncx[((q * in[0] + iz) * in[1] + iy) * in[2] + ix];
                }
    return reference::convolution_summation(v, p, weights_oix, {}).dst;
}

}  // namespace

RC_GTEST_PROP(ReferenceThroughDialects, EveryDialectsDescriptorComputesTheCanonicalResult, ()) {
    testgen::DescriptorLimits lim;
    lim.negative_pads = false;
    lim.any_dtype = false;
    lim.any_format = false;
    lim.max_batch = 2;
    const ConvDescriptor d = *testgen::valid_descriptor(lim);
    RC_LOG() << "descriptor: " << to_string(d) << "\n";
    const auto src = small_integers(d.src_elements(), 1);
    const auto weights = small_integers(d.weights_elements(), 2);
    const auto bias = d.has_bias ? small_integers(d.out_channels, 3) : std::vector<double>{};
    const auto expected = reference::convolution_summation(d, src, weights, bias).dst;
    int ran = 0;
    for (const Dialect& dialect : all_dialects()) {
        std::string why_not;
        const auto attributes = dialect.spell(request_from_descriptor(d), &why_not);
        if (!attributes) continue;
        const DialectResult r = dialect.read(*attributes);
        if (!r.ok()) continue;  // the frameworks' refusals are tested in each dialect's table
        RC_LOG() << dialect.name << ": " << to_string(*attributes) << "\n";
        RC_ASSERT(run_in_own_layout(r.descriptor, src, weights, bias) == expected);
        ++ran;
    }
    RC_ASSERT(ran >= 3);  // ONNX, OpenVINO, oneDNN and oneDNN Graph always read it
}

RC_GTEST_PROP(ReferenceThroughDialects, SameStylePadsAreThePaddingTheFrameworksDescribe, ()) {
    Request q;
    q.rank = *rc::gen::inRange(1, 3);
    q.batch = *rc::gen::inRange<std::int64_t>(1, 3);
    q.in_channels = *rc::gen::inRange<std::int64_t>(1, 3);
    q.out_channels = *rc::gen::inRange<std::int64_t>(1, 3);
    q.padding = *rc::gen::element(PaddingRequest::same_upper, PaddingRequest::same_lower);
    for (int a = 0; a < q.rank; ++a) {
        q.input_size[a] = *rc::gen::inRange<std::int64_t>(1, 11);
        q.kernel_size[a] = *rc::gen::inRange<std::int64_t>(1, 5);
        q.strides[a] = *rc::gen::inRange<std::int64_t>(1, 5);
        q.dilations[a] = *rc::gen::inRange<std::int64_t>(1, 3);
    }
    int ran = 0;
    for (const Dialect& dialect : all_dialects()) {
        std::string why_not;
        const auto attributes = dialect.spell(q, &why_not);
        if (!attributes) continue;
        const DialectResult r = dialect.read(*attributes);
        if (!r.ok()) continue;
        RC_LOG() << dialect.name << ": " << to_string(*attributes) << " -> " << to_string(r.descriptor) << "\n";
        ConvDescriptor canonical = r.descriptor;
        canonical.data_format = DataFormat::ncx;
        canonical.filter_format = FilterFormat::oix;
        canonical.has_bias = false;
        const auto src = small_integers(canonical.src_elements(), 4);
        const auto weights = small_integers(canonical.weights_elements(), 5);
        RC_ASSERT(run_in_own_layout(r.descriptor, src, weights, {}) == pad_then_valid(canonical, src, weights));
        ++ran;
    }
    RC_ASSERT(ran >= 2);
}

RC_GTEST_PROP(ReferenceThroughDialects, CntkAutoPaddingCentresTheWindowsAsConvolveGeometryDoes, ()) {
    // Independent of the pads formula: CNTK places the centre of output o's kernel at input
    // floor(e/2) + o*s (e = (in-1) mod s) and reads x[centre - floor((k-1)/2) + j], zero outside.
    const std::int64_t in = *rc::gen::inRange<std::int64_t>(1, 16);
    const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, in + 1);
    const std::int64_t s = *rc::gen::inRange<std::int64_t>(1, 6);
    const std::string attributes = "in=" + std::to_string(in) + " kernel=" + std::to_string(k) + ":1 stride=" +
                                   std::to_string(s) + ":1 autoPadding=true:false";
    RC_LOG() << "convcheck describe --dialect cntk " << attributes << "\n";
    const DialectResult r = find_dialect("cntk")->read(parse_attributes(attributes));
    RC_ASSERT(r.ok());
    const auto x = small_integers(in, 6);
    const auto w = small_integers(k, 7);
    const auto got = reference::convolution_summation(r.descriptor, x, w, {}).dst;
    const std::int64_t e = (in - 1) % s, out = (in + s - 1) / s;
    RC_ASSERT(static_cast<std::int64_t>(got.size()) == out);
    for (std::int64_t o = 0; o < out; ++o) {
        const std::int64_t centre = e / 2 + o * s;
        double sum = 0;
        for (std::int64_t j = 0; j < k; ++j) {
            const std::int64_t i = centre - (k - 1) / 2 + j;
            if (i >= 0 && i < in) sum += x[i] * w[j];
        }
        RC_ASSERT(got[o] == sum);
    }
}
