// Reading 2: the "as if" narrative of OpenVINO Convolution-1 (seed 001), one step per function.
// Every intermediate array is materialised; shapes are whatever each step produces.
#include "convcheck/reference/as_if.hpp"

#include <string>
#include <utility>

namespace convcheck::reference {

namespace {

// A dense row-major array of any rank (axis 0 outermost).
struct Array {
    std::vector<std::int64_t> shape;
    std::vector<double> values;

    explicit Array(std::vector<std::int64_t> dims) : shape(std::move(dims)) {
        std::int64_t n = 1;
        for (auto e : shape) n *= e > 0 ? e : 0;
        values.assign(static_cast<std::size_t>(n), 0.0);
    }
    std::int64_t stride(std::size_t axis) const {
        std::int64_t s = 1;
        for (std::size_t a = axis + 1; a < shape.size(); ++a) s *= shape[a];
        return s;
    }
    std::int64_t offset(const std::vector<std::int64_t>& index) const {
        std::int64_t o = 0;
        for (std::size_t a = 0; a < shape.size(); ++a) o = o * shape[a] + index[a];
        return o;
    }
    double& at(const std::vector<std::int64_t>& index) { return values[offset(index)]; }
    double at(const std::vector<std::int64_t>& index) const { return values[offset(index)]; }
};

// Calls f(index) for every index of `shape`, last axis fastest; nothing if an extent is <= 0.
template <class F>
void for_each_index(const std::vector<std::int64_t>& shape, F&& f) {
    for (auto e : shape)
        if (e <= 0) return;
    std::vector<std::int64_t> index(shape.size(), 0);
    while (true) {
        f(index);
        int a = static_cast<int>(shape.size()) - 1;
        while (a >= 0 && ++index[a] == shape[a]) index[a--] = 0;
        if (a < 0) return;
    }
}

// "each sample input first has p_b zeros inserted before and p_e zeros inserted [after] on the
//  spatial axes, giving a padded input size of p_b+p_e+X_I."  A negative pad removes elements.
Array pad_sample(const ConvDescriptor& d, const Array& sample /*[C][X_I...]*/) {
    std::vector<std::int64_t> padded_shape{sample.shape[0]};
    for (int a = 0; a < d.rank; ++a) padded_shape.push_back(d.pads_begin[a] + sample.shape[1 + a] + d.pads_end[a]);
    Array padded(padded_shape);
    std::vector<std::int64_t> source(padded_shape.size());
    for_each_index(padded_shape, [&](const std::vector<std::int64_t>& y) {
        source[0] = y[0];
        bool inside = true;
        for (int a = 0; a < d.rank; ++a) {
            source[1 + a] = y[1 + a] - d.pads_begin[a];  // padded position y holds input position y - p_b
            inside = inside && source[1 + a] >= 0 && source[1 + a] < sample.shape[1 + a];
        }
        padded.at(y) = inside ? sample.at(source) : 0.0;  // the inserted zeros
    });
    return padded;
}

// "The kernel is stretched by a factor of d on each of its spatial dimensions. The last index of
//  the stretched kernel is then d(X_K-1) so the shape is d(X_K-1)+1."  Between taps: zeros.
Array stretch_kernel(const ConvDescriptor& d, const Array& kernel /*[O][I/G][X_K...]*/) {
    std::vector<std::int64_t> stretched_shape{kernel.shape[0], kernel.shape[1]};
    for (int a = 0; a < d.rank; ++a) stretched_shape.push_back(d.dilations[a] * (kernel.shape[2 + a] - 1) + 1);
    Array stretched(stretched_shape);
    std::vector<std::int64_t> tap(stretched_shape.size());
    for_each_index(stretched_shape, [&](const std::vector<std::int64_t>& j) {
        tap[0] = j[0];
        tap[1] = j[1];
        bool on_tap = true;
        for (int a = 0; a < d.rank; ++a) {
            on_tap = on_tap && j[2 + a] % d.dilations[a] == 0;
            tap[2 + a] = j[2 + a] / d.dilations[a];
        }
        stretched.at(j) = on_tap ? kernel.at(tap) : 0.0;
    });
    return stretched;
}

// "ungrouped into g equal-sized input and kernel segments": channels [g*size, (g+1)*size) of axis 0.
Array segment(const Array& whole, std::int64_t g, std::int64_t groups) {
    std::vector<std::int64_t> shape = whole.shape;
    shape[0] /= groups;
    Array part(shape);
    const std::int64_t block = whole.stride(0) * shape[0];
    for (std::int64_t i = 0; i < block; ++i) part.values[i] = whole.values[g * block + i];
    return part;
}

// "padded input segment i and dilated kernel segment i are convolved. The convolution is only
//  performed where there is complete spatial overlap between the shifted kernel and the padded
//  input, so there will be p_b+p_e+X_I-d(X_K-1) outputs."  (Correlation, as in every framework.)
Array convolve_full_overlap(const Array& input /*[I/G][P...]*/, const Array& kernel /*[O/G][I/G][K...]*/) {
    const std::size_t rank = input.shape.size() - 1;
    std::vector<std::int64_t> out_shape{kernel.shape[0]};
    for (std::size_t a = 0; a < rank; ++a) {
        const std::int64_t positions = input.shape[1 + a] - kernel.shape[2 + a] + 1;
        out_shape.push_back(positions > 0 ? positions : 0);
    }
    Array out(out_shape);
    // The kernel shifted to position p covers input[ic][p + j] for its element [oc][ic][j].
    std::vector<std::int64_t> one_kernel(kernel.shape.begin() + 1, kernel.shape.end());  // [I/G][K...]
    const std::int64_t one_kernel_size = kernel.stride(0);
    std::vector<std::int64_t> covered(input.shape.size());
    for_each_index(out_shape, [&](const std::vector<std::int64_t>& o) {
        double sum = 0.0;
        std::int64_t k = o[0] * one_kernel_size;  // flat index of kernel[oc][j], j in row-major order
        for_each_index(one_kernel, [&](const std::vector<std::int64_t>& j) {
            covered[0] = j[0];
            for (std::size_t a = 0; a < rank; ++a) covered[1 + a] = o[1 + a] + j[1 + a];
            sum += input.at(covered) * kernel.values[k++];
        });
        out.at(o) = sum;
    });
    return out;
}

// "The output segments are then regrouped along the output channel axis."
Array regroup(const std::vector<Array>& segments) {
    std::vector<std::int64_t> shape = segments.front().shape;
    shape[0] = 0;
    for (const Array& s : segments) shape[0] += s.shape[0];
    Array whole(shape);
    whole.values.clear();
    for (const Array& s : segments) whole.values.insert(whole.values.end(), s.values.begin(), s.values.end());
    return whole;
}

// "Finally, all but the results on a multiple of [s] spatial axis are removed."
// (The seed writes d here; the stride attribute is what is meant, see SPEC-NOTES.md §3.)
Array keep_multiples_of_stride(const ConvDescriptor& d, const Array& full /*[O][F...]*/) {
    std::vector<std::vector<std::int64_t>> kept(d.rank);
    std::vector<std::int64_t> shape{full.shape[0]};
    for (int a = 0; a < d.rank; ++a) {
        for (std::int64_t q = 0; q < full.shape[1 + a]; ++q)
            if (q % d.strides[a] == 0) kept[a].push_back(q);
        shape.push_back(static_cast<std::int64_t>(kept[a].size()));
    }
    Array out(shape);
    std::vector<std::int64_t> source(shape.size());
    for_each_index(shape, [&](const std::vector<std::int64_t>& m) {
        source[0] = m[0];
        for (int a = 0; a < d.rank; ++a) source[1 + a] = kept[a][m[1 + a]];
        out.at(m) = full.at(source);
    });
    return out;
}

// "bias - a 1-D tensor adds to channel dimension"
void add_bias(Array& out, std::span<const double> bias) {
    const std::int64_t per_channel = out.stride(0);
    for (std::int64_t o = 0; o < out.shape[0]; ++o)
        for (std::int64_t x = 0; x < per_channel; ++x) out.values[o * per_channel + x] += bias[o];
}

void check_size(const char* what, std::size_t got, std::int64_t want) {
    if (static_cast<std::int64_t>(got) != want)
        throw ConvError(what, std::to_string(got) + " elements", "must hold " + std::to_string(want) + " elements");
}

}  // namespace

AsIfResult convolution_as_if(const ConvDescriptor& d, std::span<const double> src, std::span<const double> weights,
                             std::span<const double> bias) {
    validate(d);
    check_size("src", src.size(), d.src_elements());
    check_size("weights", weights.size(), d.weights_elements());
    check_size("bias", bias.size(), d.bias_elements());

    std::vector<std::int64_t> sample_shape{d.in_channels};
    std::vector<std::int64_t> kernel_shape{d.out_channels, d.in_channels_per_group()};
    for (int a = 0; a < d.rank; ++a) {
        sample_shape.push_back(d.input_size[a]);
        kernel_shape.push_back(d.kernel_size[a]);
    }
    Array kernel(kernel_shape);
    kernel.values.assign(weights.begin(), weights.end());
    const Array stretched = stretch_kernel(d, kernel);

    // "We describe the convolution for each sample in a batch of N inputs; the results are
    //  combined into an output batch of size N."
    AsIfResult result;
    for (std::int64_t n = 0; n < d.batch; ++n) {
        Array sample(sample_shape);
        const auto per_sample = static_cast<std::ptrdiff_t>(sample.values.size());
        sample.values.assign(src.begin() + n * per_sample, src.begin() + (n + 1) * per_sample);

        const Array padded = pad_sample(d, sample);
        std::vector<Array> outputs;
        for (std::int64_t g = 0; g < d.groups; ++g)
            outputs.push_back(convolve_full_overlap(segment(padded, g, d.groups), segment(stretched, g, d.groups)));
        Array out = keep_multiples_of_stride(d, regroup(outputs));
        if (d.has_bias) add_bias(out, bias);

        if (n == 0) {
            result.dst_dims = {d.batch};
            result.dst_dims.insert(result.dst_dims.end(), out.shape.begin(), out.shape.end());
        }
        result.dst.insert(result.dst.end(), out.values.begin(), out.values.end());
    }
    return result;
}

}  // namespace convcheck::reference
