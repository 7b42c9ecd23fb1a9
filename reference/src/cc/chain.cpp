#include "convcheck/reference/cc/chain.hpp"

namespace convcheck::reference::cc {

std::vector<Shape2> chain_output_shapes(const Shape2& input_shape, const std::vector<Scale2>& scales,
                                        const Scale2& target_scale) {
    if (scales.empty()) throw ConvError("scales", "(none)", "a chain needs at least one layer");
    for (int a = 0; a < 2; ++a) {
        if (input_shape[a] < 1)
            throw ConvError("input_shape[" + std::to_string(a) + "]", std::to_string(input_shape[a]), "must be >= 1");
        if (target_scale[a] <= Rational(0))
            throw ConvError("target_scale[" + std::to_string(a) + "]", target_scale[a].to_string(), "must be > 0");
    }
    std::vector<Shape2> shapes;
    Scale2 product{Rational(1), Rational(1)};
    for (std::size_t j = 0; j < scales.size(); ++j) {
        Shape2 shape{};
        for (int a = 0; a < 2; ++a) {
            if (scales[j][a] <= Rational(0))
                throw ConvError("scales[" + std::to_string(j) + "][" + std::to_string(a) + "]", scales[j][a].to_string(),
                                "must be > 0");
            product[a] = product[a] * scales[j][a];  // prod_{i <= j} s_i
            const bool last = j + 1 == scales.size();
            // not last: ceil(input_shape * prod s_i); last: input_shape * target_scale
            shape[a] = ((last ? target_scale[a] : product[a]) * Rational(input_shape[a])).ceil();
        }
        shapes.push_back(shape);
    }
    return shapes;
}

CcDescriptor chain_layer(const CcDescriptor& base, const Shape2& input_shape, const std::vector<Scale2>& scales,
                         const Scale2& target_scale, std::size_t j) {
    const std::vector<Shape2> shapes = chain_output_shapes(input_shape, scales, target_scale);
    if (j >= shapes.size())
        throw ConvError("layer", std::to_string(j), "must be below the chain length " + std::to_string(shapes.size()));
    CcDescriptor d = base;
    for (int a = 0; a < 2; ++a) {
        d.input_size[a] = j == 0 ? input_shape[a] : shapes[j - 1][a];
        d.scale[a] = CcScale::exact(scales[j][a]);
        d.output_size[a] = shapes[j][a];
    }
    validate(d);
    return d;
}

}  // namespace convcheck::reference::cc
