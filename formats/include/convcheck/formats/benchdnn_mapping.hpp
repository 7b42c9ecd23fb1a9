// One benchdnn conv or deconv test case (a problem string and one value of every driver option) as convcheck
// runs it, or the reason it cannot: the option table of docs/benchdnn.md, in code. A case is mapped only
// where the mapping is exact; everything else is a skip reason, never an approximation.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "convcheck/formats/benchdnn.hpp"
#include "convcheck/formats/benchdnn_options.hpp"

namespace convcheck {

// One value of every driver option: the settings of one benchdnn test case (a prb_t).
struct BenchdnnSetup {
    std::string dir, dt, cfg, stag, wtag, dtag, strides, alg, mb;
    std::array<std::string, kBenchdnnAttrCount> attr;
    std::string ctx_init, ctx_exe;
};

struct BenchdnnMapping {
    std::optional<ConvDescriptor> descriptor;          // the conv driver's case as convcheck runs it, or
    std::optional<TransposedDescriptor> transposed;    // the deconv driver's (forward directions only), or
    std::string skip_reason;                           // why convcheck cannot run it exactly
};

BenchdnnMapping map_benchdnn_case(const BenchdnnSetup& setup, const BenchdnnProblem& problem);
// The deconv driver's: FWD_B (bias), FWD_D and FWD_I (no bias) are the transposed convolution; BWD_D, BWD_W,
// BWD_WB and BWD_DW are skipped naming the direction (convcheck has no backward pass of a transposed
// convolution); `--alg=auto` is not an algorithm of that driver; `--wtag` letters are over oneDNN's
// deconvolution weights {[G,] OC/G, IC/G, k...}.
BenchdnnMapping map_benchdnn_case(const BenchdnnSetup& setup, const BenchdnnDeconvProblem& problem);

// benchdnn's names, canonical: str2dir (any case) -> "FWD_B", ...; str2alg -> "direct", "auto", "wino";
// empty when benchdnn does not know the value.
std::string benchdnn_dir_name(const std::string& written);
std::string benchdnn_alg_name(const std::string& written);

// The src, wei, dst data types of a --dt entry (and v3.3's --cfg), broadcast to three as prb_t does;
// empty with *reason set when benchdnn refuses them.
std::optional<std::array<std::string, 3>> benchdnn_data_types(const std::string& dt, const std::string& cfg,
                                                              std::string* reason);

}  // namespace convcheck
