// Internal to the quantized dialects (quantized.hpp): reading scales (f32 lists) and wide integers (int32
// lists, such as TOSA's multipliers, which pass the float dialects' 2^30 bound), and concluding a reading.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "convcheck/reference/dialects/quantized.hpp"

namespace convcheck::reference::dialects::detail {

// "0.5", or a list "0.5:0.25:..." (':' only: 'x' is part of a hexadecimal float); each item read as the f32 a
// flatbuffer stores (the nearest), refused in convcheck's words when malformed.
std::optional<std::vector<float>> f32_list(Reader& reader, const std::string& key);
// Integers in [lowest, highest], one or a list separated by ':' or 'x'.
std::optional<std::vector<std::int64_t>> wide_list(Reader& reader, const std::string& key, std::int64_t lowest,
                                                   std::int64_t highest);

// validate(q) (a ConvError becomes a refusal in convcheck's words), then the result.
QuantizedResult conclude_quantized(QuantizedResult result);

// Runs `body` and turns a Refusal into result.error.
template <class Body>
QuantizedResult guarded_quantized(std::string_view dialect, Body body) {
    try {
        return body();
    } catch (const Refusal& refusal) {
        QuantizedResult r;
        r.dialect = std::string(dialect);
        r.error = refusal.error;
        return r;
    }
}

}  // namespace convcheck::reference::dialects::detail
