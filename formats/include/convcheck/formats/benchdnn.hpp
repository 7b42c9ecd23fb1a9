// oneDNN benchdnn convolution problem strings, read exactly as benchdnn reads them
// (tests/benchdnn/conv/conv_aux.cpp: str2desc; dnn_types/utils: sanitize_desc; conv.hpp: init_pad_r),
// and printed back in benchdnn's own short form.
//
//   gXmbX_icXidXihXiwX_ocXodXohXowX_kdXkhXkwX_sdXshXswX_pdXphXpwX_ddXdhXdwXnS
//
// The rules, in benchdnn's words and in ours (docs/benchdnn.md has the full list):
//   - `_` is ignored between entries; an entry given twice keeps its last value; `n` starts the
//     name, which runs to the end of the string.
//   - Defaults: mb = 2, g = 1, strides 1, dilations 0, pads deduced.
//   - Dilation is 0-based in benchdnn (0 = dense): the canonical descriptor gets dd + 1.
//   - An axis is present when its input, output, kernel or dilation value is non-zero, its stride
//     is not 1 or its pad is positive; a present axis needs its input and kernel size. A missing output size is
//     computed as (i - ((k-1)*(d+1)+1) + 2*p) / s + 1 (C division; a missing pad is 0); a missing
//     pad with a given output is ((o-1)*s - i + ((k-1)*(d+1)+1)) / 2.
//   - The rank comes from which output sizes exist: d present -> 3-D (h and w copied from d when
//     both are absent, an error when only one is), else h -> 2-D (w copied from h when absent),
//     else w -> 1-D.
//   - The right pad is never given: it is (o-1)*s - i + ((k-1)*(d+1)+1) - p. oneDNN then demands
//     p >= 0 and right pad + s > 0; an output size inconsistent with that is an error here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

namespace convcheck {

// Which benchdnn driver reads a problem string (benchdnn takes it from its command line: `benchdnn --conv`,
// `benchdnn --deconv`; its input files do not say). The deconv driver's problems are transposed convolutions
// with their own output and pad deductions (benchdnn_deconv below).
enum class BenchdnnDriver { conv, deconv };
const char* benchdnn_driver_name(BenchdnnDriver driver);                    // "conv", "deconv"
std::optional<BenchdnnDriver> parse_benchdnn_driver(std::string_view name);  // "conv", "deconv"; else nullopt

// Which oneDNN's benchdnn grammar reads a batch file (docs/benchdnn.md, "Which oneDNN"). `current` (the default) is
// oneDNN's main branch as of 2026-08 (commit 3f27bec2): its conv and deconv drivers have `--bia-dt`, FWD_B and BWD_WB
// get an f32 bias (f64 for f64 weights) whatever `--dt` says, and the line `--match` filters starts at the driver's own
// options. `v3_7_1` is oneDNN v3.7.1: no `--bia-dt` (benchdnn exits at it), the bias takes the weights' data type,
// and the `--match` line starts with `--conv` (or `--deconv`) and the global options that differ from their defaults.
enum class BenchdnnVersion { current, v3_7_1 };
const char* benchdnn_version_name(BenchdnnVersion version);                    // "current", "3.7.1"
std::optional<BenchdnnVersion> parse_benchdnn_version(std::string_view name);  // "current", "3.7.1"; else nullopt

// What a problem string does not say; benchdnn takes it from its options (--dir, --dt, --stag,
// --wtag). The defaults are benchdnn's: --dir=FWD_B (with bias), --dt=f32, plain layouts.
struct BenchdnnSettings {
    bool has_bias = true;
    DataType dtype = DataType::f32;
    DataFormat data_format = DataFormat::ncx;
    FilterFormat filter_format = FilterFormat::oix;
};

struct BenchdnnProblem {
    ConvDescriptor descriptor;  // canonical: 1-based dilations, explicit pads_end
    std::string name;           // the text after `n`, without one pair of enclosing double quotes
    std::string written_name;   // the text after `n` as written (benchdnn prints it back so)
    bool has_groups = false;    // `g` was given (even g1): benchdnn then uses grouped weights (goihw, ...)
};

// Parses one problem string. Throws ConvError naming the benchdnn field (e.g. "kh") for anything
// benchdnn (or the oneDNN primitive it creates) rejects; the result is validate()d.
BenchdnnProblem parse_benchdnn(std::string_view problem, const BenchdnnSettings& settings = {});

// Prints the geometry of d as a benchdnn problem string in benchdnn's short form (g only when
// groups != 1, mb only when != 2, strides only when one is not 1, dilations only when one is not
// dense, h/w omitted when equal to the axis before; output sizes and left pads always), followed by
// n"name" when a name is given. dtype, formats and bias are not part of a problem string.
// benchdnn deduces the right pad as the smallest that yields the output size, so a descriptor
// whose pads_end leaves rows that no window reaches reads back with that smaller pads_end
// (the same convolution). Throws ConvError when benchdnn cannot express d: a negative pads_begin,
// a right pad with pad + stride <= 0, or a name with whitespace or a double quote.
std::string to_benchdnn(const ConvDescriptor& d, std::string_view name = {});

// The name without one pair of enclosing double quotes (`n"resnet_50:conv1"` names resnet_50:conv1).
std::string benchdnn_unquoted_name(const std::string& written);

// benchdnn's deconv driver (deconv/deconv_aux.cpp str2desc, deconv.hpp init_pad_r; oneDNN v3.7.1): the same
// entries, defaults, axis and rank rules, but the roles of i and o swap. `ic`, `i*` are the deconvolution's
// input (src), `oc`, `o*` its output (dst); with K = (k-1)*(d+1)+1 and 0-based d:
//   missing output    o = (i-1)*s + (k-1)*(d+1) - 2p + 1   (a missing pad counts as 0; not positive: error)
//   missing left pad  p = ((i-1)*s - o + K) / 2            (C division)
//   right pad         p_r = (i-1)*s - o + K - p            (init_pad_r; never written)
// oneDNN's deconvolution descriptor then demands p >= 0 and p_r + s > 0 (errors here, as there). The canonical
// TransposedDescriptor: c = ic, o = oc, in = i, pads_begin = p, pads_end = p_r, output_padding 0 (benchdnn's
// deconvolution has none), dilations d + 1; its output size (in-1)*s - pb - pe + K + op is then exactly o.
struct BenchdnnDeconvProblem {
    TransposedDescriptor descriptor;
    std::string name, written_name;
    bool has_groups = false;
};
BenchdnnDeconvProblem parse_benchdnn_deconv(std::string_view problem, const BenchdnnSettings& settings = {});
// benchdnn's deconv driver short form of t (the output sizes and left pads always; benchdnn deduces the
// right pad, pads_end - output_padding). Throws ConvError for a negative pads_begin or a right pad with
// pad + stride <= 0, which benchdnn cannot express.
std::string to_benchdnn(const TransposedDescriptor& t, std::string_view name = {});

// Batch files (options, --batch, every test case benchdnn's conv driver would run): benchdnn_driver.hpp.

}  // namespace convcheck
