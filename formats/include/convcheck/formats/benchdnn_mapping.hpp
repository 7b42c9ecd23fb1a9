// One benchdnn conv or deconv test case (a problem string and one value of every driver option) as convcheck
// runs it, or the reason it cannot: the option table of docs/benchdnn.md, in code. A case is mapped only
// where the mapping is exact; everything else is a skip reason, never an approximation.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/formats/benchdnn.hpp"
#include "convcheck/formats/benchdnn_options.hpp"

namespace convcheck {

// One value of every driver option: the settings of one benchdnn test case (a prb_t).
struct BenchdnnSetup {
    std::string dir, dt, cfg, stag, wtag, dtag, strides, alg, mb;
    std::array<std::string, kBenchdnnAttrCount> attr;
    std::string ctx_init, ctx_exe;
    std::string bia_dt = "undef";                         // current oneDNN's --bia-dt
    BenchdnnVersion version = BenchdnnVersion::current;   // whose rules give the bias its data type
};

struct BenchdnnMapping {
    std::optional<ConvDescriptor> descriptor;          // the conv driver's case as convcheck runs it, or
    std::optional<TransposedDescriptor> transposed;    // the deconv driver's (forward directions only), or
    std::optional<QuantizedDescriptor> quantized;      // the conv driver's int8 case (benchdnn_quantized.hpp), or
    std::string skip_reason;                           // why convcheck cannot run it exactly
};

// The bias (prb_t's bia_dt): current oneDNN gives FWD_B and BWD_WB an f32 bias (f64 when the data type, or the
// weights' of three, is f64) and ignores --bia-dt there; FWD_D, FWD_I and BWD_W have a bias of --bia-dt's type unless it
// is undef (BWD_W then computes the bias gradient too: dir=bwd_w,bias=1); BWD_D has none (its primitive takes no bias).
// v3.7.1: FWD_B and BWD_WB only, of the weights' data type. A bias of another data type than src, weights and dst is
// skipped naming the rule (convcheck's descriptor has one data type for all four).
BenchdnnMapping map_benchdnn_case(const BenchdnnSetup& setup, const BenchdnnProblem& problem);
// The deconv driver's: FWD_B (bias), FWD_D and FWD_I (no bias) are the transposed convolution; BWD_D, BWD_W,
// BWD_WB and BWD_DW are skipped naming the direction (convcheck has no backward pass of a transposed
// convolution); `--alg=auto` is not an algorithm of that driver; `--wtag` letters are over oneDNN's
// deconvolution weights {[G,] OC/G, IC/G, k...}.
BenchdnnMapping map_benchdnn_case(const BenchdnnSetup& setup, const BenchdnnDeconvProblem& problem);

// benchdnn's names, canonical: str2dir (any case) -> "FWD_B", ...; str2alg -> "direct", "auto", "wino";
// empty when benchdnn does not know the value.
// --attr-fpmath=MODE[:APPLY_TO_INT] as a descriptor's fpmath (strict, tf32, bf16) and whether it applies to integer
// primitives (oneDNN applies it to floating-point ones only unless APPLY_TO_INT is true); false with *reason for
// what convcheck does not model (f16, any) or benchdnn refuses.
bool benchdnn_fpmath(const std::string& written, FpMath* mode, bool* apply_to_int, std::string* reason);
std::string benchdnn_dir_name(const std::string& written);
std::string benchdnn_alg_name(const std::string& written);

// str2dt: the canonical name of a data type benchdnn knows ("dnnl_f16" -> "f16", "undef"); empty when it does not.
std::string benchdnn_dt_name(const std::string& written, BenchdnnVersion version);

// The src, wei, dst data types of a --dt entry (and v3.3's --cfg), broadcast to three as prb_t does;
// empty with *reason set when benchdnn refuses them.
std::optional<std::array<std::string, 3>> benchdnn_data_types(const std::string& dt, const std::string& cfg,
                                                              std::string* reason,
                                                              BenchdnnVersion version = BenchdnnVersion::current);

}  // namespace convcheck
