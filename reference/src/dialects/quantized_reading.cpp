// Reading scales and wide integers for the quantized dialects (quantized_reading.hpp).
#include "quantized_reading.hpp"

#include <charconv>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::reference::dialects::detail {

namespace {

std::vector<std::string_view> split(std::string_view text, bool x_separates) {
    std::vector<std::string_view> items;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i)
        if (i == text.size() || text[i] == ':' || (x_separates && text[i] == 'x')) {
            items.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    return items;
}

}  // namespace

std::optional<std::vector<float>> f32_list(Reader& reader, const std::string& key) {
    const auto t = reader.text(key);
    if (!t) return std::nullopt;
    std::vector<float> values;
    for (std::string_view item : split(*t, false)) {
        float v = 0.0f;
        const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || error != std::errc() || end != item.data() + item.size())
            refuse_ours(key, *t, "must be a decimal number, or a list of them separated by ':'");
        values.push_back(v);
    }
    if (values.size() > 4096) refuse_ours(key, *t, "has more than 4096 items");
    return values;
}

std::optional<std::vector<std::int64_t>> wide_list(Reader& reader, const std::string& key, std::int64_t lowest,
                                                   std::int64_t highest) {
    const auto t = reader.text(key);
    if (!t) return std::nullopt;
    std::vector<std::int64_t> values;
    for (std::string_view item : split(*t, true)) {
        if (!item.empty() && item[0] == '+') item.remove_prefix(1);
        std::int64_t v = 0;
        const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || error != std::errc() || end != item.data() + item.size())
            refuse_ours(key, *t, "must be an integer, or a list of them separated by ':' or 'x'");
        if (v < lowest || v > highest)
            refuse_ours(key, *t, "each value must lie in [" + std::to_string(lowest) + ", " + std::to_string(highest) + "]");
        values.push_back(v);
    }
    if (values.size() > 4096) refuse_ours(key, *t, "has more than 4096 items");
    return values;
}

QuantizedResult conclude_quantized(QuantizedResult result) {
    try {
        validate(result.descriptor);
    } catch (const ConvError& e) {
        refuse_ours(e.attribute(), e.value(), e.rule());
    }
    return result;
}

}  // namespace convcheck::reference::dialects::detail
