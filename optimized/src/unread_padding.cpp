// A descriptor without the end padding no window reads (unread_padding.hpp).
#include "unread_padding.hpp"

#include <algorithm>

namespace convcheck::optimized::detail {
namespace {
__extension__ typedef __int128 i128;  // a stride and a pad may each be near 2^62
}  // namespace

ConvDescriptor without_unread_padding(const ConvDescriptor& d) {
    ConvDescriptor out = d;
    for (int a = 0; a < d.rank; ++a) {
        const std::int64_t outputs = d.output_size(a);
        const i128 reach = static_cast<i128>(outputs - 1) * d.strides[a] - d.pads_begin[a] + d.dilated_kernel(a);
        const i128 needed = std::max<i128>(0, reach - d.input_size[a]);
        if (needed < d.pads_end[a]) out.pads_end[a] = static_cast<std::int64_t>(needed);
    }
    return out;
}

}  // namespace convcheck::optimized::detail
