// How the CC backward cuts the output rows into bands (cc_backward_bands.hpp, internal): at most the
// bands asked for, covering every output row in order, and two bands of the same parity reading no
// common input row (they run at once and add into diff_src).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "cc_backward_bands.hpp"
#include "cc_grid.hpp"
#include "convcheck/reference_tests/cc_fixtures.hpp"

using namespace convcheck;
using namespace convcheck::optimized::detail;

namespace {

// "" when bands is a valid cut of height's output rows into at most max_bands bands, else why not.
std::string check_bands(const AxisWindows& height, const std::vector<std::int64_t>& bands, std::int64_t max_bands) {
    const std::int64_t B = static_cast<std::int64_t>(bands.size()) - 1;
    if (B < 1 || B > max_bands) return std::to_string(B) + " bands";
    if (bands.front() != 0 || bands.back() != height.out) return "not every output row";
    for (std::int64_t b = 0; b < B; ++b)
        if (bands[b + 1] <= bands[b]) return "band " + std::to_string(b) + " empty";
    for (std::int64_t b = 0; b + 2 < B; ++b) {
        const auto a = cc_input_rows(height, bands[b], bands[b + 1] - 1);
        const auto c = cc_input_rows(height, bands[b + 2], bands[b + 3] - 1);
        if (a[1] > c[0] && a[0] < a[1] && c[0] < c[1])
            return "bands " + std::to_string(b) + " and " + std::to_string(b + 2) + " share input row " + std::to_string(c[0]);
    }
    return "";
}

}  // namespace

RC_GTEST_PROP(CcBackwardBands, SameParityBandsShareNoInputRow, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const std::int64_t max_bands = *rc::gen::inRange<std::int64_t>(1, 9);
    const AxisWindows height = axis_windows(d, 0);
    const std::string why = check_bands(height, cc_backward_bands(height, max_bands), max_bands);
    if (!why.empty()) RC_FAIL(to_string(d) + " max_bands " + std::to_string(max_bands) + ": " + why);
}

// The bench's real-scale layer: 46 output rows as 12, 12, 12, 10 by heights alone; by chunks of 120
// pixels (the chunked method's) 10, 13, 10, 13: 4, 5, 4, 5 chunks, 9 on the path of two threads and 18 in
// all, where 12, 12, 12, 10 made 5, 5, 5, 4 (10 and 19).
TEST(CcBackwardBands, TheBenchLayersCut) {
    const CcDescriptor d = parse_cc_descriptor("cc:n=1,cin=32,cout=32,in=64x64,scale=0.7071,support=3x3,hidden=16x16");
    const AxisWindows height = axis_windows(d, 0);
    ASSERT_EQ(height.out, 46);
    const std::vector<std::int64_t> bands = cc_backward_bands(height, 4);
    EXPECT_EQ(bands, (std::vector<std::int64_t>{0, 12, 24, 36, 46}));
    EXPECT_EQ(check_bands(height, bands, 4), "");
    const std::vector<std::int64_t> by_chunks = cc_backward_bands_by_chunks(height, 46, 120);
    EXPECT_EQ(by_chunks, (std::vector<std::int64_t>{0, 10, 23, 33, 46}));
    EXPECT_EQ(check_bands(height, by_chunks, 4), "");
}

// Cuts by chunks: valid cuts (same-parity bands apart) for any descriptor and chunk size.
RC_GTEST_PROP(CcBackwardBands, CutsByChunksKeepSameParityBandsApart, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const std::int64_t chunk = *rc::gen::inRange<std::int64_t>(1, 200);
    const AxisWindows height = axis_windows(d, 0);
    const std::string why = check_bands(height, cc_backward_bands_by_chunks(height, d.output_size[1], chunk), 4);
    if (!why.empty()) RC_FAIL(to_string(d) + " chunk " + std::to_string(chunk) + ": " + why);
}

