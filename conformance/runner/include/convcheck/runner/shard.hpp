// Sharding: which cases this process runs. Case i belongs to shard i mod total, so the union of the
// shards is the suite, in the same order with the same data, for any shard count.
// Sources, first found wins: --shard i/n; TEST_TOTAL_SHARDS/TEST_SHARD_INDEX (Bazel);
// GTEST_TOTAL_SHARDS/GTEST_SHARD_INDEX (GoogleTest, CTest). Under Bazel the runner also touches
// TEST_SHARD_STATUS_FILE to say it understands sharding.
#pragma once

#include <cstdint>
#include <string>

namespace convcheck::runner {

struct Shard {
    std::int64_t index = 0, total = 1;
    bool contains(std::int64_t case_index) const { return case_index % total == index; }
    std::string text() const { return std::to_string(index) + "/" + std::to_string(total); }
};

// Throws std::invalid_argument naming the source on a malformed value (index >= total, total < 1, ...).
Shard shard_from(const std::string& option);

}  // namespace convcheck::runner
