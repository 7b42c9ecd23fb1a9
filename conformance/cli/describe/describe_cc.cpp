// `convcheck describe 'cc:...'` (see describe_cc.hpp). Every number comes from the CC reference:
// the grid from projected_grid, the windows from neighbour_window, the margin from window_edge_margin.
#include "describe_cc.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"

namespace convcheck::cli {

namespace {

using nlohmann::json;
namespace cc = convcheck::reference::cc;

constexpr const char* kAxisName[2] = {"h", "w"};
constexpr std::size_t kTextPoints = 12;  // the text lists this many outputs per axis; --json lists all

std::string grid_point(const cc::GridAxis& axis, std::size_t n) {
    char value[32];
    std::snprintf(value, sizeof value, "%.6g", axis.points[n]);
    if (!axis.exact) return value;
    const std::string exact = axis.exact_points[n].to_string();
    return exact == value ? exact : exact + " (" + value + ")";
}

// The rational scale p/q repeats its grid every p outputs, shifted by q input pixels (seed 004, Sec. 4).
std::string period(const CcScale& scale) {
    if (!scale.is_rational()) return "";
    return "; period " + std::to_string(scale.numerator) + " (g[n+" + std::to_string(scale.numerator) + "] = g[n] + " +
           std::to_string(scale.denominator) + ")";
}

std::int64_t outside(const cc::AxisWindow& window, std::int64_t n, std::int64_t input_size) {
    std::int64_t count = 0;
    for (std::int64_t j = 0; j < window.support; ++j) {
        const std::int64_t m = window.first[n] + j;
        count += (m < 0 || m >= input_size);
    }
    return count;
}

void print_text(const std::string& input, const CcDescriptor& d, const cc::ProjectedGrid& grid,
                const cc::AxisWindow (&windows)[2]) {
    std::printf("cc         %s\n", input.c_str());
    std::printf("canonical  %s\n", to_string(d).c_str());
    std::printf("output     %lldx%lld  (shape [%lld, %lld, %lld, %lld] in NCHW)\n", (long long)d.output_size[0],
                (long long)d.output_size[1], (long long)d.batch, (long long)d.out_channels, (long long)d.output_size[0],
                (long long)d.output_size[1]);
    std::printf("kernel     %s, support %lldx%lld: %lld neighbours per output\n", std::string(to_string(d.kernel)).c_str(),
                (long long)d.support[0], (long long)d.support[1], (long long)d.neighbours());
    std::printf("margin     %.6g  (the closest a grid point comes to a window edge)\n", cc::window_edge_margin(d));
    for (int a = 0; a < 2; ++a) {
        const cc::GridAxis& axis = grid.axes[a];
        std::printf("\naxis %s     in %lld, scale %s, out %lld%s\n", kAxisName[a], (long long)axis.input_size,
                    d.scale[a].to_string().c_str(), (long long)axis.output_size, period(d.scale[a]).c_str());
        std::printf("  %-6s %-26s %s\n", "n", "grid g_n (Eq. 2)", "window of input pixels [first, last]");
        for (std::size_t n = 0; n < axis.points.size(); ++n) {
            if (n == kTextPoints && axis.points.size() > kTextPoints + 1) {
                std::printf("  ...    (%zu more; --json lists every point)\n", axis.points.size() - n);
                break;
            }
            const std::int64_t first = windows[a].first[n], last = first + windows[a].support - 1;
            const std::int64_t out_of_range = outside(windows[a], static_cast<std::int64_t>(n), axis.input_size);
            std::printf("  %-6zu %-26s [%lld, %lld]%s\n", n, grid_point(axis, n).c_str(), (long long)first,
                        (long long)last,
                        out_of_range ? ("  " + std::to_string(out_of_range) + " outside the input (zeros)").c_str() : "");
        }
    }
}

json axis_json(const CcDescriptor& d, int a, const cc::GridAxis& axis, const cc::AxisWindow& window) {
    json j = {{"axis", kAxisName[a]},
              {"input_size", axis.input_size},
              {"output_size", axis.output_size},
              {"scale", d.scale[a].to_string()},
              {"support", window.support},
              {"grid", axis.points}};
    if (axis.exact) {
        std::vector<std::string> exact;
        for (const auto& g : axis.exact_points) exact.push_back(g.to_string());
        j["grid_exact"] = exact;
    }
    json windows = json::array();
    for (std::size_t n = 0; n < window.first.size(); ++n)
        windows.push_back({{"first", window.first[n]},
                           {"last", window.first[n] + window.support - 1},
                           {"outside", outside(window, static_cast<std::int64_t>(n), axis.input_size)}});
    j["windows"] = windows;
    return j;
}

}  // namespace

void describe_cc(const std::string& input, bool as_json) {
    const CcDescriptor d = parse_cc_descriptor(input);
    const cc::ProjectedGrid grid = cc::projected_grid(d);
    const cc::AxisWindow windows[2] = {cc::neighbour_window(grid.axes[0], d.support[0]),
                                       cc::neighbour_window(grid.axes[1], d.support[1])};
    if (!as_json) {
        print_text(input, d, grid, windows);
        return;
    }
    json j = {{"input", {{"descriptor", input}}},
              {"canonical", to_string(d)},
              {"output_size", {d.output_size[0], d.output_size[1]}},
              {"output_shape", d.dst_dims()},
              {"data_layout", "NCHW"},
              {"kernel", std::string(to_string(d.kernel))},
              {"neighbours", d.neighbours()},
              {"window_edge_margin", cc::window_edge_margin(d)},
              {"axes", {axis_json(d, 0, grid.axes[0], windows[0]), axis_json(d, 1, grid.axes[1], windows[1])}}};
    std::printf("%s\n", j.dump(2).c_str());
}

}  // namespace convcheck::cli
