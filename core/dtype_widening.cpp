#include "convcheck/core/dtype_widening.hpp"

namespace convcheck {

std::vector<float> widened_to_f32(const void* data, DataType dtype, std::int64_t count) {
    std::vector<float> out(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) out[static_cast<std::size_t>(i)] = static_cast<float>(load_as_double(data, dtype, i));
    return out;
}

}  // namespace convcheck
