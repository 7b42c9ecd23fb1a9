// The forward's index set as the forward, backward and transposed probes use it (case_pipeline.hpp, IndexPair): the
// first (src, weights, dst) triple that holds a given element of one tensor, so that a probe can put a
// zero opposite its NaN. Every triple is x = y*s - pb + k*d on every axis, x inside the input and y inside
// the output; flat indices in canonical order: src NCX, weights OIX ([O][C/G][k...]), dst NCX.
#include <vector>

#include "case_pipeline.hpp"

namespace convcheck::runner::detail {

namespace {

using Coords = std::vector<std::int64_t>;

Coords spatial_coords(std::int64_t flat, const Coords& sizes) {
    Coords c(sizes.size());
    for (std::size_t a = sizes.size(); a-- > 0;) c[a] = flat % sizes[a], flat /= sizes[a];
    return c;
}

std::int64_t spatial_flat(const Coords& c, const Coords& sizes) {
    std::int64_t flat = 0;
    for (std::size_t a = 0; a < sizes.size(); ++a) flat = flat * sizes[a] + c[a];
    return flat;
}

std::int64_t product(const Coords& sizes) {
    std::int64_t p = 1;
    for (const std::int64_t s : sizes) p *= s;
    return p;
}

struct SpatialSizes {
    Coords in, k, out;
    explicit SpatialSizes(const ConvDescriptor& d) {
        for (int a = 0; a < d.rank; ++a)
            in.push_back(d.input_size[a]), k.push_back(d.kernel_size[a]), out.push_back(d.output_size(a));
    }
};

// x of output y and tap k; false when it lies off the input on some axis (the tap reads padding)
bool input_of(const ConvDescriptor& d, const SpatialSizes& g, const Coords& y, const Coords& k, Coords& x) {
    x.resize(y.size());
    for (std::size_t a = 0; a < y.size(); ++a) {
        x[a] = y[a] * d.strides[a] - d.pads_begin[a] + k[a] * d.dilations[a];
        if (x[a] < 0 || x[a] >= g.in[a]) return false;
    }
    return true;
}

IndexPair pair_of(const ConvDescriptor& d, const SpatialSizes& g, std::int64_t n, std::int64_t o, std::int64_t ic,
                  const Coords& x, const Coords& k, const Coords& y) {
    const std::int64_t c = o / d.out_channels_per_group() * d.in_channels_per_group() + ic;
    return {(n * d.in_channels + c) * product(g.in) + spatial_flat(x, g.in),
            (o * d.in_channels_per_group() + ic) * product(g.k) + spatial_flat(k, g.k),
            (n * d.out_channels + o) * product(g.out) + spatial_flat(y, g.out)};
}

}  // namespace

std::optional<IndexPair> first_pair_with_dst(const ConvDescriptor& d, std::int64_t dst) {
    const SpatialSizes g(d);
    const std::int64_t out_spatial = product(g.out);
    const std::int64_t n = dst / out_spatial / d.out_channels, o = dst / out_spatial % d.out_channels;
    const Coords y = spatial_coords(dst % out_spatial, g.out);
    Coords x;
    for (std::int64_t ic = 0; ic < d.in_channels_per_group(); ++ic)
        for (std::int64_t kf = 0; kf < product(g.k); ++kf) {
            const Coords k = spatial_coords(kf, g.k);
            if (input_of(d, g, y, k, x)) return pair_of(d, g, n, o, ic, x, k, y);
        }
    return std::nullopt;
}

std::optional<IndexPair> first_pair_with_weights(const ConvDescriptor& d, std::int64_t weights) {
    const SpatialSizes g(d);
    const std::int64_t k_spatial = product(g.k);
    const std::int64_t o = weights / k_spatial / d.in_channels_per_group(),
                       ic = weights / k_spatial % d.in_channels_per_group();
    const Coords k = spatial_coords(weights % k_spatial, g.k);
    Coords x;
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t yf = 0; yf < product(g.out); ++yf) {
            const Coords y = spatial_coords(yf, g.out);
            if (input_of(d, g, y, k, x)) return pair_of(d, g, n, o, ic, x, k, y);
        }
    return std::nullopt;
}

std::optional<IndexPair> first_pair_with_src(const ConvDescriptor& d, std::int64_t src) {
    const SpatialSizes g(d);
    const std::int64_t in_spatial = product(g.in);
    const std::int64_t n = src / in_spatial / d.in_channels, c = src / in_spatial % d.in_channels;
    const Coords x = spatial_coords(src % in_spatial, g.in);
    const std::int64_t group = c / d.in_channels_per_group(), ic = c % d.in_channels_per_group();
    Coords at;
    for (std::int64_t oc = 0; oc < d.out_channels_per_group(); ++oc)
        for (std::int64_t yf = 0; yf < product(g.out); ++yf) {
            const Coords y = spatial_coords(yf, g.out);
            for (std::int64_t kf = 0; kf < product(g.k); ++kf) {
                const Coords k = spatial_coords(kf, g.k);
                if (input_of(d, g, y, k, at) && at == x)
                    return pair_of(d, g, n, group * d.out_channels_per_group() + oc, ic, x, k, y);
            }
        }
    return std::nullopt;
}

}  // namespace convcheck::runner::detail
