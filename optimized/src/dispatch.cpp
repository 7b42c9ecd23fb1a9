// The dispatcher: which paths can run a descriptor on this CPU, and which one to pick.
#include <string>

#include "convcheck/optimized/conv_plan.hpp"

namespace convcheck::optimized {
namespace {

struct PathName {
    Path path;
    std::string_view name;
};
constexpr PathName kPathNames[] = {
    {Path::automatic, "auto"},           {Path::scalar, "scalar"},
    {Path::im2col_gemm, "im2col_gemm"},  {Path::gemm_1x1, "gemm_1x1"},
    {Path::blocked_avx2, "blocked_avx2"}, {Path::blocked_avx512, "blocked_avx512"},
    {Path::depthwise_avx2, "depthwise_avx2"}, {Path::depthwise_avx512, "depthwise_avx512"},
};

bool is_1x1_unit_stride(const ConvDescriptor& d) {
    for (int a = 0; a < d.rank; ++a)
        if (d.kernel_size[a] != 1 || d.strides[a] != 1) return false;
    return true;
}

bool is_depthwise(const ConvDescriptor& d) { return d.in_channels_per_group() == 1 && d.out_channels_per_group() == 1; }

}  // namespace

std::string_view to_string(Path path) {
    for (const auto& p : kPathNames)
        if (p.path == path) return p.name;
    return "unknown";
}

bool parse_path(std::string_view text, Path* path) {
    for (const auto& p : kPathNames)
        if (p.name == text) {
            *path = p.path;
            return true;
        }
    return false;
}

bool cpu_has_avx2_fma() {
    static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return has;
}

bool cpu_has_avx512() {
    static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
    return has;
}

std::string why_unavailable(const ConvDescriptor& d, Path path) {
    const std::string needs_avx2 = "needs AVX2 and FMA, which this CPU lacks";
    const std::string needs_avx512 = "needs AVX-512 (F, BW, VL), which this CPU lacks";
    switch (path) {
    case Path::automatic: return "is not a path (it asks the dispatcher to choose)";
    case Path::scalar: return "";
    case Path::im2col_gemm:
    case Path::blocked_avx2: return cpu_has_avx2_fma() ? "" : needs_avx2;
    case Path::gemm_1x1:
        if (!is_1x1_unit_stride(d)) return "applies only to a 1x1 kernel with unit strides";
        return cpu_has_avx2_fma() ? "" : needs_avx2;
    case Path::blocked_avx512: return cpu_has_avx512() ? "" : needs_avx512;
    case Path::depthwise_avx2:
    case Path::depthwise_avx512:
        if (!is_depthwise(d)) return "applies only to one input and one output channel per group (depthwise)";
        if (path == Path::depthwise_avx512) return cpu_has_avx512() ? "" : needs_avx512;
        return cpu_has_avx2_fma() ? "" : needs_avx2;
    }
    return "is unknown";
}

std::vector<Path> available_paths(const ConvDescriptor& d) {
    std::vector<Path> out;
    for (const auto& p : kPathNames)
        if (p.path != Path::automatic && why_unavailable(d, p.path).empty()) out.push_back(p.path);
    return out;
}

Path choose_path(const ConvDescriptor& d) {
    const auto can = [&](Path p) { return why_unavailable(d, p).empty(); };
    if (can(Path::depthwise_avx512)) return Path::depthwise_avx512;
    if (can(Path::depthwise_avx2)) return Path::depthwise_avx2;
    // a 1x1 kernel on f32 NCX buffers without pads is a plain GEMM on the user's buffers
    bool unpadded = true;
    for (int a = 0; a < d.rank; ++a) unpadded = unpadded && d.pads_begin[a] == 0 && d.pads_end[a] == 0;
    if (can(Path::gemm_1x1) && unpadded && d.dtype == DataType::f32 && d.data_format == DataFormat::ncx)
        return Path::gemm_1x1;
    if (can(Path::blocked_avx512)) return Path::blocked_avx512;
    if (can(Path::blocked_avx2)) return Path::blocked_avx2;
    return Path::scalar;
}

}  // namespace convcheck::optimized
