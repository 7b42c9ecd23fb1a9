#include "convcheck/runner/shrink_cc.hpp"

#include <algorithm>
#include <stdexcept>

#include "convcheck/runner/cc_window_margin.hpp"

namespace convcheck::runner {

namespace {

// Halving, minus one, and one: the values below v worth trying, largest reduction first.
std::vector<std::int64_t> smaller_values(std::int64_t v) {
    std::vector<std::int64_t> out;
    for (std::int64_t c : {std::int64_t(1), v / 2, v - 1})
        if (c >= 1 && c < v && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    return out;
}

}  // namespace

std::vector<CcDescriptor> smaller_cc_descriptors(const CcDescriptor& d, accuracy::Mode mode) {
    std::vector<CcDescriptor> out;
    auto push = [&](const CcDescriptor& c) {
        try {
            validate(c);
            if (!ambiguous_real_scale_window(c, mode).empty()) return;
        } catch (const ConvError&) {
            return;
        } catch (const std::overflow_error&) {  // cc_ceil out of range: not a layer worth trying
            return;
        }
        if (!(c == d) && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    };
    if (d.batch > 1) {
        auto c = d;
        c.batch = 1;
        push(c);
    }
    for (std::int64_t v : smaller_values(d.in_channels)) {
        auto c = d;
        c.in_channels = v;
        push(c);
    }
    for (std::int64_t v : smaller_values(d.out_channels)) {
        auto c = d;
        c.out_channels = v;
        push(c);
    }
    for (int a = 0; a < 2; ++a) {
        // The output size follows the scale unless the layer gave it explicitly (a bug may live there).
        const bool explicit_output = d.output_size[a] != cc_default_output_size(d.scale[a], d.input_size[a]);
        for (std::int64_t v : smaller_values(d.input_size[a])) {
            auto c = d;
            c.input_size[a] = v;
            if (explicit_output) push(c);
            c.output_size[a] = cc_default_output_size(d.scale[a], v);
            push(c);
        }
        if (explicit_output)
            for (std::int64_t v : smaller_values(d.output_size[a])) {
                auto c = d;
                c.output_size[a] = v;
                push(c);
            }
        if (!(d.scale[a] == CcScale::exact(Rational(1)))) {
            auto c = d;
            c.scale[a] = CcScale::exact(Rational(1));
            c.output_size[a] = d.input_size[a];
            push(c);
        }
        for (std::int64_t v : smaller_values(d.support[a])) {
            auto c = d;
            c.support[a] = v;
            push(c);
        }
    }
    if (d.kernel == CcKernel::internal_net) {
        auto c = d;
        c.kernel = CcKernel::linear;  // no theta at all
        push(c);
        for (int layer = 0; layer < 2; ++layer)
            for (std::int64_t v : smaller_values(d.hidden_widths[layer])) {
                auto n = d;
                n.hidden_widths[layer] = v;
                push(n);
            }
    }
    if (d.has_bias) {
        auto c = d;
        c.has_bias = false;
        push(c);
    }
    return out;
}

}  // namespace convcheck::runner
