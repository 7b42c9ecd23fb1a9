// The dialects' shared plumbing: attribute text, typed getters, and the checked conclusion.
#include "common.hpp"

#include <charconv>
#include <stdexcept>

namespace convcheck::reference::dialects {

AttributeSet parse_attributes(std::string_view text) {
    AttributeSet attributes;
    std::size_t i = 0;
    auto is_separator = [](char c) { return c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\n'; };
    while (i < text.size()) {
        if (is_separator(text[i])) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && !is_separator(text[end])) ++end;
        const std::string_view item = text.substr(i, end - i);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw ConvError("attributes", std::string(item), "every item is key=value (e.g. strides=2x2)");
        std::string key(item.substr(0, eq)), value(item.substr(eq + 1));
        // quotes around a value are the user's shell habit, not part of the value: 'same' -> same
        if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front())
            value = value.substr(1, value.size() - 2);
        if (attributes.count(key)) throw ConvError(key, value, "the attribute appears twice");
        attributes.emplace(std::move(key), std::move(value));
        i = end;
    }
    return attributes;
}

std::string to_string(const AttributeSet& attributes) {
    std::string s;
    for (const auto& [key, value] : attributes) {
        if (!s.empty()) s += ',';
        s += key + "=" + value;
    }
    return s;
}

std::string_view to_string(PaddingRequest padding) {
    switch (padding) {
        case PaddingRequest::explicit_pads: return "explicit";
        case PaddingRequest::valid: return "valid";
        case PaddingRequest::same_upper: return "same_upper";
        case PaddingRequest::same_lower: return "same_lower";
    }
    return "?";
}

Request request_from_descriptor(const ConvDescriptor& d) {
    Request r;
    r.rank = d.rank;
    r.batch = d.batch;
    r.in_channels = d.in_channels;
    r.out_channels = d.out_channels;
    r.groups = d.groups;
    r.input_size = d.input_size;
    r.kernel_size = d.kernel_size;
    r.strides = d.strides;
    r.dilations = d.dilations;
    r.padding = PaddingRequest::explicit_pads;
    r.pads_begin = d.pads_begin;
    r.pads_end = d.pads_end;
    r.data_format = d.data_format;
    r.filter_format = d.filter_format;
    return r;
}

namespace detail {

void refuse(std::string attribute, std::string value, std::string message, bool framework_wording) {
    throw Refusal{DialectError{std::move(attribute), std::move(value), std::move(message), framework_wording}};
}

Reader::Reader(const AttributeSet& attributes, std::string dialect)
    : attributes_(attributes), dialect_(std::move(dialect)) {}

std::optional<std::string> Reader::text(const std::string& key) {
    asked_.insert(key);
    auto it = attributes_.find(key);
    if (it == attributes_.end()) return std::nullopt;
    return it->second;
}

namespace {
std::optional<std::int64_t> parse_int(std::string_view text) {
    if (!text.empty() && text[0] == '+') text.remove_prefix(1);
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return v;
}

std::vector<std::string_view> split_list(std::string_view text) {
    // '(' ')' '[' ']' around a list are decoration: (3:3:1), [1,1]
    while (!text.empty() && (text.front() == '(' || text.front() == '[' || text.front() == '{')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ')' || text.back() == ']' || text.back() == '}')) text.remove_suffix(1);
    std::vector<std::string_view> items;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == 'x' || text[i] == ':') {
            items.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    return items;
}
}  // namespace

std::optional<std::int64_t> Reader::integer(const std::string& key) {
    auto t = text(key);
    if (!t) return std::nullopt;
    auto v = parse_int(*t);
    if (!v) refuse_ours(key, *t, "must be an integer (" + dialect_ + ")");
    require_in_range(key, *v);
    return v;
}

std::optional<std::vector<std::int64_t>> Reader::list(const std::string& key) {
    auto t = text(key);
    if (!t) return std::nullopt;
    std::vector<std::int64_t> values;
    for (auto item : split_list(*t)) {
        auto v = parse_int(item);
        if (!v) refuse_ours(key, *t, "must be a list of integers separated by 'x' or ':' (" + dialect_ + ")");
        values.push_back(*v);
    }
    if (values.size() > 16) refuse_ours(key, *t, "has more than 16 items");
    require_in_range(key, values);
    return values;
}

namespace {
std::optional<bool> parse_bool(std::string_view t) {
    if (t == "true" || t == "True" || t == "1") return true;
    if (t == "false" || t == "False" || t == "0") return false;
    return std::nullopt;
}
}  // namespace

std::optional<bool> Reader::boolean(const std::string& key) {
    auto t = text(key);
    if (!t) return std::nullopt;
    auto v = parse_bool(*t);
    if (!v) refuse_ours(key, *t, "must be true or false (" + dialect_ + ")");
    return v;
}

std::optional<std::vector<bool>> Reader::boolean_list(const std::string& key) {
    auto t = text(key);
    if (!t) return std::nullopt;
    std::vector<bool> values;
    for (auto item : split_list(*t)) {
        auto v = parse_bool(item);
        if (!v) refuse_ours(key, *t, "must be a list of true/false separated by ':' (" + dialect_ + ")");
        values.push_back(*v);
    }
    return values;
}

void Reader::refuse_unknown_keys() const {
    for (const auto& [key, value] : attributes_) {
        if (asked_.count(key)) continue;
        std::string known;
        for (const auto& k : asked_) known += (known.empty() ? "" : " ") + k;
        refuse_ours(key, value, "unknown attribute for the " + dialect_ + " dialect (known: " + known + ")");
    }
}

