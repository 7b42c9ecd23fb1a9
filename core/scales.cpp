// Scales on a float convolution (scales.hpp): the keys' text, their rules, and the drawn per-channel scales.
#include "convcheck/core/scales.hpp"

#include <charconv>
#include <cmath>
#include <random>

#include "convcheck/core/descriptor.hpp"

namespace convcheck {

namespace {

// A float as the shortest decimal that reads back as the same float.
std::string float_text(float v) {
    char text[32];
    const auto [end, error] = std::to_chars(text, text + sizeof(text), v);
    return std::string(text, end);
}

float parse_float(std::string_view key, const std::string& text) {
    float v = 0.0f;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
        throw ConvError(std::string(key), text, "a scale is a decimal number (wsc also takes oc or a:b:...)");
    return v;
}

void check_scale(const char* key, float scale) {
    if (!(scale > 0.0f) || !std::isfinite(scale))
        throw ConvError(key, float_text(scale), "a scale is > 0 and finite");
}

}  // namespace

std::string scales_text(const ConvScales& s) {
    std::string text;
    if (s.src != 1.0f) text += ",ssc=" + float_text(s.src);
    if (s.per_channel) {
        std::string list;
        for (float v : s.channel) list += (list.empty() ? "" : ":") + float_text(v);
        text += ",wsc=" + (list.empty() ? std::string("oc") : list);
    } else if (s.weights != 1.0f) {
        text += ",wsc=" + float_text(s.weights);
    }
    if (s.dst != 1.0f) text += ",dsc=" + float_text(s.dst);
    return text;
}

void parse_scale_key(std::string_view key, const std::string& value, ConvScales* s) {
    if (key == "ssc") {
        s->src = parse_float(key, value);
    } else if (key == "dsc") {
        s->dst = parse_float(key, value);
    } else if (value == "oc") {
        s->per_channel = true;
    } else if (value.find(':') != std::string::npos) {
        s->per_channel = true;
        for (std::size_t from = 0;;) {
            const std::size_t colon = value.find(':', from);
            s->channel.push_back(parse_float(key, value.substr(from, colon - from)));
            if (colon == std::string::npos) break;
            from = colon + 1;
        }
    } else {
        s->weights = parse_float(key, value);
    }
}

void validate_scales(const ConvScales& s, std::int64_t out_channels) {
    check_scale("ssc", s.src);
    if (!s.per_channel) check_scale("wsc", s.weights);
    if (!s.channel.empty()) {
        if (!s.per_channel || static_cast<std::int64_t>(s.channel.size()) != out_channels)
            throw ConvError("wsc", std::to_string(s.channel.size()) + " values",
                            "one scale, oc, or one per output channel (" + std::to_string(out_channels) + ")");
        for (float v : s.channel) check_scale("wsc", v);
    }
    check_scale("dsc", s.dst);
}

std::vector<float> draw_channel_scales(std::int64_t out_channels, std::uint64_t seed) {
    std::mt19937_64 rng(seed ^ 0x7773636fULL);  // "wsco": a stream of its own
    std::vector<float> scales;
    for (std::int64_t o = 0; o < out_channels; ++o) {
        const int odd = 2 * static_cast<int>(rng() % 8) + 1;
        const int e = 3 + static_cast<int>(rng() % 6);
        scales.push_back(std::ldexp(static_cast<float>(odd), -e));
    }
    return scales;
}

}  // namespace convcheck
