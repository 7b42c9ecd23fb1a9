// What the optimized backward passes decline (why_backward_unsupported): memory layouts and mixed
// per-tensor dtypes the forward declines too, a backward data split into more phases than kMaxBackwardPhases, and any workspace the
// forward's limits refuse (the phases' own forward convolutions, or backward weights' padded input);
// and which forced paths they take (why_backward_unavailable).
#include "backward_phases.hpp"
#include "convcheck/optimized/backward_plan.hpp"

namespace convcheck::optimized {

std::string why_backward_unsupported(const ConvDescriptor& d) {
    if (std::string why = why_layout_unsupported(d); !why.empty()) return why;
    if (std::string why = why_dtypes_unsupported(d); !why.empty()) return why;
    if (d.pass != Pass::backward_data)
        if (std::string why = why_too_large(d); !why.empty()) return why;
    if (d.pass == Pass::backward_weights) return "";
    const std::int64_t phases = detail::backward_data_phase_count(d);
    if (phases < 0 || phases > detail::kMaxBackwardPhases)
        return "backward data runs one forward convolution per residue of the input modulo the strides (the "
               "product over axes of min(stride, input)); " +
               (phases < 0 ? std::string("more than 2^62") : std::to_string(phases)) + " phases exceed its limit of " +
               std::to_string(detail::kMaxBackwardPhases);
    for (const detail::Phase& p : detail::backward_data_phases(d))
        if (p.has_taps)
            if (std::string why = why_too_large(p.forward); !why.empty()) return "a phase of backward data (" + to_string(p.forward) + "): " + why;
    return "";
}

std::string why_backward_unavailable(const ConvDescriptor& d, Path path) {
    if (path == Path::automatic) return "";
    if (d.pass == Pass::backward_data) {
        for (const detail::Phase& p : detail::backward_data_phases(d))
            if (p.has_taps)
                if (std::string why = why_unavailable(p.forward, path); !why.empty()) return "a phase of backward data: " + why;
        return "";
    }
    switch (path) {
    case Path::scalar: return "";
    case Path::blocked_avx2: return cpu_has_avx2_fma() ? "" : "needs AVX2 and FMA, which this CPU lacks";
    case Path::blocked_avx512: return cpu_has_avx512() ? "" : "needs AVX-512 (F, BW, VL), which this CPU lacks";
    default: return "backward weights runs scalar, blocked_avx2 or blocked_avx512 kernels";
    }
}

}  // namespace convcheck::optimized
