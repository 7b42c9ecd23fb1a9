// The comparison's numbers are those of one output at a time: each output's bound (error_bound) and fraction
// (bound_fraction), the histogram of fractions, the largest |got - want| over finite pairs, the failing outputs and
// the first of them, the worst output (the first of the largest fraction).
// SlicedBoundComparison: a tensor judged a slice at a time, in output order, gives compare_bound's Comparison of the
// whole tensor bit for bit (counts, indices, worst output, histogram, every statistic, the failing outputs heard in
// order), whatever the slices' sizes; what it cannot judge so (a whole-tensor bound), and slices that do not add
// up, are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/accuracy_tests/same_comparison.hpp"

using namespace convcheck;
using namespace convcheck::accuracy;

namespace {

// A tensor of `images` images of one plane pattern's outputs each: exact values, magnitudes, and an f32 result
// within rounding of them, with some outputs far off, a NaN and an infinity.
struct Tensor {
    std::vector<std::int64_t> plane{9, 6, 9, 4, 9, 9, 1, 5000};  // 5000 terms: a vacuous bound in f16
    std::size_t image = 0;
    std::vector<double> want, magnitude;
    std::vector<float> got;
};

Tensor make_tensor(std::size_t images, std::size_t planes_per_image, std::uint64_t seed) {
    Tensor t;
    t.image = t.plane.size() * planes_per_image;
    const std::size_t outputs = t.image * images;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    t.want.resize(outputs), t.magnitude.resize(outputs), t.got.resize(outputs);
    for (std::size_t i = 0; i < outputs; ++i) {
        t.want[i] = 8.0 * u(rng);
        t.magnitude[i] = std::fabs(t.want[i]) + 4.0 * std::fabs(u(rng));
        t.got[i] = float(t.want[i] + 1e-6 * u(rng) * t.magnitude[i]);
        if (i % 7919 == 11) t.got[i] = float(t.want[i] + 0.5);  // far past every bound but f16's vacuous one
    }
    t.got[outputs / 3] = std::numeric_limits<float>::quiet_NaN();
    t.got[outputs / 2] = std::numeric_limits<float>::infinity();
    return t;
}

template <class T>
std::span<const T> slice(const std::vector<T>& v, std::size_t first, std::size_t count) {
    return std::span<const T>(v).subspan(first, count);
}

}  // namespace

TEST(SlicedBoundComparison, TheComparisonsNumbersAreOneOutputAtATimes) {
    const Contract c{DataType::f32, DataType::f32, false};
    const Tensor t = make_tensor(4, 50, 13);
    Comparison want;
    for (std::size_t i = 0; i < t.want.size(); ++i) {
        const double y = t.got[i], w = t.want[i];
        const double bound = error_bound(c, w, t.magnitude[i], t.plane[i % t.plane.size()]);
        const double f = bound_fraction(c, w, y, bound);
        ++want.bound_fraction_histogram[f >= 1.0 ? 10 : static_cast<int>(f * 10.0)];
        if (std::isfinite(y)) want.max_abs = std::max(want.max_abs, std::fabs(y - w));
        if (!(f <= 1.0)) {
            ++want.mismatches;
            if (want.first_mismatch < 0) want.first_mismatch = static_cast<std::int64_t>(i);
        }
        if (want.worst_index < 0 || f > want.max_bound_fraction) {
            want.max_bound_fraction = f;
            want.worst_index = static_cast<std::int64_t>(i);
            want.worst_got = y, want.worst_want = w, want.worst_bound = bound;
        }
    }
    const Comparison got = compare_bound(c, t.want, t.magnitude, t.plane, std::span<const float>(t.got));
    ASSERT_GT(got.mismatches, 2);
    EXPECT_EQ(got.bound_fraction_histogram, want.bound_fraction_histogram);
    EXPECT_EQ(got.max_abs, want.max_abs);
    EXPECT_EQ(got.mismatches, want.mismatches);
    EXPECT_EQ(got.first_mismatch, want.first_mismatch);
    EXPECT_EQ(got.max_bound_fraction, want.max_bound_fraction);
    EXPECT_EQ(got.worst_index, want.worst_index);
    EXPECT_EQ(got.worst_bound, want.worst_bound);
    EXPECT_EQ(got.worst_want, want.worst_want);
}

