// The adaptations of a transposed convolution (ABI 1.3, convcheck_conv_transposed_desc) for a library
// whose deconvolution is 2-D with unsigned pads, an output adjustment (output padding) below the stride
// or none, and possibly symmetric pads only (XNNPACK, OpenCV dnn, Arm NN): exact data movement only.
//
// Such a library's output size is (in-1)*s + (k-1)*d + 1 - begin - end + adjustment, and output x takes
// input (x + begin - k*d) / s: `end` enters the size only. The case's (pb, pe, op) is the library's
// begin = pb, end = pe - op + adjustment with the adjustment the library takes. Where none fits (a negative
// pad, an output padding beyond what the adjustment and pe can hold), the library computes the whole
// output (no pads, no adjustment, no bias), and the plugin moves the part the case keeps into dst (zeros
// where no tap reaches) and adds the bias in f32 ("cropped"). Rank 1 is 2-D with a unit height.
//
// An invalid case reaches the library as it is (docs/backends.md, "The invalid suite"): the crop computes a valid
// whole output whatever the pads, so it is taken only where the case's pads keep the descriptor's rules
// (transposed_crop_hides); and a negative output padding is never folded into a pad (pe - op would make it a
// valid, larger end pad): the library takes it as its adjustment, or the plugin cannot express it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/plugin.h"

namespace convcheck_plugin_support {

// What the library's pads can say.
struct TransposedPadsRule {
    bool adjustment = true;  // it takes an adjustment in [0, stride) (false: none)
    bool symmetric = false;  // begin == end only
};

// One spatial axis as the library takes it.
struct TransposedAxis {
    int64_t in = 1, kernel = 1, stride = 1, dilation = 1, begin = 0, end = 0, adjustment = 0;
    int64_t out = 1;       // the spec's dst size
    int64_t computed = 1;  // the size the library writes
    int64_t offset = 0;    // dst x is the library's x + offset
};

// The 2-D case the library computes for a rank 1 or 2 case t: direct, or cropped.
struct Transposed2d {
    TransposedAxis axes[2];  // height, width
    bool direct = true;
    bool library_bias = false;  // the library adds the bias (direct); else cropped_bias_f32 does
};

// "" when every number the plugins compute from t's sizes, strides, dilations, pads and output padding fits
// in 64 bits (computed exactly, in 128): per axis the kernel's span (k-1)*d+1, the whole output (in-1)*s + span,
// the output size, and the differences of pads and output padding the adaptations pass on (pe - op,
// op + pb - pe); else which one does not, in words ("the output size[0] = (in-1)*s - pb - pe + (k-1)*d + 1 + op
// is beyond 64 bits"). Only an invalid case's values can break it; a plugin refuses such a case itself (invalid
// argument) instead of handing its library a wrapped number.
std::string transposed_beyond_64_bits(const convcheck_conv_transposed_desc& t);

// The output size of axis a, (in-1)*s - pb - pe + (k-1)*d + 1 + op; when transposed_beyond_64_bits(t) is "".
int64_t transposed_output_size(const convcheck_conv_transposed_desc& t, int a);

// "" when cropping a whole output computes exactly t, else the rule of the transposed descriptor (validate())
// that t's pads break and the crop would hide, in words: an output padding below 0, a pad or output padding
// beyond 2^40, an output size below 1 (e.g. "output_padding[0] = -1 < 0").
std::string transposed_crop_hides(const convcheck_conv_transposed_desc& t);

// Direct where the library's pads say t, else cropped, unless transposed_crop_hides(t): then direct with the
// values as they are (a negative output padding as the adjustment), for the library to judge.
Transposed2d transposed_2d(const convcheck_conv_transposed_desc& t, const TransposedPadsRule& rule);

// Why a plugin (`plugin`, e.g. "xnnpack") cannot hand t to its library (`library`, e.g. "XNNPACK") in this
// form, "" when it can: transposed_beyond_64_bits, a rank other than 1 and 2, data or weights formats other than NCX/NXC and OIX/XIO,
// groups that do not split C and O into whole groups (the library takes C/G and O/G channels per group), and
// transposed_output_padding_inexpressible.
std::string transposed_2d_inexpressible(const convcheck_conv_transposed_desc& t, const TransposedPadsRule& rule,
                                        const char* plugin, const char* library);

// "" unless t has a negative output padding and the library has no adjustment (`rule`) or takes symmetric pads
// and t's differ: only a fold into the pads could say it, which makes it a valid pad.
std::string transposed_output_padding_inexpressible(const convcheck_conv_transposed_desc& t, const TransposedPadsRule& rule,
                                                    const char* plugin, const char* library);

// Whether t has a dilation other than 1 on any axis (for libraries without one).
bool transposed_dilated(const convcheck_conv_transposed_desc& t);

// The activations are seen as logical {N, G, channels/G, H, W} (rank 1: H = 1), so that a library without
// groups can take each group's images as arrays of their own. The memory order of the runner's src or dst:
// NCX {0, 1, 2, 3, 4}, NXC {0, 3, 4, 1, 2}.
std::vector<int> transposed_runner_order(const convcheck_conv_transposed_desc& t);

// src into the library's array of logical {N, G, C/G, H, W} in memory order `library` (sized for it, tail
// untouched); e.g. NHWC {0, 3, 4, 1, 2}, NCHW {0, 1, 2, 3, 4}, one NCHW image per group {1, 0, 2, 3, 4}.
void transposed_src_to(const convcheck_conv_transposed_desc& t, const Transposed2d& g, const void* src,
                       const std::vector<int>& library, void* out);

// The library's logical {N, G, O/G, computed...} result in memory order `library` into the runner's dst: the
// window the case keeps, zeros where it reaches beyond; then the bias in f32 when the library did not add it.
void transposed_dst_from(const convcheck_conv_transposed_desc& t, const Transposed2d& g, const void* result,
                         const std::vector<int>& library, const void* bias, void* dst);

// The runner's weights as logical {G, C/G, O/G, kh, kw} into the library's array in memory order
// `library` (e.g. XNNPACK's [G][O/G][kh][kw][C/G]: {0, 2, 3, 4, 1}).
void transposed_weights_to(const convcheck_conv_transposed_desc& t, const Transposed2d& g, const void* weights,
                           const std::vector<int>& library, void* out);

}  // namespace convcheck_plugin_support
