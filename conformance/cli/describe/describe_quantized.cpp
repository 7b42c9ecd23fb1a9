// `convcheck describe` for a quantized convolution (describe_quantized.hpp).
//
//   convcheck describe --dialect tflite op=CONV_2D c=3 o=4 in=8x8 k=3x3 padding=SAME input_scale=0.5 ...
//   convcheck describe 'qconv:c=3,o=4,in=8x8,k=3x3,dt=s8:s8:s8,ssc=0.5,...'
#include "describe_quantized.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/reference/quantized_output.hpp"
#include "../commands.hpp"
#include "describe_words.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::reference::dialects;
using nlohmann::json;

std::vector<double> multipliers(const QuantizedDescriptor& q) {
    std::vector<float> scales = q.per_channel_scales ? q.channel_scales : std::vector<float>{q.weights_scale};
    if (scales.empty()) return {};  // wsc=oc: drawn per case
    return reference::output_multipliers(q, scales);
}

std::string multiplier_text(double m) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.17g", m);
    return text;
}

}  // namespace

int describe_quantized(const QuantizedDialect* dialect, const std::string& text, bool as_json) {
    QuantizedResult r;
    json input;
    std::string source;
    if (dialect) {
        const AttributeSet attributes = parse_attributes(text);
        r = dialect->read(attributes);
        input = {{"dialect", dialect->name}, {"attributes", attributes}};
        source = "dialect    " + std::string(dialect->name) + " (" + std::string(dialect->title) + "): " + to_string(attributes);
    } else {
        r.dialect = "descriptor";
        r.descriptor = parse_quantized_descriptor(text);
        for (int a = 0; a < r.descriptor.conv.rank; ++a) r.output_size.push_back(r.descriptor.conv.output_size(a));
        input = {{"descriptor", text}};
        source = "descriptor " + text;
    }
    if (r.error) {
        if (as_json) {
            std::printf("%s\n", json{{"input", input}, {"outcome", "error"}, {"error", error_json(*r.error)}}.dump(2).c_str());
        } else {
            std::fprintf(stderr, "convcheck: error: %s: %s\n", std::string(dialect ? dialect->name : "qconv").c_str(),
                         error_line(*r.error).c_str());
        }
        return kExitBadInput;
    }
    const QuantizedDescriptor& q = r.descriptor;
    const std::vector<double> m = multipliers(q);
    if (as_json) {
        json j;
        j["input"] = input;
        j["outcome"] = "ok";
        j["canonical"] = to_string(q);
        if (dialect) j["rule"] = r.rule ? json(reference::to_string(*r.rule)) : json(nullptr);
        j["multipliers"] = m;
        j["dst_range"] = {q.dst_min, q.dst_max};
        j["output_size"] = r.output_size;
        j["data_layout"] = r.data_layout;
        j["filter_layout"] = r.filter_layout;
        j["notes"] = r.notes;
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    std::printf("%s\n", source.c_str());
    std::printf("canonical  %s\n", to_string(q).c_str());
    if (dialect) std::printf("rule       %s\n", rule_text(r.rule).c_str());
    std::string ms;
    for (double v : m) ms += (ms.empty() ? "" : " ") + multiplier_text(v);
    std::printf("M          %s\n", m.empty() ? "drawn per output channel (wsc=oc)" : ms.c_str());
    std::printf("dst range  [%lld, %lld]\n", (long long)q.dst_min, (long long)q.dst_max);
    std::printf("output     %s\n", spatial(r.output_size).c_str());
    if (!r.data_layout.empty()) std::printf("layouts    %s data, %s filter\n", r.data_layout.c_str(), r.filter_layout.c_str());
    for (const auto& note : r.notes) std::printf("note       %s\n", note.c_str());
    return 0;
}

}  // namespace convcheck::cli
