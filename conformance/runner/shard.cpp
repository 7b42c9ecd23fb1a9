#include "convcheck/runner/shard.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "convcheck/runner/number_text.hpp"

namespace convcheck::runner {

namespace {

std::int64_t parse_count(const std::string& text, const std::string& what) {
    const auto v = parse_unsigned(text);
    if (!v || *v > static_cast<std::uint64_t>(INT64_MAX))
        throw std::invalid_argument(what + " = '" + text + "' is not an integer in [0, 2^63-1]");
    return static_cast<std::int64_t>(*v);
}

Shard make(std::int64_t index, std::int64_t total, const std::string& source) {
    if (total < 1) throw std::invalid_argument(source + ": the shard count must be at least 1");
    if (index >= total)
        throw std::invalid_argument(source + ": shard index " + std::to_string(index) + " must be below the count " +
                                    std::to_string(total));
    return Shard{index, total};
}

}  // namespace

Shard shard_from(const std::string& option) {
    if (!option.empty()) {
        const auto slash = option.find('/');
        if (slash == std::string::npos) throw std::invalid_argument("--shard '" + option + "' must read i/n, e.g. 0/4");
        return make(parse_count(option.substr(0, slash), "--shard index"),
                    parse_count(option.substr(slash + 1), "--shard count"), "--shard " + option);
    }
    for (const auto& [total_var, index_var] : {std::pair{"TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX"},
                                               std::pair{"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX"}}) {
        const char* total = std::getenv(total_var);
        if (!total || !*total) continue;
        const char* index = std::getenv(index_var);
        const Shard s = make(parse_count(index ? index : "", index_var), parse_count(total, total_var),
                             std::string(total_var) + "/" + index_var);
        if (const char* status = std::getenv("TEST_SHARD_STATUS_FILE"); status && *status) std::ofstream{status};
        return s;
    }
    return Shard{};
}

}  // namespace convcheck::runner
