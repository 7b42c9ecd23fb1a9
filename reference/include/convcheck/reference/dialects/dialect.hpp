// Framework dialects: spec-literal front ends that turn one framework's convolution attributes into
// the canonical descriptor, or into that framework's own error (SPEC-NOTES §2).
//
// Every dialect has two faces:
//   - a typed API (e.g. onnx::ConvAttributes -> DialectResult), in its own header;
//   - a text API: a string-keyed attribute set such as "auto_pad=SAME_UPPER,strides=2x2,in=7x7,k=3x3",
//     so that `convcheck describe`, golden vectors and fuzzers can feed it.
//
// Shape keys shared by every dialect (convcheck's words, outermost axis first, as in the canonical
// descriptor): n (batch, default 1), c (input channels, default 1), o (output channels, default 1),
// in (spatial input sizes, required), k (spatial kernel sizes). Every other key is the framework's own
// attribute name, with the framework's own values. A list value separates its items with 'x' or ':'.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::reference::dialects {

// "key=value" items separated by commas, semicolons or whitespace. Throws ConvError on a malformed
// item or a repeated key.
using AttributeSet = std::map<std::string, std::string, std::less<>>;
AttributeSet parse_attributes(std::string_view text);
std::string to_string(const AttributeSet& attributes);  // "a=1,b=2" in key order

// A framework's refusal. `message` is the framework's own wording where it has one
// (framework_wording = true); where the framework defines no error, convcheck's (false).
struct DialectError {
    std::string attribute;
    std::string value;
    std::string message;
    bool framework_wording = true;
};

// The tensor shapes every typed API takes (convcheck's words, outermost spatial axis first).
struct ConvShapes {
    std::int64_t batch = 1, in_channels = 1, out_channels = 1;
    std::vector<std::int64_t> input_size;   // spatial; its length is the rank
    std::vector<std::int64_t> kernel_size;  // spatial; same length
    int rank() const { return static_cast<int>(input_size.size()); }
};

// What a user asked for, in no framework's words: describe carries it from one dialect to the next.
enum class PaddingRequest { explicit_pads, valid, same_upper, same_lower };
std::string_view to_string(PaddingRequest padding);

struct Request {
    int rank = 2;
    std::int64_t batch = 1, in_channels = 1, out_channels = 1, groups = 1;
    SpatialDims input_size{1, 1, 1}, kernel_size{1, 1, 1}, strides{1, 1, 1};
    SpatialDims dilations{1, 1, 1};  // 1-based
    PaddingRequest padding = PaddingRequest::explicit_pads;
    SpatialDims pads_begin{0, 0, 0}, pads_end{0, 0, 0};  // for explicit_pads
    DataFormat data_format = DataFormat::ncx;      // the reading's layouts, so that a dialect that has
    FilterFormat filter_format = FilterFormat::oix;  // layout attributes can say them again
    std::array<bool, kMaxSpatialRank> weights_shared{true, true, true};  // false: locally connected on that axis
};

// One dialect's reading of one attribute set.
struct DialectResult {
    std::string dialect;
    std::optional<DialectError> error;
    // The framework returns an empty tensor (an output size of 0): the canonical descriptor cannot
    // say that, so it is an outcome of its own; `descriptor` then holds the attributes unvalidated.
    bool empty_output = false;
    ConvDescriptor descriptor;               // canonical and validated when ok()
    std::vector<std::int64_t> output_size;   // per spatial axis, as the framework computes it
    std::string data_layout, filter_layout;  // the framework's own names, e.g. "NHWC", "HWIO"
    // Along an axis where this is false the weights are not shared (CNTK sharing=false): a locally
    // connected layer, see locally_connected.hpp; the descriptor then gives its geometry.
    std::array<bool, kMaxSpatialRank> weights_shared{true, true, true};
    std::vector<std::string> notes;          // where the framework's result needed an explicit reading
    Request request;                         // the same request, framework-neutral

    bool ok() const { return !error && !empty_output; }
};

// A registered dialect.
struct Dialect {
    std::string_view name;   // "onnx", "tensorflow", ...
    std::string_view title;  // "ONNX Conv"
    DialectResult (*read)(const AttributeSet& attributes);
    // The same request in this framework's words; nullopt (with *why_not set) where it has none.
    std::optional<AttributeSet> (*spell)(const Request& request, std::string* why_not);
};

std::span<const Dialect> all_dialects();
const Dialect* find_dialect(std::string_view name);  // nullptr if unknown

// The canonical descriptor read as a request (explicit pads): the "dialect" of the descriptor string.
Request request_from_descriptor(const ConvDescriptor& d);

}  // namespace convcheck::reference::dialects
