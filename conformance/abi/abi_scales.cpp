// A descriptor's scales <-> the ABI's scales extension (abi_scales.hpp).
#include "convcheck/abi/abi_scales.hpp"

#include <string>

namespace convcheck::runner {

void attach_scales(const ConvDescriptor& d, convcheck_conv_desc& desc, AbiScales& holder) {
    if (!d.scales.present()) return;
    if (d.scales.drawn())
        throw ConvError("wsc", "oc", "the per-channel scales must be drawn before the descriptor crosses the ABI");
    holder.weights = d.scales.per_channel ? d.scales.channel : std::vector<float>{d.scales.weights};
    convcheck_scales& e = holder.extension;
    e.header.struct_size = sizeof(e);
    e.header.tag = CONVCHECK_EXTENSION_SCALES;
    e.header.next = desc.next;
    e.src_scale = d.scales.src;
    e.weights_scale_count = static_cast<int64_t>(holder.weights.size());
    e.weights_scales = holder.weights.data();
    e.dst_scale = d.scales.dst;
    desc.next = &e.header;
}

ConvScales scales_from_abi(const convcheck_conv_desc& desc, std::int64_t out_channels) {
    ConvScales s;
    if (desc.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, next)) return s;
    bool found = false;
    for (const convcheck_extension* x = desc.next; x != nullptr; x = x->next) {
        if (x->tag != CONVCHECK_EXTENSION_SCALES) continue;
        if (found) throw ConvError("next", "two scales extensions", "a chain holds at most one");
        found = true;
        if (x->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_scales, dst_scale))
            throw ConvError("scales.struct_size", std::to_string(x->struct_size), "too small for 1.7's fields");
        const auto& e = *reinterpret_cast<const convcheck_scales*>(x);
        if ((e.weights_scale_count != 1 && e.weights_scale_count != out_channels) || e.weights_scales == nullptr)
            throw ConvError("scales.weights_scale_count", std::to_string(e.weights_scale_count),
                            "1 or out_channels (" + std::to_string(out_channels) + "), with weights_scales not NULL");
        s.src = e.src_scale;
        s.dst = e.dst_scale;
        if (e.weights_scale_count == 1) {  // per tensor (one output channel reads the same)
            s.weights = e.weights_scales[0];
        } else {
            s.per_channel = true;
            s.channel.assign(e.weights_scales, e.weights_scales + e.weights_scale_count);
        }
        validate_scales(s, out_channels);
    }
    return s;
}

}  // namespace convcheck::runner
