// The locally connected layer (CNTK sharing=false): see locally_connected.hpp.
#include "convcheck/reference/dialects/locally_connected.hpp"

#include "index_set.hpp"

namespace convcheck::reference {

std::int64_t kernel_positions(const ConvDescriptor& d, const std::array<bool, kMaxSpatialRank>& shared) {
    std::int64_t p = 1;
    for (int a = 0; a < d.rank; ++a)
        if (!shared[a]) p *= d.output_size(a);
    return p;
}

ConvResult locally_connected(const ConvDescriptor& d, const std::array<bool, kMaxSpatialRank>& shared,
                             std::span<const double> src, std::span<const double> weights,
                             std::span<const double> bias) {
    validate(d);
    const detail::Geometry3 geo = detail::lift(d);
    const std::int64_t KD = geo.kernel[0], KH = geo.kernel[1], KW = geo.kernel[2];
    const std::int64_t OD = geo.out[0], OH = geo.out[1], OW = geo.out[2];
    // the shared flags lifted like the geometry: unit axes are shared
    std::array<bool, 3> unshared{false, false, false};
    for (int a = 0; a < d.rank; ++a) unshared[3 - d.rank + a] = !shared[a];
    const std::int64_t IC_G = d.in_channels_per_group(), OC = d.out_channels;
    const std::int64_t kernel_elements = OC * IC_G * KD * KH * KW;
    if (static_cast<std::int64_t>(src.size()) != d.src_elements())
        throw ConvError("src", std::to_string(src.size()), "must have " + std::to_string(d.src_elements()) + " elements");
    if (static_cast<std::int64_t>(weights.size()) != kernel_positions(d, shared) * kernel_elements)
        throw ConvError("weights", std::to_string(weights.size()),
                        "must have positions * O * I/G * k... = " +
                            std::to_string(kernel_positions(d, shared) * kernel_elements) + " elements");
    if (d.has_bias && static_cast<std::int64_t>(bias.size()) != OC)
        throw ConvError("bias", std::to_string(bias.size()), "must have O elements");

    // The convolution's own sum (index_set.hpp, convolution.cpp); only the kernel depends on the output position.
    return detail::sum_over_index_set(d, src, bias, [&](const detail::Output& y) {
        // p(o): the output position along the unshared axes only
        std::int64_t position = 0;
        if (unshared[0]) position = position * OD + y.od;
        if (unshared[1]) position = position * OH + y.oh;
        if (unshared[2]) position = position * OW + y.ow;
        return weights.data() + position * kernel_elements;
    });
}

}  // namespace convcheck::reference
