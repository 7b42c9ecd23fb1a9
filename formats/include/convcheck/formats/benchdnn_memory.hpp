// The memory of a benchdnn conv or deconv case's src, weights and dst: the tags (--stag, --wtag, --dtag) and the
// explicit strides (--strides, conv driver only) as the descriptor's formats and memory strides, or the reason they
// cannot be (docs/benchdnn.md, "--stag, --dtag", "--wtag", "--strides").
//
// benchdnn's tags and strides are over a tensor's logical dims: data {N, C, spatial...}, weights {[G,] OC/G, IC/G,
// k...}. A tag convcheck names (abx = ncx, axb = nxc; oix, xio) becomes the format; any other plain tag, src and dst
// in different layouts, and explicit strides become memory strides over ncx / oix, whose dim order is the logical
// one (grouped weights: G and OC/G as the one dim O, when their strides allow: stride(G) = OC/G * stride(OC/G)).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/formats/benchdnn_options.hpp"

namespace convcheck {

// One tensor's memory: a format convcheck names, or strides over its logical dims (a plain tag's, or given).
struct BenchdnnTensorMemory {
    std::string format;                  // "ncx", "nxc" / "oix", "xio", or "" when `letters` or `strides` say
    std::string letters;                 // a plain tag as letters outermost first ("acbd"); dense in that order
    std::vector<std::int64_t> strides;   // --strides, logical order
};

struct BenchdnnMemory {
    BenchdnnTensorMemory src, weights, dst;
};

// The tags and strides of one setup, checked as benchdnn checks them; nullopt with *reason set otherwise.
// `ndims` is the data tensors' (rank + 2); grouped weights have one more.
std::optional<BenchdnnMemory> benchdnn_memory(const std::string& stag, const std::string& wtag, const std::string& dtag,
                                              const std::string& strides, BenchdnnDriver driver, int ndims,
                                              bool grouped, std::string* reason);

// Sets d's formats and memory strides from `m` (d's geometry, groups and channels already set); false with *reason
// set when the weights' strides do not merge G and OC/G into one dim, or a stride list breaks memory_layout.hpp's
// rules (benchdnn's memory descriptor would be refused too).
bool apply_benchdnn_memory(const BenchdnnMemory& m, ConvDescriptor& d, std::string* reason);

}  // namespace convcheck
