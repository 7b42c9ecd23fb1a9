// Two comparisons of the same outputs are the same: every count, index, value and statistic, bit for bit (a NaN
// worst result matches a NaN).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "convcheck/accuracy/accuracy.hpp"

namespace convcheck::accuracy {

inline void expect_same_comparison(const Comparison& a, const Comparison& b, const std::string& what) {
    EXPECT_EQ(a.passed(), b.passed()) << what;
    EXPECT_EQ(a.elements, b.elements) << what;
    EXPECT_EQ(a.mismatches, b.mismatches) << what;
    EXPECT_EQ(a.first_mismatch, b.first_mismatch) << what;
    EXPECT_EQ(a.max_abs, b.max_abs) << what;
    EXPECT_EQ(a.max_bound_fraction, b.max_bound_fraction) << what;
    EXPECT_EQ(a.worst_index, b.worst_index) << what;
    EXPECT_EQ(a.worst_bound, b.worst_bound) << what;
    EXPECT_EQ(a.worst_want, b.worst_want) << what;
    EXPECT_TRUE(a.worst_got == b.worst_got || (std::isnan(a.worst_got) && std::isnan(b.worst_got))) << what;
    EXPECT_EQ(a.bound_fraction_histogram, b.bound_fraction_histogram) << what;
    const Statistics &s = a.statistics, &t = b.statistics;
    EXPECT_EQ(s.outputs, t.outputs) << what;
    EXPECT_EQ(s.sum, t.sum) << what;
    EXPECT_EQ(s.sum_squares, t.sum_squares) << what;
    EXPECT_EQ(s.sum_toward_zero, t.sum_toward_zero) << what;
    EXPECT_EQ(s.vacuous_outputs, t.vacuous_outputs) << what;
    EXPECT_EQ(s.max_vacuous_terms, t.max_vacuous_terms) << what;
    EXPECT_EQ(s.vacuous_counted, t.vacuous_counted) << what;
    EXPECT_EQ(s.vacuous_sum_squares, t.vacuous_sum_squares) << what;
    EXPECT_EQ(s.vacuous_sum, t.vacuous_sum) << what;
    EXPECT_EQ(s.vacuous_zero_sum_squares, t.vacuous_zero_sum_squares) << what;
    EXPECT_EQ(s.failure, t.failure) << what;
    EXPECT_EQ(s.unchecked, t.unchecked) << what;
    EXPECT_EQ(s.growth, t.growth) << what;
    EXPECT_EQ(s.judged_by, t.judged_by) << what;
}

}  // namespace convcheck::accuracy
