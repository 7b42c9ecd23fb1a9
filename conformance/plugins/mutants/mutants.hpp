// The mutants plugin: a plain convolution backend with one deliberate bug per switch, chosen with
// `--backend-option mutant=<name>` (ABI 1.1 create options). It exists to prove that the smoke
// suite catches every one of these bugs; mutant=none is the correct baseline and must pass.
#pragma once

#include <string_view>

namespace convcheck::mutants {

enum class Mutant {
    none,
    pad_off_by_one,         // a positive begin pad is taken one smaller: the window shifts by one
    dilation_ignored,       // every dilation read as 1
    groups_mixed,           // every group reads the first group's input channels
    bias_dropped,           // the bias is never added
    layout_transposed,      // src always read as NCX, whatever the data format says
    filter_format_ignored,  // weights always read as OIX
    bf16_truncation,        // bf16 results truncated instead of rounded to nearest even
    wrong_output_size,      // output size with ceil instead of floor: writes past the output
    racy_split,             // the reduction split over two threads that read-modify-write dst (lost update)
    border_tap,             // at the border the input edge is repeated instead of reading zero padding
    kernel_flipped,         // true convolution (kernel reversed) instead of cross-correlation
    negative_pads_clamped,  // negative pads read as 0: no cropping
    window_overread,        // also multiplies the input element after the window by 0: values right, NaN leaks
    last_ulp,               // the last output one ulp off: inside every bound, caught only by exact mode
    half_accumulation,      // f16/bf16 cases accumulate in the storage type while declaring f32
};

inline constexpr std::string_view kMutantNames[] = {
    "none",         "pad_off_by_one",    "dilation_ignored", "groups_mixed",          "bias_dropped",
    "layout_transposed", "filter_format_ignored", "bf16_truncation", "wrong_output_size", "racy_split",
    "border_tap",   "kernel_flipped",    "negative_pads_clamped", "window_overread",  "last_ulp",
    "half_accumulation",
};

}  // namespace convcheck::mutants
