// The full suite: a fixed sweep of random small descriptors over every attribute. The generator is
// seeded with a constant, so the suite is the same list everywhere; the run seed only varies the data.
#include <algorithm>
#include <random>

#include "suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> full_suite() {
    std::mt19937_64 rng(20261122);
    auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
    std::vector<SuiteEntry> entries;
    const char* modes[] = {"bep", "be", "bp", "b"};
    for (int i = 0; i < 600; ++i) {
        ConvDescriptor d;
        d.rank = static_cast<int>(pick(1, 3));
        d.batch = pick(1, 2);
        d.groups = pick(0, 3) == 0 ? pick(2, 4) : 1;
        d.in_channels = d.groups * pick(1, d.rank == 3 ? 3 : 6);
        d.out_channels = d.groups * pick(1, d.rank == 3 ? 3 : 6);
        for (int a = 0; a < d.rank; ++a) {
            d.kernel_size[a] = pick(1, d.rank == 3 ? 3 : 5);
            d.dilations[a] = pick(0, 2) == 0 ? pick(2, 3) : 1;
            d.strides[a] = pick(1, 3);
            d.pads_begin[a] = pick(-2, 3);
            d.pads_end[a] = pick(-2, 3);
            const std::int64_t least = std::max<std::int64_t>(1, d.dilated_kernel(a) - d.pads_begin[a] - d.pads_end[a]);
            d.input_size[a] = least + pick(0, d.rank == 3 ? 4 : 9);
        }
        d.has_bias = pick(0, 1) == 1;
        d.dtype = static_cast<DataType>(pick(0, 2));
        d.data_format = static_cast<DataFormat>(pick(0, 1));
        d.filter_format = static_cast<FilterFormat>(pick(0, 1));
        validate(d);
        entries.push_back({to_string(d), modes[i % 4], "random/" + std::to_string(i)});
    }
    return entries;
}

}  // namespace convcheck::runner
