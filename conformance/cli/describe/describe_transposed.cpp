// `convcheck describe` for transposed convolution (see describe_transposed.hpp).
#include "describe_transposed.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "../commands.hpp"
#include "describe_words.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::reference::dialects;
using nlohmann::json;

using Row = DescribeRow<TransposedDialect, TransposedResult>;

// The same operation: the same outcome and, for a result, the same output sizes and pads_begin (with
// the output size they fix the index set; pads_end and output_padding may split the end differently).
bool same_reading(const TransposedResult& a, const TransposedResult& b) {
    if (a.error.has_value() != b.error.has_value()) return false;
    if (a.error) return true;
    const int rank = a.descriptor.rank;
    return a.output_size == b.output_size &&
           spatial_vector(a.descriptor.pads_begin, rank) == spatial_vector(b.descriptor.pads_begin, rank) &&
           spatial_vector(a.descriptor.strides, rank) == spatial_vector(b.descriptor.strides, rank) &&
           spatial_vector(a.descriptor.dilations, rank) == spatial_vector(b.descriptor.dilations, rank);
}

std::vector<std::int64_t> output_shape(const TransposedResult& r) {
    std::vector<std::int64_t> shape{r.descriptor.batch};
    if (r.descriptor.data_format == DataFormat::ncx) shape.push_back(r.descriptor.out_channels);
    shape.insert(shape.end(), r.output_size.begin(), r.output_size.end());
    if (r.descriptor.data_format == DataFormat::nxc) shape.push_back(r.descriptor.out_channels);
    return shape;
}

json result_json(const TransposedResult& r) {
    json j;
    j["outcome"] = r.error ? "error" : "ok";
    if (r.error) {
        j["error"] = error_json(*r.error);
        return j;
    }
    const TransposedDescriptor& t = r.descriptor;
    j["canonical"] = to_string(t);
    j["forward"] = to_string(t.forward());
    j["pads_begin"] = spatial_vector(t.pads_begin, t.rank);
    j["pads_end"] = spatial_vector(t.pads_end, t.rank);
    j["output_padding"] = spatial_vector(t.output_padding, t.rank);
    j["output_size"] = r.output_size;
    j["output_shape"] = output_shape(r);
    j["data_layout"] = r.data_layout;
    j["filter_layout"] = r.filter_layout;
    j["notes"] = r.notes;
    return j;
}

void print_text(const std::string& source, const TransposedResult& first, const std::vector<Row>& rows) {
    const TransposedDescriptor& t = first.descriptor;
    const int rank = t.rank;
    std::printf("%s\n", source.c_str());
    std::printf("canonical  %s\n", to_string(t).c_str());
    std::printf("forward    %s  (this op's output is that convolution's backward data)\n", to_string(t.forward()).c_str());
    std::printf("pads       begin %s  end %s  output_padding %s\n", spatial(spatial_vector(t.pads_begin, rank)).c_str(),
                spatial(spatial_vector(t.pads_end, rank)).c_str(), spatial(spatial_vector(t.output_padding, rank)).c_str());
    std::printf("output     %s  (shape [", spatial(first.output_size).c_str());
    const auto shape = output_shape(first);
    for (std::size_t i = 0; i < shape.size(); ++i) std::printf("%s%lld", i ? ", " : "", (long long)shape[i]);
    std::printf("] in %s)\n", first.data_layout.c_str());
    std::printf("filter     %s  ([in_channels][out_channels/groups][k...] is IOX)\n", first.filter_layout.c_str());
    for (const auto& note : first.notes) std::printf("note       %s\n", note.c_str());
    std::printf("\nthe same request (%s padding, strides %s, dilations %s) as every transposed dialect reads it;\n"
                "'*' marks a reading that differs from the first (output size or pads_begin), '-' a dialect that "
                "cannot say it:\n\n",
                std::string(to_string(first.request.padding)).c_str(), spatial(spatial_vector(t.strides, rank)).c_str(),
                spatial(spatial_vector(t.dilations, rank)).c_str());
    std::printf("  %-20s %-1s %-11s %-11s %-9s %-9s %s\n", "dialect", "", "pads_begin", "pads_end", "out_pad", "output",
                "attributes / outcome");
    for (const Row& row : rows) {
        const char* mark = !row.attributes ? "-" : row.agrees ? " " : "*";
        const std::string name(row.dialect->name);
        if (!row.attributes) {
            std::printf("  %-20s %s %-11s %-11s %-9s %-9s cannot say it: %s\n", name.c_str(), mark, "-", "-", "-", "-",
                        row.why_not.c_str());
            continue;
        }
        const TransposedResult& r = row.result;
        if (r.error) {
            std::printf("  %-20s %s %-11s %-11s %-9s %-9s %s\n  %-20s   %-45s error: %s\n", name.c_str(), mark, "-", "-", "-",
                        "-", to_string(*row.attributes).c_str(), "", "", error_line(*r.error).c_str());
            continue;
        }
        const TransposedDescriptor& d = r.descriptor;
        std::printf("  %-20s %s %-11s %-11s %-9s %-9s %s\n", name.c_str(), mark,
                    spatial(spatial_vector(d.pads_begin, d.rank)).c_str(), spatial(spatial_vector(d.pads_end, d.rank)).c_str(),
                    spatial(spatial_vector(d.output_padding, d.rank)).c_str(), spatial(r.output_size).c_str(),
                    to_string(*row.attributes).c_str());
        for (const auto& note : r.notes) std::printf("  %-20s   %-45s note: %s\n", "", "", note.c_str());
    }
}

}  // namespace

int describe_transposed(const TransposedDialect* dialect, const std::string& text, bool as_json) {
    TransposedResult first;
    json input;
    std::string source;
    if (dialect) {
        const AttributeSet attributes = parse_attributes(text);
        first = dialect->read(attributes);
        input = {{"dialect", dialect->name}, {"attributes", attributes}};
        source = "dialect    " + std::string(dialect->name) + " (" + std::string(dialect->title) + "): " + to_string(attributes);
        if (first.error) {
            if (as_json)
                std::printf("%s\n", json{{"input", input}, {"outcome", "error"}, {"error", error_json(*first.error)}}.dump(2).c_str());
            else
                std::fprintf(stderr, "convcheck: error: %s: %s\n", std::string(dialect->name).c_str(),
                             error_line(*first.error).c_str());
            return kExitBadInput;
        }
    } else {
        first.dialect = "descriptor";
        first.descriptor = parse_transposed_descriptor(text);
        for (int a = 0; a < first.descriptor.rank; ++a) first.output_size.push_back(first.descriptor.output_size(a));
        first.data_layout = first.descriptor.data_format == DataFormat::ncx ? "NCX" : "NXC";
        first.filter_layout = first.descriptor.filter_format == FilterFormat::oix ? "IOX" : "XOI";
        first.request = request_from_descriptor(first.descriptor);
        input = {{"descriptor", text}};
        source = "descriptor " + text;
    }
    const std::vector<Row> rows = read_rows(all_transposed_dialects(), first.request, first, same_reading);
    if (!as_json) {
        print_text(source, first, rows);
        return kExitOk;
    }
    json j = result_json(first);
    j["input"] = input;
    j["dialects"] = rows_json(rows, result_json);
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
}

}  // namespace convcheck::cli