void require_in_range(const std::string& name, std::int64_t value) {
    if (value > kMaxMagnitude || value < -kMaxMagnitude)
        refuse_ours(name, std::to_string(value), "out of range: convcheck reads values with |value| <= 2^30");
}

void require_in_range(const std::string& name, const std::vector<std::int64_t>& values) {
    for (auto v : values)
        if (v > kMaxMagnitude || v < -kMaxMagnitude)
            refuse_ours(name, join(values), "out of range: convcheck reads values with |value| <= 2^30");
}

void require_in_range(const ConvShapes& s) {
    require_in_range("n", s.batch);
    require_in_range("c", s.in_channels);
    require_in_range("o", s.out_channels);
    require_in_range("in", s.input_size);
    require_in_range("k", s.kernel_size);
    if (s.input_size.empty() || s.input_size.size() > static_cast<std::size_t>(kMaxSpatialRank))
        refuse_ours("in", join(s.input_size), "1 to 3 spatial sizes (the rank)");
}

ConvShapes read_shapes(Reader& reader, bool kernel_required) {
    ConvShapes s;
    s.batch = reader.integer("n").value_or(1);
    s.in_channels = reader.integer("c").value_or(1);
    s.out_channels = reader.integer("o").value_or(1);
    auto in = reader.list("in");
    if (!in) refuse_ours("in", "(missing)", "the spatial input sizes are required, e.g. in=7x7");
    if (in->empty() || in->size() > static_cast<std::size_t>(kMaxSpatialRank))
        refuse_ours("in", join(*in), "1 to 3 spatial sizes (the rank)");
    s.input_size = *in;
    if (auto k = reader.list("k")) {
        if (k->size() == 1) k->assign(in->size(), (*k)[0]);
        if (k->size() != in->size())
            refuse_ours("k", join(*k), "one kernel size per spatial axis of in=" + join(*in) + " (or one for all)");
        s.kernel_size = *k;
    } else if (kernel_required) {
        refuse_ours("k", "(missing)", "the spatial kernel sizes are required, e.g. k=3x3");
    }
    for (auto [name, v] : {std::pair{"n", s.batch}, {"c", s.in_channels}, {"o", s.out_channels}})
        if (v < 1) refuse_ours(name, std::to_string(v), "must be a positive integer");
    for (auto v : s.input_size)
        if (v < 1) refuse_ours("in", join(s.input_size), "every spatial input size must be >= 1");
    return s;
}

std::string join(const std::vector<std::int64_t>& values, char separator) {
    std::string s;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) s += separator;
        s += std::to_string(values[i]);
    }
    return s;
}

std::string join(const SpatialDims& values, int rank, char separator) {
    return join(std::vector<std::int64_t>(values.begin(), values.begin() + rank), separator);
}

std::vector<std::int64_t> repeat(std::int64_t value, int rank) { return std::vector<std::int64_t>(rank, value); }

std::int64_t trunc_div(std::int64_t a, std::int64_t b) { return a / b; }
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    const std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

void fill_spatial(SpatialDims* out, const std::vector<std::int64_t>& values, std::int64_t neutral) {
    out->fill(neutral);
    for (std::size_t a = 0; a < values.size(); ++a) (*out)[a] = values[a];
}

ConvDescriptor make_descriptor(const ConvShapes& shapes, std::int64_t groups, const AxisAttributes& g,
                               DataFormat data_format, FilterFormat filter_format) {
    return descriptor_from<ConvDescriptor>(shapes, groups, g, data_format, filter_format);
}

Request make_request(const ConvShapes& shapes, std::int64_t groups, const AxisAttributes& g, PaddingRequest padding,
                     DataFormat data_format) {
    const ConvDescriptor d = make_descriptor(shapes, groups, g, data_format, FilterFormat::oix);
    Request r = request_from_descriptor(d);
    r.padding = padding;
    if (padding != PaddingRequest::explicit_pads) r.pads_begin = r.pads_end = SpatialDims{0, 0, 0};
    return r;
}

bool has_unshared_weights(const Request& q, std::string_view framework, std::string* why_not) {
    for (int a = 0; a < q.rank; ++a)
        if (!q.weights_shared[a]) {
            *why_not = std::string(framework) + " has no unshared weights (a locally connected layer)";
            return true;
        }
    return false;
}

DialectResult conclude(DialectResult result, const std::vector<std::int64_t>& output_size) {
    result.output_size = output_size;
    result.request.data_format = result.descriptor.data_format;
    result.request.filter_format = result.descriptor.filter_format;
    for (auto o : output_size)
        if (o == 0) {
            result.empty_output = true;
            return result;
        }
    try {
        validate(result.descriptor);
    } catch (const ConvError& e) {
        refuse_ours(e.attribute(), e.value(), e.rule());
    }
    for (int a = 0; a < result.descriptor.rank; ++a)
        if (result.descriptor.output_size(a) != output_size[a])
            throw std::logic_error("dialect " + result.dialect + ": framework output size " +
                                   std::to_string(output_size[a]) + " on axis " + std::to_string(a) +
                                   " differs from the canonical descriptor's " + to_string(result.descriptor));
    return result;
}

}  // namespace detail

}  // namespace convcheck::reference::dialects
