// The StableHLO convolution verifier shared by the forward and transposed readings (stablehlo_window.hpp).
#include "stablehlo_window.hpp"

#include <algorithm>

namespace convcheck::reference::dialects::stablehlo::detail {

using namespace dialects::detail;

std::string spatial_digits(int rank) {
    std::string s;
    for (int a = 0; a < rank; ++a) s += static_cast<char>('0' + a);
    return s;
}

namespace {
// One part of dim_labels: every letter of `letters` once and the spatial digits 0..rank-1 once (C13,
// C18, C20: unique, in range).
void check_labels(const std::string& part, const std::string& letters, int rank, const std::string& all) {
    const std::string expected = letters + spatial_digits(rank);
    std::string sorted_part = part, sorted_expected = expected;
    std::sort(sorted_part.begin(), sorted_part.end());
    std::sort(sorted_expected.begin(), sorted_expected.end());
    if (sorted_part != sorted_expected)
        refuse_ours("dim_labels", all,
                    "'" + part + "' must hold each of " + letters + " and the spatial dimensions " + spatial_digits(rank) +
                        " exactly once (C13, C18, C20), e.g. b01f_01io->b01f");
}


Layouts read_dim_labels(const std::string& text, int rank) {
    const std::size_t underscore = text.find('_'), arrow = text.find("->");
    if (underscore == std::string::npos || arrow == std::string::npos || arrow < underscore)
        refuse_ours("dim_labels", text, "written <input>_<kernel>-><output>, e.g. b01f_01io->b01f (XLA's dim_labels)");
    const std::string input = text.substr(0, underscore), kernel = text.substr(underscore + 1, arrow - underscore - 1),
                      output = text.substr(arrow + 2);
    check_labels(input, "bf", rank, text);
    check_labels(kernel, "io", rank, text);
    check_labels(output, "bf", rank, text);
    const std::string digits = spatial_digits(rank);
    Layouts l;
    if (input == "bf" + digits) {
        l.data = DataFormat::ncx;
    } else if (input == "b" + digits + "f") {
        l.data = DataFormat::nxc;
    } else {
        refuse_ours("dim_labels", text,
                    "the input layout '" + input + "' is neither bf" + digits + " (NCX) nor b" + digits +
                        "f (NXC): no canonical data format stores it");
    }
    if (output != input)
        refuse_ours("dim_labels", text,
                    "the output layout '" + output + "' differs from the input's '" + input +
                        "': the canonical descriptor has one data format for src and dst");
    l.data_name = input;
    l.filter_name = kernel;
    if (kernel == "oi" + digits) {
        l.filter = FilterFormat::oix;
    } else if (kernel == digits + "io") {
        l.filter = FilterFormat::xio;
    } else {
        l.filter = FilterFormat::oix;
        l.filter_reordered = true;
    }
    return l;
}

// C2, C4, C5, C7, C9: "expects <name> to have same dimension-size as size of window dimensions (R), but got: n."
void check_size(const char* attribute, const char* name, std::size_t size, int rank, const std::string& value) {
    if (size != 0 && size != static_cast<std::size_t>(rank))
        refuse(attribute, value,
               std::string("expects ") + name + " to have same dimension-size as size of window dimensions (" +
                   std::to_string(rank) + "), but got: " + std::to_string(size) + ".");
}
}  // namespace

ConvolutionAttributes read_attributes(const AttributeSet& attributes, const char* dialect) {
    Reader reader(attributes, dialect);
    ConvolutionAttributes a;
    a.shapes = read_shapes(reader, true);
    const std::vector<std::int64_t> none;
    a.window_strides = reader.list("window_strides").value_or(none);
    a.padding = reader.list("padding").value_or(none);
    a.lhs_dilation = reader.list("lhs_dilation").value_or(none);
    a.rhs_dilation = reader.list("rhs_dilation").value_or(none);
    a.window_reversal = reader.boolean_list("window_reversal").value_or(std::vector<bool>{});
    a.dim_labels = reader.text("dim_labels").value_or("");
    a.feature_group_count = reader.integer("feature_group_count").value_or(1);
    a.batch_group_count = reader.integer("batch_group_count").value_or(1);
    reader.refuse_unknown_keys();
    return a;
}

Window verify(const ConvolutionAttributes& attr) {
    const ConvShapes& s = attr.shapes;
    require_in_range(s);
    for (auto* v : {&attr.window_strides, &attr.padding, &attr.lhs_dilation, &attr.rhs_dilation})
        require_in_range("attribute", *v);
    require_in_range("attribute", std::vector<std::int64_t>{attr.feature_group_count, attr.batch_group_count});
    const int rank = s.rank();
    if (static_cast<int>(s.kernel_size.size()) != rank) refuse_ours("k", join(s.kernel_size), "one per spatial axis");
    const Layouts layouts =
        read_dim_labels(attr.dim_labels.empty() ? "bf" + spatial_digits(rank) + "_oi" + spatial_digits(rank) + "->bf" +
                                                      spatial_digits(rank)
                                                : attr.dim_labels,
                        rank);

    // ODS: ConfinedAttr<I64Attr, [IntPositive]> (C21, C22)
    for (auto [name, v] : {std::pair{"feature_group_count", attr.feature_group_count},
                           std::pair{"batch_group_count", attr.batch_group_count}})
        if (v < 1)
            refuse(name, std::to_string(v),
                   std::string("op attribute '") + name +
                       "' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive");
    // verifyConvolutionAttributes: C23, C10, C11, C15, C16 (C14 holds by construction)
    const std::int64_t g = attr.feature_group_count, bg = attr.batch_group_count;
    if (bg > 1 && g > 1)
        refuse("batch_group_count", std::to_string(bg),
               "expects batch_group_count and feature_group_count not to be both greater than 1. Got " +
                   std::to_string(bg) + " and " + std::to_string(g) + " resp.");
    if (s.batch % bg != 0)
        refuse("batch_group_count", std::to_string(bg),
               "expects input batch dimension (" + std::to_string(s.batch) +
                   ") to be divisible by batch_group_count. Got batch_group_count = " + std::to_string(bg) + ".");
    if (s.in_channels % g != 0)
        refuse("feature_group_count", std::to_string(g),
               "expects input feature dimension (" + std::to_string(s.in_channels) +
                   ") to be a multiple of feature_group_count. Got feature_group_count = " + std::to_string(g) + ".");
    if (s.out_channels % bg != 0)
        refuse("batch_group_count", std::to_string(bg),
               "expects output feature dimension size (" + std::to_string(s.out_channels) +
                   ") to be a multiple of batch_group_count. Got batch_group_count = " + std::to_string(bg) + ".");
    if (s.out_channels % g != 0)
        refuse("feature_group_count", std::to_string(g),
               "expects kernel output feature dimension (" + std::to_string(s.out_channels) +
                   ") to be divisible by feature_group_count. For feature_group_count = " + std::to_string(g) + ".");

    // verifyWindowAttributesAndInferWindowDimensions: C2, C5, C7, C4, C9, then per axis
    check_size("window_strides", "window-strides", attr.window_strides.size(), rank, join(attr.window_strides));
    check_size("lhs_dilation", "base-dilation factors", attr.lhs_dilation.size(), rank, join(attr.lhs_dilation));
    check_size("rhs_dilation", "window-dilation factors", attr.rhs_dilation.size(), rank, join(attr.rhs_dilation));
    if (attr.padding.size() % 2 != 0)
        refuse_ours("padding", join(attr.padding), "a [low, high] pair per spatial axis (C4: shape [N-2, 2])");
    check_size("padding", "padding-entries", attr.padding.size() / 2, rank, join(attr.padding));
    check_size("window_reversal", "window-reversal", attr.window_reversal.size(), rank,
               std::to_string(attr.window_reversal.size()) + " values");
    const auto strides = attr.window_strides.empty() ? repeat(1, rank) : attr.window_strides;
    const auto lhs_dilation = attr.lhs_dilation.empty() ? repeat(1, rank) : attr.lhs_dilation;
    const auto rhs_dilation = attr.rhs_dilation.empty() ? repeat(1, rank) : attr.rhs_dilation;
    const auto padding = attr.padding.empty() ? repeat(0, 2 * rank) : attr.padding;
    for (int a = 0; a < rank; ++a) {
        const std::string i = std::to_string(a);
        if (s.kernel_size[a] <= 0)
            refuse("k", join(s.kernel_size),
                   "expects window to have positive value for " + i + "-th window dimension, but got " +
                       std::to_string(s.kernel_size[a]) + ".");
        if (strides[a] <= 0)
            refuse("window_strides", join(strides),
                   "expects window to have positive stride for " + i + "-th window dimension, but got " +
                       std::to_string(strides[a]) + ".");
        if (lhs_dilation[a] <= 0)
            refuse("lhs_dilation", join(lhs_dilation),
                   "expects window to have positive base dilation factor for " + i +
                       "-th window dimension, but got " + std::to_string(lhs_dilation[a]) + ".");
        if (rhs_dilation[a] <= 0)
            refuse("rhs_dilation", join(rhs_dilation),
                   "expects window to have positive window dilation factor for " + i +
                       "-th window dimension, but got " + std::to_string(rhs_dilation[a]) + ".");
    }
    return Window{layouts, strides, lhs_dilation, rhs_dilation, padding};
}

}  // namespace convcheck::reference::dialects::stablehlo::detail
