// `convcheck describe`: one convolution, read by one framework dialect (or given as a canonical
// descriptor), shown as the canonical descriptor, its pads and output shape, and then the same request
// as every other dialect reads it, side by side, with a marker where they disagree. --json for scripts.
//
//   convcheck describe --dialect onnx auto_pad=SAME_LOWER in=7x7 k=4x4 strides=2x2
//   convcheck describe 'conv:c=1,o=1,in=7,k=3,s=2,pb=1,pe=1'
//   convcheck describe 'cc:cin=1,cout=1,in=8x8,scale=2/3'   (a CC layer: output, grid, windows; describe_cc.cpp)
//   convcheck describe 'deconv:c=2,o=2,in=4,k=3,s=2,op=1'  (a transposed convolution; describe_transposed.cpp)
//   convcheck describe --dialect onnx_transpose in=3 k=3 strides=2 auto_pad=SAME_UPPER
//   convcheck describe 'mb2ic16ih7oc16kh3ph1'      (a benchdnn problem string, read by formats/benchdnn)
//   convcheck describe --dialect tflite op=CONV_2D in=8x8 k=3x3 input_scale=0.5 ...  (a quantized dialect;
//                                             describe_quantized.cpp; or a 'qconv:...' descriptor)
//   convcheck describe --dialects             (lists the dialects)
// Bad attributes: the framework's own error (or convcheck's where it has none), exit code 2.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../commands.hpp"
#include "convcheck/formats/benchdnn.hpp"
#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/reference/dialects/quantized.hpp"
#include "describe_cc.hpp"
#include "describe_quantized.hpp"
#include "describe_transposed.hpp"
#include "describe_words.hpp"
#include "convcheck/core/descriptor.hpp"

