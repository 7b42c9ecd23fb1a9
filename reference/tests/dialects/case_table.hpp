// Shared by the dialect tests: one table row = an attribute string and what the framework's documented
// formula gives for it, derived by hand (the derivation is the row's comment).
//   "pb=1x1 pe=2x2 out=4x4 d=2x2"  pads, output sizes and (1-based) dilations of the canonical descriptor
//   "empty out=0x3"                the framework returns an empty tensor
//   "error <substring>"            the framework's own error, containing the substring
//   "ours <substring>"             refused in convcheck's words (the framework defines no error)
// A failing row prints the command that reproduces it.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::cases {

inline std::string spatial(const std::vector<std::int64_t>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
    return s;
}
inline std::string spatial(const SpatialDims& v, int rank) {
    return spatial(std::vector<std::int64_t>(v.begin(), v.begin() + rank));
}

inline DialectResult run(std::string_view dialect, std::string_view attributes) {
    const Dialect* d = find_dialect(dialect);
    EXPECT_NE(d, nullptr) << dialect;
    return d->read(parse_attributes(attributes));
}

inline void check_case(std::string_view dialect, std::string_view attributes, std::string_view expect) {
    const std::string reproduce =
        "reproduce: convcheck describe --dialect " + std::string(dialect) + " " + std::string(attributes);
    const DialectResult r = run(dialect, attributes);
    std::istringstream tokens{std::string(expect)};
    std::string first;
    tokens >> first;
    if (first == "error" || first == "ours") {
        std::string substring;
        std::getline(tokens, substring);
        substring.erase(0, substring.find_first_not_of(' '));
        ASSERT_TRUE(r.error.has_value()) << "expected an error, got " << to_string(r.descriptor) << "\n" << reproduce;
        EXPECT_NE(r.error->message.find(substring), std::string::npos)
            << "error message: " << r.error->message << "\nexpected to contain: " << substring << "\n" << reproduce;
        EXPECT_EQ(r.error->framework_wording, first == "error") << r.error->message << "\n" << reproduce;
        return;
    }
    ASSERT_FALSE(r.error.has_value()) << r.error->attribute << " = " << r.error->value << ": " << r.error->message
                                      << "\n" << reproduce;
    const int rank = r.descriptor.rank;
    std::string token = first;
    do {
        if (token == "empty") {
            EXPECT_TRUE(r.empty_output) << reproduce;
            continue;
        }
        const auto eq = token.find('=');
        ASSERT_NE(eq, std::string::npos) << "bad expectation token " << token;
        const std::string key = token.substr(0, eq), value = token.substr(eq + 1);
        if (key == "pb") EXPECT_EQ(spatial(r.descriptor.pads_begin, rank), value) << "pads_begin\n" << reproduce;
        else if (key == "pe") EXPECT_EQ(spatial(r.descriptor.pads_end, rank), value) << "pads_end\n" << reproduce;
        else if (key == "out") EXPECT_EQ(spatial(r.output_size), value) << "output size\n" << reproduce;
        else if (key == "d") EXPECT_EQ(spatial(r.descriptor.dilations, rank), value) << "dilations\n" << reproduce;
        else if (key == "s") EXPECT_EQ(spatial(r.descriptor.strides, rank), value) << "strides\n" << reproduce;
        else if (key == "k") EXPECT_EQ(spatial(r.descriptor.kernel_size, rank), value) << "kernel\n" << reproduce;
        else if (key == "po") EXPECT_EQ(post_ops_text(r.descriptor.post_ops), value == "none" ? "" : value) << "post-ops\n" << reproduce;
        else if (key == "g") EXPECT_EQ(std::to_string(r.descriptor.groups), value) << "groups\n" << reproduce;
        else if (key == "o") EXPECT_EQ(std::to_string(r.descriptor.out_channels), value) << "out_channels\n" << reproduce;
        else ADD_FAILURE() << "bad expectation key " << key;
    } while (tokens >> token);
    if (expect.substr(0, 5) != "empty") {
        EXPECT_FALSE(r.empty_output) << reproduce;
    }
}

struct Row {
    const char* attributes;
    const char* expect;
};

inline void check_table(std::string_view dialect, std::initializer_list<Row> rows) {
    for (const Row& row : rows) {
        SCOPED_TRACE(row.attributes);
        check_case(dialect, row.attributes, row.expect);
    }
}

}  // namespace convcheck::reference::dialects::cases
