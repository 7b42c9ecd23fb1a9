// Internal: oneDNN's own words, shared by the convolution primitive and Graph op (onednn.cpp) and the
// deconvolution primitive (onednn_deconvolution.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::reference::dialects::onednn::detail {

// `rank` values, or empty (every axis `fallback`); otherwise refused in convcheck's words.
std::vector<std::int64_t> per_axis(const char* name, const std::vector<std::int64_t>& v, int rank, std::int64_t fallback);
// "NCX" / "NXC" and "OIX" / "XIO" (refused otherwise, naming `attribute`).
DataFormat data_format_of(const std::string& attribute, const std::string& v);
FilterFormat filter_format_of(const std::string& attribute, const std::string& v);

}  // namespace convcheck::reference::dialects::onednn::detail
