// The arrays of a failure bundle (failure_bundle.hpp), as each operation's traits entry makes them
// (OperationTraits::bundle_arrays): for one recorded execution, its inputs, the reference on exactly
// those bytes and the backend's output, each with the role that names its file (<prefix><role>.npy).
// The pieces every operation's arrays are made of are here once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/runner/execution_log.hpp"
#include "convcheck/formats/npy.hpp"

namespace convcheck::runner {

struct BundleArray {
    std::string role;    // "src", "weights", "expected", "actual", "diff_dst", ...
    std::string dtype;   // f32, f16, bf16 (bf16 stored as <u2 bit patterns), f64, i64
    std::string layout;  // ncx, nxc, oix, xio, o, abi ...
    npy::Array array;
};
using BundleArrays = std::vector<BundleArray>;

// A tensor as the backend saw or left it: its dtype name, dims in its own layout, and the layout name.
struct StoredTensor {
    std::string dtype;
    std::vector<std::int64_t> dims;
    std::string layout;
};

// The array of `bytes` holding tensor t; throws std::runtime_error when the byte count is not the
// shape's (never reads past what was kept).
npy::Array bytes_array(const StoredTensor& t, const std::vector<std::byte>& bytes);
// t's array from `bytes`, under `role`.
BundleArray stored(const std::string& role, const StoredTensor& t, const std::vector<std::byte>& bytes);
// [n, x..., c] dims as [n, c, x...] when channels_last; else as they are.
std::vector<std::int64_t> ncx_dims(const std::vector<std::int64_t>& native, bool channels_last);
// The reference's f64 values, magnitudes and term counts (roles expected_f64, magnitude, terms, each
// followed by `suffix`), in canonical `dims` and `layout`.
void append_reference(BundleArrays& arrays, const std::vector<double>& values, const std::vector<double>& magnitude,
                      const std::vector<std::int64_t>& terms, const std::vector<std::int64_t>& dims,
                      const std::string& layout, const std::string& suffix = "");

}  // namespace convcheck::runner
