/* convcheck plugin ABI, part of plugin.h (include that): 1.7, scales of a float forward discrete convolution
 * (convcheck/plugin/conv.h; src, weights and dst F32, F16, BF16, F8_E4M3 or F8_E5M2, docs/scales.md). A descriptor
 * whose extension chain holds one convcheck_scales asks for oneDNN's scales (its primitive attribute scales,
 * benchdnn --attr-scales; the order is benchdnn's ref_conv.cpp):
 *     v   = post_ops(src_scale * weights_scales[oc] * sum(src * weights) + bias[oc])
 *     dst = convert(v / dst_scale)
 * the bias added after the src and weights scales, any post-ops (convcheck/plugin/post_ops.h, on the chain beside
 * this extension) after the bias, the dst scale after the post-ops, and convert the one rounding to dst's type.
 * The runner sends a chain with this extension only to a plugin built against 1.7 or later; a plugin that does not
 * know the tag declines the case (types.h: THE RULE), and plugins on plugin_support.hpp decline it unless they call
 * add_scales<prepare>(accepts) (plugin_scales.hpp). It is never sent with a quantized case (whose scales are the
 * quantization extension's) nor with a backward pass.
 * How the plugin forms the products of the scales (in f32, as one multiplier, as 1 / dst_scale times v) is its own:
 * the runner's bound counts the f32 roundings of those multiplications (docs/accuracy.md, "Scales"); exact mode
 * sends only scales whose products are exact in f32 and a dst scale that is a power of two. */
#ifndef CONVCHECK_PLUGIN_SCALES_H
#define CONVCHECK_PLUGIN_SCALES_H

#include <stddef.h>
#include <stdint.h>

#include "convcheck/plugin/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scales of one case: tag CONVCHECK_EXTENSION_SCALES. Runner-owned, read-only, valid as the descriptor that
 * holds it (weights_scales too). Every scale > 0 and finite; a scale of 1 is no scale. */
typedef struct {
    convcheck_extension header; /* struct_size, tag, next */
    float src_scale;
    /* 1 (per tensor: weights_scales[0] for every output channel) or out_channels (weights_scales[oc]; oneDNN's
     * weights scale mask 1 << 0, per output channel) */
    int64_t weights_scale_count;
    const float* weights_scales;
    float dst_scale;
} convcheck_scales;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONVCHECK_PLUGIN_SCALES_H */
