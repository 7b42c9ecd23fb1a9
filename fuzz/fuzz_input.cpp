#include "fuzz_input.hpp"

#include <cstdio>
#include <cstdlib>

namespace convcheck::fuzz {

void property_failed(const std::string& target, const std::string& what) {
    std::fprintf(stderr, "fuzz target %s: property failed: %s\n", target.c_str(), what.c_str());
    std::fflush(stderr);
    std::abort();
}

}  // namespace convcheck::fuzz
