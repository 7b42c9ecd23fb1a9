// Shared by the transposed-dialect tests: one reading by dialect name, as its canonical descriptor
// string (or "error: attribute = value: message") or as its error message alone.
#pragma once

#include <string>

#include "convcheck/reference/dialects/transposed.hpp"

namespace convcheck::reference::dialects::transposed_cases {

inline TransposedResult read(const char* dialect, const std::string& text) {
    return find_transposed_dialect(dialect)->read(parse_attributes(text));
}
inline std::string canonical(const char* dialect, const std::string& text) {
    const auto r = read(dialect, text);
    if (r.error) return "error: " + r.error->attribute + " = " + r.error->value + ": " + r.error->message;
    return to_string(r.descriptor);
}
inline std::string error(const char* dialect, const std::string& text) {
    const auto r = read(dialect, text);
    return r.error ? r.error->message : "(no error: " + to_string(r.descriptor) + ")";
}

}  // namespace convcheck::reference::dialects::transposed_cases
