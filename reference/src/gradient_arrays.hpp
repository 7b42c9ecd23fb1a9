// Internal: what the backward sums (backward.cpp's walks, backward_sums.cpp) both need of their arrays.
#pragma once

#include <cstdint>
#include <string>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/reference/backward.hpp"

namespace convcheck::reference::detail {

inline GradientResult zero_gradient(std::int64_t elements) {
    GradientResult r;
    r.values.assign(elements, 0.0);
    r.magnitude.assign(elements, 0.0);
    r.terms.assign(elements, 0);
    return r;
}

inline void check_canonical_size(const char* tensor, std::size_t got, std::int64_t want) {
    if (static_cast<std::int64_t>(got) != want)
        throw ConvError(tensor, std::to_string(got) + " elements",
                        "the canonical array must hold exactly " + std::to_string(want) + " elements");
}

}  // namespace convcheck::reference::detail
