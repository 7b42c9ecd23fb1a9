// Generates a golden-vector set from a spec (vectors/specs/<set>.json): for each case, the input data
// from its fill and seed, the reference's result (reading 1, f64) and its rounding to the output
// type, written as .npy files plus manifest.json. See docs/vectors.md for the spec format.
#pragma once

#include <filesystem>
#include <string_view>

#include "convcheck/formats/manifest.hpp"

namespace convcheck::vectors {

// Reads the spec, writes every case's arrays and the manifest into out_dir (created if missing;
// stale .npy files are removed). Returns the set written. Throws std::exception with a message
// naming the case on any problem (an invalid descriptor, a value not representable in the dtype,
// an expect_error case whose descriptor is accepted).
VectorSet generate_set(const std::filesystem::path& spec_path, const std::filesystem::path& out_dir);

}  // namespace convcheck::vectors
