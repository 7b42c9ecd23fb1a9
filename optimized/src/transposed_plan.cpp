// TransposedPlan (transposed_plan.hpp): BackwardDataPlan on the forward convolution, and the bias.
#include "convcheck/optimized/transposed_plan.hpp"

#include <vector>

#include "convcheck/core/dtype_widening.hpp"

namespace convcheck::optimized {

namespace {

// The plan computes in f32 when the bias must join the sum before the one rounding to a 16-bit dtype.
ConvDescriptor phases_descriptor(const TransposedDescriptor& t, bool in_f32) {
    ConvDescriptor f = t.forward();
    f.pass = Pass::backward_data;
    if (in_f32) f.dtype = DataType::f32;
    return f;
}

}  // namespace

std::string why_transposed_unsupported(const TransposedDescriptor& t) {
    return why_backward_unsupported(phases_descriptor(t, false));
}

struct TransposedPlan::Impl {
    TransposedDescriptor t;
    bool in_f32;  // a bias and a 16-bit dtype
    ConvDescriptor f;
    std::vector<float> bias;  // widened; empty without bias
    std::unique_ptr<BackwardDataPlan> plan;
};

TransposedPlan::TransposedPlan(const TransposedDescriptor& t, const void* weights, const void* bias, Options options)
    : impl_(std::make_unique<Impl>()) {
    validate(t);
    Impl& m = *impl_;
    m.t = t;
    m.in_f32 = t.has_bias && t.dtype != DataType::f32;
    m.f = phases_descriptor(t, m.in_f32);
    if (t.has_bias) m.bias = widened_to_f32(bias, t.dtype, t.out_channels);
    if (m.in_f32) {
        const std::vector<float> w = widened_to_f32(weights, t.dtype, t.weights_elements());
        m.plan = std::make_unique<BackwardDataPlan>(m.f, w.data(), options);
    } else {
        m.plan = std::make_unique<BackwardDataPlan>(m.f, weights, options);
    }
}

TransposedPlan::~TransposedPlan() = default;
TransposedPlan::TransposedPlan(TransposedPlan&&) noexcept = default;
TransposedPlan& TransposedPlan::operator=(TransposedPlan&&) noexcept = default;

void TransposedPlan::execute(const void* src, void* dst) const {
    const Impl& m = *impl_;
    const TransposedDescriptor& t = m.t;
    std::vector<float> src32, dst32;
    if (m.in_f32) {
        src32 = widened_to_f32(src, t.dtype, t.src_elements());
        dst32.resize(static_cast<std::size_t>(t.dst_elements()));
    }
    float* sum = m.in_f32 ? dst32.data() : static_cast<float*>(dst);  // f32 dtype or in_f32: f32 values
    m.plan->execute(m.in_f32 ? static_cast<const void*>(src32.data()) : src, m.in_f32 ? dst32.data() : dst);
    if (!t.has_bias) return;
    // dst[n][o][x] (NCX) or dst[n][x][o] (NXC) += bias[o], one f32 addition per output
    std::int64_t spatial = 1;
    for (int a = 0; a < t.rank; ++a) spatial *= t.output_size(a);
    const bool nxc = t.data_format == DataFormat::nxc;
    for (std::int64_t n = 0; n < t.batch; ++n)
        for (std::int64_t o = 0; o < t.out_channels; ++o)
            for (std::int64_t x = 0; x < spatial; ++x)
                sum[nxc ? (n * spatial + x) * t.out_channels + o : (n * t.out_channels + o) * spatial + x] += m.bias[o];
    if (m.in_f32)  // the one rounding to the dtype, to nearest even
        for (std::int64_t i = 0; i < t.dst_elements(); ++i) store_from_double(dst, t.dtype, i, dst32[i]);
}

std::string TransposedPlan::implementation() const {
    return impl_->plan->implementation() + (impl_->t.has_bias ? " +bias" : "");
}

}  // namespace convcheck::optimized