// Where each input row of diff_src gets its first value (both Internal-Net methods): stored by an even
// band, stored by an odd band (its rows no even band reads, inside its own rows), or zeroed: every row
// exactly once; the zeroed ranges in order, none empty. For the cuts by heights (polyphase) and by chunks
// (chunked).
RC_GTEST_PROP(CcBackwardBands, EveryInputRowIsStoredFirstOrZeroedOnce, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const std::int64_t max_bands = *rc::gen::inRange<std::int64_t>(1, 9);
    const std::int64_t chunk = *rc::gen::inRange<std::int64_t>(1, 200);
    const AxisWindows height = axis_windows(d, 0);
    const std::vector<std::int64_t> bands = *rc::gen::arbitrary<bool>()
                                                ? cc_backward_bands(height, max_bands)
                                                : cc_backward_bands_by_chunks(height, d.output_size[1], chunk);
    std::vector<int> times(static_cast<std::size_t>(height.in), 0);
    const auto count = [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t r = lo; r < hi; ++r) ++times[static_cast<std::size_t>(r)];
    };
    for (std::size_t b = 0; b + 1 < bands.size(); b += 2) {
        const auto rows = cc_input_rows(height, bands[b], bands[b + 1] - 1);
        count(rows[0], rows[1]);
    }
    const auto store = cc_rows_odd_bands_store(height, bands);
    RC_ASSERT(store.size() + 1 == bands.size());
    for (std::size_t b = 0; b < store.size(); ++b) {
        const auto [lo, hi] = store[b];
        if (lo >= hi) continue;
        RC_ASSERT(b % 2 == 1u);
        const auto rows = cc_input_rows(height, bands[b], bands[b + 1] - 1);
        RC_ASSERT(rows[0] <= lo);
        RC_ASSERT(hi <= rows[1]);
        count(lo, hi);
    }
    std::int64_t last = 0;
    for (const auto& [lo, hi] : cc_rows_no_band_stores(height, bands)) {
        RC_ASSERT(lo >= last);
        RC_ASSERT(lo < hi);
        last = hi;
        count(lo, hi);
    }
    for (std::int64_t r = 0; r < height.in; ++r)
        if (times[static_cast<std::size_t>(r)] != 1)
            RC_FAIL(to_string(d) + " max_bands " + std::to_string(max_bands) + ": input row " + std::to_string(r) +
                    " first written " + std::to_string(times[static_cast<std::size_t>(r)]) + " times");
}

// The rows no even band reads (where diff_src starts from 0): with the even bands' input rows, every
// input row exactly once; the ranges in order, none empty.
RC_GTEST_PROP(CcBackwardBands, RowsOutsideTheEvenBandsAndTheirsCoverTheInputOnce, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const std::int64_t max_bands = *rc::gen::inRange<std::int64_t>(1, 9);
    const AxisWindows height = axis_windows(d, 0);
    const std::vector<std::int64_t> bands = cc_backward_bands(height, max_bands);
    std::vector<int> times(static_cast<std::size_t>(height.in), 0);
    for (std::size_t b = 0; b + 1 < bands.size(); b += 2) {
        const auto rows = cc_input_rows(height, bands[b], bands[b + 1] - 1);
        for (std::int64_t r = rows[0]; r < rows[1]; ++r) ++times[static_cast<std::size_t>(r)];
    }
    std::int64_t last = 0;
    for (const auto& [lo, hi] : cc_rows_outside_even_bands(height, bands)) {
        RC_ASSERT(lo >= last);
        RC_ASSERT(lo < hi);
        last = hi;
        for (std::int64_t r = lo; r < hi; ++r) ++times[static_cast<std::size_t>(r)];
    }
    for (std::int64_t r = 0; r < height.in; ++r)
        if (times[static_cast<std::size_t>(r)] != 1)
            RC_FAIL(to_string(d) + " max_bands " + std::to_string(max_bands) + ": input row " + std::to_string(r) +
                    " counted " + std::to_string(times[static_cast<std::size_t>(r)]) + " times");
}
