// Scales on a float convolution (oneDNN's primitive attribute scales, benchdnn --attr-scales): a src scale, a
// weights scale per tensor or per output channel, and a dst scale, applied as oneDNN applies them (its guide
// "Quantization": "the destination quantization parameters are applied after the post-ops";
// benchdnn's ref_conv.cpp: each product of src * src_scale and weights * weights_scale(oc) summed, the bias added,
// the post-ops, then the result times 1 / dst_scale, then the conversion to dst's type):
//   v   = post_ops(src_scale * weights_scale(oc) * sum(src * weights) + bias(oc))
//   dst = convert(v / dst_scale)
// The descriptor's keys (the qconv descriptor's words, quantized_descriptor.hpp):
//   ssc=S     the src scale (default 1)
//   wsc=S     the weights scale of every output channel; wsc=oc: one per output channel, drawn from the case's
//             seed; wsc=a:b:...: one per output channel, given (out_channels values)
//   dsc=S     the dst scale (default 1)
// Each scale is an f32 value, > 0 and finite. A descriptor without the keys has no scales (every one 1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace convcheck {

struct ConvScales {
    float src = 1.0f, weights = 1.0f, dst = 1.0f;
    bool per_channel = false;    // wsc=oc or a list: `weights` is unused, each output channel has its own
    std::vector<float> channel;  // wsc=a:b:...: those; empty with wsc=oc (drawn by the runner from the case's seed)

    bool operator==(const ConvScales& other) const = default;
    // True when any scale is not 1 or the weights scales are per channel: the descriptor has scales.
    bool present() const { return src != 1.0f || weights != 1.0f || dst != 1.0f || per_channel; }
    // True when the per-channel scales are wanted but not given (wsc=oc): they are drawn before use.
    bool drawn() const { return per_channel && channel.empty(); }
    // Output channel oc's weights scale (per channel: channel[oc], which must be given or drawn).
    float weights_of(std::int64_t oc) const { return per_channel ? channel.at(static_cast<std::size_t>(oc)) : weights; }
};

// The keys that differ from the defaults, each led by a comma: ",ssc=0.5,wsc=oc,dsc=2" ("" without scales).
std::string scales_text(const ConvScales& s);
// Reads one of the keys ssc, wsc, dsc into s; throws ConvError naming the key for a value that is not a decimal
// number (or, for wsc, oc or a colon-separated list).
void parse_scale_key(std::string_view key, const std::string& value, ConvScales* s);
// Throws ConvError for a scale that is not > 0 and finite, or a given list of another length than out_channels.
void validate_scales(const ConvScales& s, std::int64_t out_channels);
// Per-channel weights scales drawn from a seed: (2k + 1) * 2^-e, k in [0, 7], e in [3, 8] (at most 4 significant
// bits, in [1/256, 15/8]), as the qconv cases draw theirs, so that exact mode's products stay exact in f32.
std::vector<float> draw_channel_scales(std::int64_t out_channels, std::uint64_t seed);

}  // namespace convcheck
