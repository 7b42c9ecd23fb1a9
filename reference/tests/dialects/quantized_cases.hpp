// Shared by the quantized dialect tests: read one attribute string, and expect a refusal whose message holds a
// substring. A failing check prints the `convcheck describe` command that reproduces it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "convcheck/reference/dialects/quantized.hpp"

namespace convcheck::reference::dialects::qcases {

inline std::string command(std::string_view dialect, std::string_view attributes) {
    return "convcheck describe --dialect " + std::string(dialect) + " " + std::string(attributes);
}

inline QuantizedResult run(std::string_view dialect, std::string_view attributes) {
    const QuantizedDialect* d = find_quantized_dialect(dialect);
    EXPECT_NE(d, nullptr) << dialect;
    return d->read(parse_attributes(attributes));
}

// The reading is refused, naming `attribute`, in the framework's wording (framework) or convcheck's, with a
// message that holds `substring`.
inline void expect_refused(std::string_view dialect, std::string_view attributes, const std::string& attribute,
                           const std::string& substring, bool framework) {
    const QuantizedResult r = run(dialect, attributes);
    ASSERT_TRUE(r.error.has_value()) << "not refused: " << command(dialect, attributes);
    EXPECT_EQ(r.error->attribute, attribute) << command(dialect, attributes);
    EXPECT_NE(r.error->message.find(substring), std::string::npos)
        << "message \"" << r.error->message << "\" lacks \"" << substring << "\": " << command(dialect, attributes);
    EXPECT_EQ(r.error->framework_wording, framework) << command(dialect, attributes);
}

}  // namespace convcheck::reference::dialects::qcases
