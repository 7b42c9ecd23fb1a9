// A golden-vector set: vectors/sets/<set>/manifest.json plus one .npy file per array.
// The format is described in docs/vectors.md; in short:
//
//   { "format": "convcheck-vectors", "format_version": 1, "set": "seeds", "description": "...",
//     "cases": [ { "name": "...", "descriptor": "conv:...", "dtype": "f32", "seed": 7,
//                  "fill": "exact", "comparison": "bitwise", "source": "seed 002, ...",
//                  "dialect": { "framework": "onnx", "attributes": {...} },        (optional)
//                  "expect_error": { "attribute": "kernel_size (k)[0] (w)" },       (optional)
//                  "provenance": { "generated_by": "...", "verified_by": ["...", ...] },
//                  "arrays": { "src": { "file": "x.src.npy", "dtype": "f32", "shape": [1,1,5],
//                                       "sha256": "<64 hex>" }, ... } } ] }
//
// Array roles: src, weights, bias (inputs, in the descriptor's formats and dtype); dst (the output a
// backend must produce, in the descriptor's data_format and dtype); dst_f64, magnitude (f64) and
// terms (i64), canonical NCX: the reference's unrounded result, sum|x*w| and the number of products,
// what the accuracy contract needs to bound an error without running the reference.
// A CC case (descriptor "cc:...", seed 004) has src, theta (the Internal-Net parameters, kernel=net
// only), bias, grid (the projected grid [2, H', W'], f64), dst, dst_f64, magnitude, terms; all NCHW.
// A CC backward case ("cc:...,dir=bwd") has src, theta (net only), diff_dst, distances, and per gradient
// (diff_src, diff_theta, diff_bias) g, g_f64, g_magnitude, g_terms, g_bound (cc_backward_case_data.hpp).
//
// The loader treats a manifest as untrusted input: every field is type-checked, file names must be
// plain names inside the set folder, and a failure is a ManifestError naming the case and field.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "convcheck/formats/npy.hpp"

namespace convcheck::vectors {

class ManifestError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ArrayEntry {
    std::string role;                // src, weights, bias, dst, dst_f64, magnitude, terms; CC: theta, grid
    std::string file;                // a plain file name inside the set folder
    std::string dtype;               // f32, f16, bf16, f64, i64 (bf16 is stored as <u2 bit patterns)
    std::vector<std::int64_t> shape;
    std::string sha256;              // lower-case hex of the whole .npy file
};

struct VectorCase {
    std::string name;
    std::string descriptor;          // the canonical descriptor string (core/include/convcheck/core/descriptor.hpp)
    std::string dtype;
    std::uint64_t seed = 0;
    std::string fill;                // exact, random, iota, values, external
    std::string comparison;          // bitwise: dst must match the reference bit for bit; bound: under the contract
    std::string source;              // where the case comes from (a seed text, a model, a framework's tests)
    std::string dialect_json;        // the dialect attributes it came from, as JSON text ("" when none)
    std::optional<std::string> expect_error_attribute;  // the descriptor must be refused, naming this attribute
    std::string generated_by;
    std::vector<std::string> verified_by;
    std::vector<ArrayEntry> arrays;

    // The entry for `role`, or nullptr.
    const ArrayEntry* array(std::string_view role) const;
};

struct VectorSet {
    std::filesystem::path dir;
    std::string name;
    std::string description;
    std::vector<VectorCase> cases;
};

inline constexpr std::int64_t kMaxManifestBytes = 16 << 20;

// Parses manifest JSON text (the folder is only recorded). Throws ManifestError.
VectorSet parse_manifest(std::string_view json_text, const std::filesystem::path& dir);
// Reads dir/manifest.json.
VectorSet load_vector_set(const std::filesystem::path& dir);

// The npy element type that stores a manifest dtype: f32 <f4, f16 <f2, bf16 <u2, f64 <f8, i64 <i8.
npy::ElementType storage_type(std::string_view dtype);

// Reads one array of a case, checks its SHA-256 against the manifest and its element type and shape
// against the entry. Throws ManifestError (checksum, type, shape) or npy::NpyError (format).
npy::Array load_array(const VectorSet& set, const VectorCase& c, const ArrayEntry& entry);

// Writing, for the generator: the manifest JSON text of `set` (cases in order, 2-space indent).
std::string to_json(const VectorSet& set);

}  // namespace convcheck::vectors
