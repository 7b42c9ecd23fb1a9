// Internal to the dialects: reading an attribute set, refusing with a framework's error, and turning
// a framework's pads and output sizes into a checked DialectResult.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::detail {

// Thrown inside a dialect's reading, caught at its edge and returned as DialectResult::error.
struct Refusal {
    DialectError error;
};
[[noreturn]] void refuse(std::string attribute, std::string value, std::string message,
                         bool framework_wording = true);
// convcheck's words, for the cases a framework defines no error for.
[[noreturn]] inline void refuse_ours(std::string attribute, std::string value, std::string message) {
    refuse(std::move(attribute), std::move(value), std::move(message), false);
}

// Typed getters over an attribute set. Malformed values are refused in convcheck's words (the
// frameworks take typed values, so a malformed text is never theirs to refuse).
class Reader {
public:
    Reader(const AttributeSet& attributes, std::string dialect);
    bool has(const std::string& key) const { return attributes_.count(key) != 0; }
    std::optional<std::string> text(const std::string& key);
    std::optional<std::int64_t> integer(const std::string& key);
    std::optional<std::vector<std::int64_t>> list(const std::string& key);
    std::optional<bool> boolean(const std::string& key);                 // true/false/1/0
    std::optional<std::vector<bool>> boolean_list(const std::string& key);
    // Refuses the first key no getter asked for.
    void refuse_unknown_keys() const;

private:
    const AttributeSet& attributes_;
    std::string dialect_;
    std::set<std::string> asked_;
};

// Every integer a dialect reads is bounded (|v| <= 2^30) so that the frameworks' formulas, products of
// two values plus a few sums, stay far inside 64 bits: refused in convcheck's words otherwise.
inline constexpr std::int64_t kMaxMagnitude = std::int64_t{1} << 30;
void require_in_range(const std::string& name, const std::vector<std::int64_t>& values);
void require_in_range(const std::string& name, std::int64_t value);
void require_in_range(const ConvShapes& shapes);

// The shape keys every dialect shares: n, c, o, in, k (see dialect.hpp).
ConvShapes read_shapes(Reader& reader, bool kernel_required);

std::string join(const std::vector<std::int64_t>& values, char separator = 'x');
std::string join(const SpatialDims& values, int rank, char separator = 'x');

// Sizes (a Request, a TransposedDescriptor) in the shape keys n, c, o, in, k, as read_shapes reads them
// back: the start of each dialect's spelling.
template <class Sizes>
AttributeSet spell_shapes(const Sizes& s) {
    AttributeSet a;
    a["n"] = std::to_string(s.batch);
    a["c"] = std::to_string(s.in_channels);
    a["o"] = std::to_string(s.out_channels);
    a["in"] = join(s.input_size, s.rank);
    a["k"] = join(s.kernel_size, s.rank);
    return a;
}

std::vector<std::int64_t> repeat(std::int64_t value, int rank);

// Integer division, spelled out: C truncates toward zero, floor and ceil are mathematical.
std::int64_t trunc_div(std::int64_t a, std::int64_t b);
std::int64_t floor_div(std::int64_t a, std::int64_t b);
std::int64_t ceil_div(std::int64_t a, std::int64_t b);

// `values` into the first axes of `out`, `neutral` in the rest.
void fill_spatial(SpatialDims* out, const std::vector<std::int64_t>& values, std::int64_t neutral);

// The canonical descriptor with the given per-axis attributes (vectors of length shapes.rank()).
struct AxisAttributes {
    std::vector<std::int64_t> strides, dilations, pads_begin, pads_end;  // dilations 1-based
};
ConvDescriptor make_descriptor(const ConvShapes& shapes, std::int64_t groups, const AxisAttributes& geometry,
                               DataFormat data_format, FilterFormat filter_format);
// The fields a forward and a transposed descriptor share, from the shapes and a geometry (AxisAttributes or
// TransposedAxisAttributes, which adds output_padding): make_descriptor and make_transposed both start here.
template <typename Descriptor, typename AnyGeometry>
Descriptor descriptor_from(const ConvShapes& shapes, std::int64_t groups, const AnyGeometry& g, DataFormat data_format,
                           FilterFormat filter_format) {
    Descriptor d;
    d.rank = shapes.rank();
    d.batch = shapes.batch;
    d.in_channels = shapes.in_channels;
    d.out_channels = shapes.out_channels;
    d.groups = groups;
    fill_spatial(&d.input_size, shapes.input_size, 1);
    fill_spatial(&d.kernel_size, shapes.kernel_size, 1);
    fill_spatial(&d.strides, g.strides, 1);
    fill_spatial(&d.dilations, g.dilations, 1);
    fill_spatial(&d.pads_begin, g.pads_begin, 0);
    fill_spatial(&d.pads_end, g.pads_end, 0);
    d.data_format = data_format;
    d.filter_format = filter_format;
    return d;
}
Request make_request(const ConvShapes& shapes, std::int64_t groups, const AxisAttributes& geometry,
                     PaddingRequest padding, DataFormat data_format);

// For a spell(): true (with *why_not set) when the request has unshared weights, which only CNTK says.
bool has_unshared_weights(const Request& request, std::string_view framework, std::string* why_not);

// Checks and packs a framework's reading. `output_size` is what the framework computes per axis:
// an output size of 0 is the empty-output outcome; otherwise the descriptor is validated (a
// ConvError becomes a refusal in convcheck's words) and must give the same output sizes.
DialectResult conclude(DialectResult result, const std::vector<std::int64_t>& output_size);

// Runs `body` (which fills and returns a DialectResult) and turns a Refusal into result.error.
template <class Body>
DialectResult guarded(std::string_view dialect, Body body) {
    try {
        return body();
    } catch (const Refusal& refusal) {
        DialectResult r;
        r.dialect = std::string(dialect);
        r.error = refusal.error;
        return r;
    }
}

}  // namespace convcheck::reference::dialects::detail
