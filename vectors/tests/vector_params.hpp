// Every case of every stored set (vectors/sets/*/manifest.json) as a gtest parameter, so that each
// case is its own test, named <set>_<case>. A set whose manifest does not load becomes one
// parameter that fails with the loader's message.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/formats/manifest.hpp"

namespace convcheck::vectors::testing {

struct VectorParam {
    std::string set_name;
    std::filesystem::path set_dir;
    std::size_t index = 0;
    std::string case_name;
    std::string load_error;  // non-empty: the manifest did not load
    bool expect_error = false;  // the case holds a descriptor that must be refused, and no data
    // what the descriptor describes: "cc:..." (the CC forward), "cc:...,dir=bwd" (the CC backward pass),
    // "deconv:...", a backward pass (dir=bwd_d / dir=bwd_w) or a forward discrete convolution
    enum class Kind { conv, cc, cc_backward, backward, transposed } kind = Kind::conv;
};

inline VectorParam::Kind kind_of(const std::string& descriptor) {
    if (descriptor.rfind("cc:", 0) == 0)
        return split_cc_pass(descriptor).backward ? VectorParam::Kind::cc_backward : VectorParam::Kind::cc;
    if (descriptor.rfind("deconv:", 0) == 0) return VectorParam::Kind::transposed;
    if (descriptor.find("dir=bwd_") != std::string::npos) return VectorParam::Kind::backward;
    return VectorParam::Kind::conv;
}

// gtest prints a parameter with the test name: keep it short.
inline void PrintTo(const VectorParam& p, std::ostream* os) { *os << p.set_name << "/" << p.case_name; }

inline std::vector<VectorParam> all_vector_cases(const std::filesystem::path& sets_dir = CONVCHECK_VECTOR_SETS_DIR) {
    std::vector<VectorParam> params;
    std::vector<std::filesystem::path> dirs;
    for (const auto& entry : std::filesystem::directory_iterator(sets_dir))
        if (entry.is_directory()) dirs.push_back(entry.path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& dir : dirs) {
        try {
            const VectorSet set = load_vector_set(dir);
            for (std::size_t i = 0; i < set.cases.size(); ++i)
                params.push_back({set.name, dir, i, set.cases[i].name, "", set.cases[i].expect_error_attribute.has_value(),
                                  kind_of(set.cases[i].descriptor)});
        } catch (const std::exception& e) {
            params.push_back({dir.filename().string(), dir, 0, "manifest", e.what()});
        }
    }
    return params;
}

// The forward discrete-convolution cases that carry data (not expect_error, not CC, backward or transposed).
inline std::vector<VectorParam> conv_cases_with_data() {
    std::vector<VectorParam> params;
    for (auto& p : all_vector_cases())
        if (!p.expect_error && p.kind == VectorParam::Kind::conv) params.push_back(p);
    return params;
}

// The CC backward cases (the cc_backward set).
inline std::vector<VectorParam> cc_backward_cases() {
    std::vector<VectorParam> params;
    for (auto& p : all_vector_cases())
        if (p.kind == VectorParam::Kind::cc_backward || !p.load_error.empty()) params.push_back(p);
    return params;
}

inline std::string param_name(const ::testing::TestParamInfo<VectorParam>& info) {
    std::string name = info.param.set_name + "_" + info.param.case_name;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

// The one-line reproducer printed with every failure.
inline std::string reproducer(const VectorParam& p, const VectorCase& c) {
    return "vector " + p.set_name + "/" + c.name + ": " + c.descriptor + " seed=" + std::to_string(c.seed) +
           " fill=" + c.fill + " (" + (p.set_dir / "manifest.json").string() + ")";
}

}  // namespace convcheck::vectors::testing