namespace convcheck::cli {

namespace {

using namespace convcheck::reference::dialects;
using nlohmann::json;

using Row = DescribeRow<Dialect, DialectResult>;

// Same outcome, and where there is a result, the same pads and output sizes.
bool same_reading(const DialectResult& a, const DialectResult& b) {
    if (a.error.has_value() != b.error.has_value() || a.empty_output != b.empty_output) return false;
    if (a.error) return true;
    if (a.output_size != b.output_size) return false;
    if (a.empty_output) return true;
    const int rank = a.descriptor.rank;
    return spatial_vector(a.descriptor.pads_begin, rank) == spatial_vector(b.descriptor.pads_begin, rank) &&
           spatial_vector(a.descriptor.pads_end, rank) == spatial_vector(b.descriptor.pads_end, rank) &&
           spatial_vector(a.descriptor.dilations, rank) == spatial_vector(b.descriptor.dilations, rank) &&
           spatial_vector(a.descriptor.strides, rank) == spatial_vector(b.descriptor.strides, rank) &&
           a.weights_shared == b.weights_shared;
}

// The output tensor's shape in the framework's data layout (N, C and spatial; C last for NXC).
std::vector<std::int64_t> output_shape(const DialectResult& r) {
    std::vector<std::int64_t> shape{r.descriptor.batch};
    if (r.descriptor.data_format == DataFormat::ncx) shape.push_back(r.descriptor.out_channels);
    shape.insert(shape.end(), r.output_size.begin(), r.output_size.end());
    if (r.descriptor.data_format == DataFormat::nxc) shape.push_back(r.descriptor.out_channels);
    return shape;
}

json result_json(const DialectResult& r) {
    json j;
    j["outcome"] = r.error ? "error" : r.empty_output ? "empty" : "ok";
    if (r.error) {
        j["error"] = error_json(*r.error);
        return j;
    }
    const int rank = r.descriptor.rank;
    if (r.ok()) j["canonical"] = to_string(r.descriptor);
    j["pads_begin"] = spatial_vector(r.descriptor.pads_begin, rank);
    j["pads_end"] = spatial_vector(r.descriptor.pads_end, rank);
    j["output_size"] = r.output_size;
    j["output_shape"] = output_shape(r);
    j["data_layout"] = r.data_layout;
    j["filter_layout"] = r.filter_layout;
    std::vector<bool> shared(r.weights_shared.begin(), r.weights_shared.begin() + rank);
    j["weights_shared"] = shared;
    j["notes"] = r.notes;
    return j;
}

void print_text(const std::string& source, const DialectResult& first, const Request& request,
                const std::vector<Row>& rows) {
    std::printf("%s\n", source.c_str());
    const int rank = first.descriptor.rank;
    if (first.empty_output) {
        std::printf("outcome    EMPTY OUTPUT: the framework returns an empty tensor (output %s);\n"
                    "           no canonical descriptor describes it\n",
                    spatial(first.output_size).c_str());
    } else {
        std::printf("canonical  %s\n", to_string(first.descriptor).c_str());
    }
    std::printf("pads       begin %s  end %s\n", spatial(spatial_vector(first.descriptor.pads_begin, rank)).c_str(),
                spatial(spatial_vector(first.descriptor.pads_end, rank)).c_str());
    std::printf("output     %s  (shape [", spatial(first.output_size).c_str());
    const auto shape = output_shape(first);
    for (std::size_t i = 0; i < shape.size(); ++i) std::printf("%s%lld", i ? ", " : "", (long long)shape[i]);
    std::printf("] in %s)\n", first.data_layout.empty() ? "NCX" : first.data_layout.c_str());
    if (!first.filter_layout.empty()) std::printf("filter     %s\n", first.filter_layout.c_str());
    for (int a = 0; a < rank; ++a)
        if (!first.weights_shared[a])
            std::printf("sharing    axis %d unshared: a locally connected layer (reference::locally_connected)\n", a);
    for (const auto& note : first.notes) std::printf("note       %s\n", note.c_str());

    std::printf("\nthe same request (%s padding, strides %s, dilations %s) as every dialect reads it;\n"
                "'*' marks a reading that differs from the first, '-' a dialect that cannot say it:\n\n",
                std::string(to_string(request.padding)).c_str(),
                spatial(spatial_vector(request.strides, rank)).c_str(),
                spatial(spatial_vector(request.dilations, rank)).c_str());
    std::printf("  %-19s %-1s %-11s %-11s %-9s %s\n", "dialect", "", "pads_begin", "pads_end", "output", "attributes / outcome");
    for (const Row& row : rows) {
        const char* mark = !row.attributes ? "-" : row.agrees ? " " : "*";
        const std::string name(row.dialect->name);
        if (!row.attributes) {
            std::printf("  %-19s %s %-11s %-11s %-9s cannot say it: %s\n", name.c_str(), mark, "-", "-", "-",
                        row.why_not.c_str());
            continue;
        }
        const DialectResult& r = row.result;
        if (r.error) {
            std::printf("  %-19s %s %-11s %-11s %-9s %s\n  %-19s   %-33s error: %s\n", name.c_str(), mark, "-", "-", "-",
                        to_string(*row.attributes).c_str(), "", "", error_line(*r.error).c_str());
            continue;
        }
        const int rk = r.descriptor.rank;
        const std::string out = r.empty_output ? spatial(r.output_size) + " (empty)" : spatial(r.output_size);
        std::printf("  %-19s %s %-11s %-11s %-9s %s\n", name.c_str(), mark,
                    spatial(spatial_vector(r.descriptor.pads_begin, rk)).c_str(),
                    spatial(spatial_vector(r.descriptor.pads_end, rk)).c_str(), out.c_str(),
                    to_string(*row.attributes).c_str());
        for (const auto& note : r.notes) std::printf("  %-19s   %-33s note: %s\n", "", "", note.c_str());
    }
}

json request_json(const Request& q) {
    const int rank = q.rank;
    return {{"rank", rank},
            {"batch", q.batch},
            {"in_channels", q.in_channels},
            {"out_channels", q.out_channels},
            {"groups", q.groups},
            {"input_size", spatial_vector(q.input_size, rank)},
            {"kernel_size", spatial_vector(q.kernel_size, rank)},
            {"strides", spatial_vector(q.strides, rank)},
            {"dilations", spatial_vector(q.dilations, rank)},
            {"padding", std::string(to_string(q.padding))},
            {"pads_begin", spatial_vector(q.pads_begin, rank)},
            {"pads_end", spatial_vector(q.pads_end, rank)}};
}

struct Options {
    std::string dialect;
    std::vector<std::string> items;
    bool json = false;
    bool list = false;
};

void list_dialects() {
    for (const Dialect& d : all_dialects()) std::printf("%-19s %s\n", std::string(d.name).c_str(), std::string(d.title).c_str());
    std::printf("\ntransposed convolution (describe --dialect NAME, or a 'deconv:...' descriptor):\n");
    for (const TransposedDialect& d : all_transposed_dialects())
        std::printf("%-19s %s\n", std::string(d.name).c_str(), std::string(d.title).c_str());
    std::printf("\nquantized convolution (describe --dialect NAME, or a 'qconv:...' descriptor):\n");
    for (const QuantizedDialect& d : all_quantized_dialects())
        std::printf("%-19s %s\n", std::string(d.name).c_str(), std::string(d.title).c_str());
}

void run_describe(const Options& options) {
    if (options.list) {
        list_dialects();
        return;
    }
    DialectResult first;
    json input;
    std::string source;
    if (!options.dialect.empty()) {
        const Dialect* dialect = find_dialect(options.dialect);
        std::string text;
        for (const auto& item : options.items) text += item + " ";
        if (const TransposedDialect* transposed = find_transposed_dialect(options.dialect); !dialect && transposed) {
            exit_code() = describe_transposed(transposed, text, options.json);
            return;
        }
        if (const QuantizedDialect* quantized = find_quantized_dialect(options.dialect); !dialect && quantized) {
            exit_code() = describe_quantized(quantized, text, options.json);
            return;
        }
        if (!dialect) {
            std::string known;
            for (const Dialect& d : all_dialects()) known += (known.empty() ? "" : " ") + std::string(d.name);
            for (const TransposedDialect& d : all_transposed_dialects()) known += " " + std::string(d.name);
            for (const QuantizedDialect& d : all_quantized_dialects()) known += " " + std::string(d.name);
            throw ConvError("--dialect", options.dialect, "unknown dialect (known: " + known + ")");
        }
        const AttributeSet attributes = parse_attributes(text);
        first = dialect->read(attributes);
        input = {{"dialect", dialect->name}, {"attributes", attributes}};
        source = "dialect    " + std::string(dialect->name) + " (" + std::string(dialect->title) + "): " + to_string(attributes);
    } else {
        if (options.items.size() != 1)
            throw ConvError("descriptor", std::to_string(options.items.size()) + " arguments",
                            "give one canonical descriptor, or --dialect NAME and its attributes");
        if (options.items[0].rfind("deconv:", 0) == 0) {
            exit_code() = describe_transposed(nullptr, options.items[0], options.json);
            return;
        }
        if (options.items[0].rfind("qconv:", 0) == 0) {
            exit_code() = describe_quantized(nullptr, options.items[0], options.json);
            return;
        }
        if (options.items[0].rfind("cc:", 0) == 0) {
            describe_cc(options.items[0], options.json);
            exit_code() = kExitOk;
            return;
        }
        // a canonical descriptor has key=value fields; a benchdnn problem string (mb2ic16ih7oc16kh3ph1) has none
        const bool benchdnn = options.items[0].find('=') == std::string::npos;
        const ConvDescriptor d =
            benchdnn ? parse_benchdnn(options.items[0]).descriptor : parse_descriptor(options.items[0]);
        first.dialect = "descriptor";
        first.descriptor = d;
        for (int a = 0; a < d.rank; ++a) first.output_size.push_back(d.output_size(a));
        first.data_layout = d.data_format == DataFormat::ncx ? "NCX" : "NXC";
        first.filter_layout = d.filter_format == FilterFormat::oix ? "OIX" : d.filter_format == FilterFormat::xio ? "XIO" : "OXI";
        first.request = request_from_descriptor(d);
        input = {{benchdnn ? "benchdnn" : "descriptor", options.items[0]}};
        source = benchdnn ? "benchdnn   " + options.items[0] + "  (benchdnn's defaults: --dir=FWD_B, --dt=f32)"
                          : "descriptor " + options.items[0];
    }
    if (first.error) {
        if (options.json) {
            std::printf("%s\n", json{{"input", input}, {"outcome", "error"}, {"error", error_json(*first.error)}}.dump(2).c_str());
        } else {
            std::fprintf(stderr, "convcheck: error: %s: %s\n", options.dialect.c_str(), error_line(*first.error).c_str());
        }
        exit_code() = kExitBadInput;
        return;
    }

    const std::vector<Row> rows = read_rows(all_dialects(), first.request, first, same_reading);

    if (options.json) {
        json j = result_json(first);
        j["input"] = input;
        j["request"] = request_json(first.request);
        j["dialects"] = rows_json(rows, result_json);
        std::printf("%s\n", j.dump(2).c_str());
    } else {
        print_text(source, first, first.request, rows);
    }
    exit_code() = kExitOk;
}

void add_describe_command(CLI::App& app) {
    static Options options;
    auto* cmd = app.add_subcommand(
        "describe",
        "Show a convolution as the canonical descriptor, its pads and output shape, and as every framework "
        "dialect reads the same attributes");
    cmd->add_option("--dialect", options.dialect,
                    "read the attributes in this framework's words (see --dialects); without it, the argument is "
                    "a canonical descriptor");
    cmd->add_flag("--json", options.json, "print JSON for scripts");
    cmd->add_flag("--dialects", options.list, "list the dialects and exit");
    cmd->add_option("attributes", options.items,
                    "key=value attributes (e.g. auto_pad=SAME_LOWER in=7x7 k=4x4 strides=2x2), or one descriptor "
                    "(conv:... or cc:...) or benchdnn problem string (mb2ic16ih7oc16kh3ph1)");
    cmd->callback([] { run_describe(options); });
}

const Registration registration{"describe", add_describe_command};

}  // namespace

}  // namespace convcheck::cli
