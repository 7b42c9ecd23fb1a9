// The optimized implementation reproduces every stored golden vector, on every path this CPU can
// run, under the case's comparison: "bitwise" cases (exact data, hand-made boundary values) must
// match the stored dst bit for bit; "bound" cases (random data) must be within the accuracy
// contract's bound computed from the stored dst_f64, magnitude and terms (f32 accumulation).
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/formats/case_data.hpp"
#include "convcheck/optimized/conv_plan.hpp"
#include "convcheck/reference/convolution.hpp"
#include "vector_params.hpp"

namespace convcheck::vectors {
namespace {

using testing::VectorParam;

const VectorSet& cached_set(const std::filesystem::path& dir) {
    static std::map<std::filesystem::path, VectorSet> sets;
    auto it = sets.find(dir);
    if (it == sets.end()) it = sets.emplace(dir, load_vector_set(dir)).first;
    return it->second;
}

class OptimizedVectors : public ::testing::TestWithParam<VectorParam> {};

TEST_P(OptimizedVectors, ReproducesTheVectorOnEveryPath) {
    const VectorParam& p = GetParam();
    ASSERT_TRUE(p.load_error.empty()) << p.load_error;
    const VectorSet& set = cached_set(p.set_dir);
    const VectorCase& c = set.cases[p.index];
    const std::string repro = testing::reproducer(p, c);
    const CaseData data = load_case_data(set, c);
    const ConvDescriptor& d = data.descriptor;
    std::vector<std::int64_t> terms(data.terms.elements());
    std::vector<double> want(data.dst_f64.elements()), magnitude(data.magnitude.elements());
    for (std::size_t i = 0; i < want.size(); ++i) {
        want[i] = data.dst_f64.get(i);
        magnitude[i] = data.magnitude.get(i);
        terms[i] = static_cast<std::int64_t>(data.terms.get(i));
    }
    const accuracy::Contract contract{d.dtype, DataType::f32};
    for (const optimized::Path path : optimized::available_paths(d)) {
        const optimized::ConvPlan plan(d, data.weights.data.data(), d.has_bias ? data.bias.data.data() : nullptr,
                                       {.threads = 2, .forced_path = path});
        std::vector<std::byte> dst(data.dst.data.size());
        plan.execute(data.src.data.data(), dst.data());
        const std::string where = "path " + std::string(optimized::to_string(path)) + "; " + repro;
        if (c.comparison == "bitwise") {
            for (std::int64_t i = 0; i < data.dst.elements(); ++i) {
                const int b = size_of(d.dtype);
                if (std::memcmp(dst.data() + i * b, data.dst.data.data() + i * b, b) != 0) {
                    ADD_FAILURE() << "dst element " << i << " (data_format order): optimized "
                                  << load_as_double(dst.data(), d.dtype, i) << ", stored "
                                  << load_as_double(data.dst.data.data(), d.dtype, i) << " (bitwise case)\n" << where;
                    break;
                }
            }
        } else {
            const auto cmp = accuracy::compare_bound(contract, want, magnitude, terms, reference::dst_to_ncx(d, dst.data()));
            EXPECT_TRUE(cmp.passed()) << cmp.mismatches << " outputs outside the bound; worst at NCX index "
                                      << cmp.worst_index << ": got " << cmp.worst_got << ", want " << cmp.worst_want
                                      << ", bound " << cmp.worst_bound << "\n" << where;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Stored, OptimizedVectors, ::testing::ValuesIn(testing::conv_cases_with_data()),
                         testing::param_name);

}  // namespace
}  // namespace convcheck::vectors
