// Suites whose sources are being written by other engineers: the dialect front ends. Until they land these suites say so instead of running nothing.
#include <stdexcept>

#include "suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> dialects_suite() {
    throw std::invalid_argument("suite 'dialects' is not available in this build: the dialect front ends are not wired "
                                "into the runner yet");
}

}  // namespace convcheck::runner