TEST(SlicedBoundComparison, SlicesOfAnySizeGiveTheWholeTensorsComparisonBitForBit) {
    Contract tf32{DataType::f32, DataType::f32, false}, late_bias = tf32;
    tf32.input_significand_bits = 11;
    late_bias.bias_after_output_rounding = true;
    const Contract f32{DataType::f32, DataType::f32, false}, f16{DataType::f16, DataType::f16};
    // 40 images of 8 x 300 outputs: one image is below the statistics' thread, eight are above it
    const Tensor t = make_tensor(40, 300, 5);
    const std::vector<std::vector<std::size_t>> slicings{{40}, {1, 3, 8, 28}, std::vector<std::size_t>(40, 1)};
    for (const Contract& c : {f32, tf32, late_bias, f16}) {
        std::vector<std::int64_t> whole_failing;
        const Comparison whole = compare_bound(c, t.want, t.magnitude, t.plane, std::span<const float>(t.got),
                                               [&](std::int64_t i) { whole_failing.push_back(i); });
        ASSERT_GT(whole.mismatches, 2) << bound_name(c);
        for (const auto& images : slicings) {
            std::vector<std::int64_t> failing;
            SlicedBoundComparison sliced(c, static_cast<std::int64_t>(t.want.size()),
                                         [&](std::int64_t i) { failing.push_back(i); });
            std::size_t first = 0;
            for (const std::size_t n : images) {
                const std::size_t count = n * t.image;
                sliced.add(slice(t.want, first, count), slice(t.magnitude, first, count), t.plane,
                           slice(t.got, first, count));
                first += count;
            }
            const std::string what = bound_name(c) + ", " + std::to_string(images.size()) + " slices";
            expect_same_comparison(sliced.finish(), whole, what);
            EXPECT_EQ(failing, whole_failing) << what;
        }
    }
}

TEST(SlicedBoundComparison, AWholeTensorBoundAndSlicesThatDoNotAddUpAreRefused) {
    Contract whole_tensor{DataType::f32, DataType::f32, false};
    whole_tensor.bound_kind = BoundKind::whole_tensor;
    EXPECT_THROW(SlicedBoundComparison(whole_tensor, 10), std::invalid_argument);

    const Contract f32{DataType::f32, DataType::f32, false};
    const Tensor t = make_tensor(2, 1, 9);
    const std::size_t n = t.want.size();
    {  // past the end
        SlicedBoundComparison sliced(f32, static_cast<std::int64_t>(t.image));
        EXPECT_THROW(sliced.add(t.want, t.magnitude, t.plane, t.got), std::invalid_argument);
    }
    {  // the term pattern does not cover the slice
        SlicedBoundComparison sliced(f32, static_cast<std::int64_t>(n));
        EXPECT_THROW(sliced.add(slice(t.want, 0, 5), slice(t.magnitude, 0, 5), t.plane, slice(t.got, 0, 5)),
                     std::invalid_argument);
    }
    {  // results of another length
        SlicedBoundComparison sliced(f32, static_cast<std::int64_t>(n));
        EXPECT_THROW(sliced.add(t.want, t.magnitude, t.plane, slice(t.got, 0, t.image)), std::invalid_argument);
    }
    {  // finished before every output came
        SlicedBoundComparison sliced(f32, static_cast<std::int64_t>(n));
        sliced.add(slice(t.want, 0, t.image), slice(t.magnitude, 0, t.image), t.plane, slice(t.got, 0, t.image));
        EXPECT_THROW(sliced.finish(), std::invalid_argument);
    }
}
