// The optimized CC backward (CcBackwardPlan) reproduces every stored CC backward vector (the cc_backward set)
// on every method this CPU can run (chunked; polyphase for the Internal-Net on a rational scale), at 1 and 2
// threads (bit for bit the same), under the runner's CC backward contract (conformance/runner/
// cc_backward/check.cpp, docs/cc-backward.md) with the stored truth: per gradient element
//     u_out |g*| + (1 + u_out) A + R
// g* the stored g_f64, R the stored g_bound (the reference's own error), A the rigorous bound of an f32
// backend that computes the distances itself (cc_backward_backend_error at u = 2^-24 + 2^-53: the 2^-53
// also decides the LeakyReLU branches the reference's rounding cannot), from the stored inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/formats/cc_backward_case_data.hpp"
#include "convcheck/optimized/cc_backward_plan.hpp"
#include "convcheck/reference/cc/backward.hpp"
#include "vector_params.hpp"

namespace convcheck::vectors {
namespace {

using testing::VectorParam;

const float* floats(const npy::Array& a) { return a.data.empty() ? nullptr : reinterpret_cast<const float*>(a.data.data()); }

std::vector<double> as_f64(const npy::Array& a) {
    std::vector<double> v(static_cast<std::size_t>(a.elements()));
    for (std::int64_t i = 0; i < a.elements(); ++i) v[i] = a.get(i);
    return v;
}

// diff_src, diff_theta, diff_bias of one execution, in the stored gradients' order.
std::vector<std::vector<float>> run(const CcBackwardCaseData& data, optimized::CcMethod method, int threads) {
    const CcDescriptor& d = data.descriptor;
    const bool net = d.kernel == CcKernel::internal_net;
    const optimized::CcBackwardPlan plan(d, floats(data.theta), {threads, method});
    std::vector<std::vector<float>> g{std::vector<float>(d.src_elements()), std::vector<float>(net ? d.theta_elements() : 0),
                                      std::vector<float>(d.has_bias ? d.out_channels : 0)};
    plan.execute(floats(data.src), floats(data.diff_dst), g[0].data(), net ? g[1].data() : nullptr,
                 d.has_bias ? g[2].data() : nullptr);
    if (!d.has_bias) g.pop_back();
    if (!net) g.erase(g.begin() + 1);
    return g;
}

class OptimizedCcBackwardVectors : public ::testing::TestWithParam<VectorParam> {};

TEST_P(OptimizedCcBackwardVectors, WithinTheContractOnEveryMethod) {
    namespace ref = reference::cc;
    const VectorParam& p = GetParam();
    ASSERT_TRUE(p.load_error.empty()) << p.load_error;
    const VectorSet set = load_vector_set(p.set_dir);
    const VectorCase& c = set.cases[p.index];
    const std::string repro = testing::reproducer(p, c);
    const CcBackwardCaseData data = load_cc_backward_case_data(set, c);
    const CcDescriptor& d = data.descriptor;
    const float* theta = floats(data.theta);
    const std::vector<double> src64 = as_f64(data.src), dd64 = as_f64(data.diff_dst);
    const ref::ContinuousKernel kernel = ref::ContinuousKernel::for_buffer(d, theta);
    // the backend term needs the reference's magnitudes and sums (vectors_reference_vectors_test: they are
    // the stored ones bit for bit)
    const ref::CcBackward r = ref::cc_backward(d, src64, kernel, dd64);
    const accuracy::Contract contract{DataType::f32, DataType::f32};
    const ref::CcBackwardBound backend =
        ref::cc_backward_backend_error(d, src64, kernel, dd64, r, accuracy::accumulation_roundoff(contract) + 0x1.0p-53);
    std::vector<const std::vector<double>*> accumulated_of{&backend.diff_src};  // in the stored gradients' order
    if (d.kernel == CcKernel::internal_net) accumulated_of.push_back(&backend.diff_theta);
    if (d.has_bias) accumulated_of.push_back(&backend.diff_bias);
    std::vector<optimized::CcMethod> methods{optimized::CcMethod::chunked};
    if (d.kernel == CcKernel::internal_net && optimized::why_unavailable(d, optimized::CcMethod::polyphase).empty())
        methods.push_back(optimized::CcMethod::polyphase);
    for (const optimized::CcMethod m : methods) {
        const std::string where = "method " + std::string(optimized::to_string(m)) + "; " + repro;
        const auto got = run(data, m, 1);
        EXPECT_EQ(got, run(data, m, 2)) << "not deterministic: 1 and 2 threads differ\n" << where;
        ASSERT_EQ(got.size(), data.gradients.size()) << where;
        for (std::size_t g = 0; g < got.size(); ++g) {
            const StoredCcGradient& s = data.gradients[g];
            const std::vector<double>& accumulated = *accumulated_of[g];
            ASSERT_EQ(static_cast<std::int64_t>(got[g].size()), s.f64.elements()) << s.role << "\n" << where;
            int shown = 0;
            for (std::int64_t i = 0; i < s.f64.elements() && shown < 3; ++i) {
                const double want = s.f64.get(i);
                const double bound = accuracy::output_error_bound(contract, want, accumulated[i]) + s.bound.get(i);
                if (!(std::fabs(double(got[g][i]) - want) <= bound)) {
                    ++shown;
                    ADD_FAILURE() << s.role << "[" << i << "]: optimized " << got[g][i] << ", stored " << want << ", |difference| "
                                  << std::fabs(double(got[g][i]) - want) << " > bound " << bound << "\n" << where;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Stored, OptimizedCcBackwardVectors, ::testing::ValuesIn(testing::cc_backward_cases()),
                         testing::param_name);

}  // namespace
}  // namespace convcheck::vectors
