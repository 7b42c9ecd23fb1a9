// The dispatcher: which paths can run a descriptor on this CPU, and which one to pick.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "convcheck/optimized/conv_plan.hpp"
#include "conversions.hpp"
#include "without_unit_axes.hpp"

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

// The blocked kernel runs register tiles of 4 to 14 output pixels along an output plane (height x width):
// with fewer than 4 pixels in a plane and a large sum per output (taps x ICg x OCg of at least 64K
// multiply-adds) its tiles run nearly empty and load each weight vector for one pixel. im2col_gemm (a
// matrix-vector product per image) measured 7x faster on benchdnn's 3d_conv_large_shape:1 (33^3 kernel =
// input, oc 1) and 11x on a 7x7 -> 1x1 layer of 1000 outputs; with small sums the blocked kernel stays ahead
// (bench/memory_table.cpp; docs/optimized.md, "Paths and the dispatcher").
bool blocked_tiles_run_empty(const ConvDescriptor& d) {
    std::int64_t plane = 1, sum = d.in_channels_per_group() * d.out_channels_per_group();
    for (int a = d.rank < 2 ? 0 : d.rank - 2; a < d.rank; ++a)
        if (__builtin_mul_overflow(plane, d.output_size(a), &plane) || plane >= 4) return false;
    for (int a = 0; a < d.rank; ++a)
        if (__builtin_mul_overflow(sum, d.kernel_size[a], &sum)) return true;  // far beyond 64K
    return sum >= 65536;
}

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

// CONVCHECK_NO_AVX512=1 in the environment: run as on a CPU without AVX-512 (the AVX2 kernels), so that one
// AVX-512 machine tests both (ctest optimized_*_without_avx512; docs/optimized.md). Any other value is
// ignored with a warning on stderr, once.
bool avx512_switched_off() {
    static const bool off = [] {
        const char* v = std::getenv("CONVCHECK_NO_AVX512");
        if (v == nullptr || std::strcmp(v, "") == 0 || std::strcmp(v, "0") == 0) return false;
        if (std::strcmp(v, "1") == 0) return true;
        std::fprintf(stderr, "convcheck optimized: CONVCHECK_NO_AVX512='%s' is neither 0 nor 1: ignored\n", v);
        return false;
    }();
    return off;
}

bool cpu_has_avx512() {
    static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma") &&
                            !avx512_switched_off();
    return has;
}

// The plan runs d without its unit axes (without_unit_axes.hpp): so does every question about its paths.
std::string why_unavailable(const ConvDescriptor& original, Path path) {
    const ConvDescriptor d = detail::without_unit_axes(original);
    const std::string needs_avx2 = "needs AVX2 and FMA, which this CPU lacks";
    const std::string needs_avx512 = avx512_switched_off() ? "needs AVX-512, switched off by CONVCHECK_NO_AVX512=1"
                                                           : "needs AVX-512 (F, BW, VL), which this CPU lacks";
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

Path choose_path(const ConvDescriptor& original) {
    const ConvDescriptor d = detail::without_unit_axes(original);
    // the paths in the order of preference; the first that can run d on this CPU within the memory rule
    std::vector<Path> order;
    // a 1x1 kernel on f32 NCX buffers without pads is a plain GEMM on the user's buffers, with no layout
    // conversion: ahead of depthwise too (a 1x1 depthwise layer is a scale per channel plane; measured
    // 5-80x faster than the depthwise path, which converts to channels last, for 1 to 256 channels)
    bool unpadded = true;
    for (int a = 0; a < d.rank; ++a) unpadded = unpadded && d.pads_begin[a] == 0 && d.pads_end[a] == 0;
    // ... except for images of fewer than 64 pixels with large channel counts (ICg x OCg >= 64K), whose
    // per-image GEMMs are too narrow: the blocked kernel measured up to 1.55x faster there (GoogLeNet
    // loss1/conv, 4x4, 512 -> 128, batch 96; ResNet-50 res5 1x1 layers at 7x7: 1.26-1.46x)
    const bool narrow_images = d.dst_elements() / (d.batch * d.out_channels) < 64 &&
                               d.in_channels_per_group() * d.out_channels_per_group() >= 65536;
    if (unpadded && d.dtype == DataType::f32 && d.data_format == DataFormat::ncx && !narrow_images)
        order.push_back(Path::gemm_1x1);
    // On the user's f32 NCX buffers the AVX2 depthwise kernel convolves each channel plane where it lies
    // (depthwise_ncx_avx2.cpp) where the AVX-512 one converts to channels last and back: measured on the Xeon
    // (1 thread, NCHW, ms, AVX2 against AVX-512): dw32@112 0.21 / 0.50, dw144@56 0.28 / 0.63, batch 8 2.3 /
    // 5.7-6.1, dw96@112/2 0.29 / 1.07, dw576@14 batch 8 1.08 / 1.37 (batch 1 0.14 / 0.11, the one row it loses)
    const bool ncx_kernel = is_depthwise(d) && d.dtype == DataType::f32 && d.data_format == DataFormat::ncx &&
                            cpu_has_avx2_fma() && detail::avx2::takes_depthwise_ncx(detail::make_geometry(d, 16));
    if (ncx_kernel)
        order.insert(order.end(), {Path::depthwise_avx2, Path::depthwise_avx512});
    else if (is_depthwise(d))
        order.insert(order.end(), {Path::depthwise_avx512, Path::depthwise_avx2});
    if (blocked_tiles_run_empty(d)) order.push_back(Path::im2col_gemm);
    for (const Path p : {Path::blocked_avx512, Path::blocked_avx2, Path::im2col_gemm, Path::scalar}) order.push_back(p);
    std::int64_t least = -1;
    for (const Path p : order) {
        if (!why_unavailable(d, p).empty()) continue;
        if (within_memory_rule(d, p)) return p;
        const std::int64_t bytes = path_memory_bytes(d, p);
        if (least < 0 || bytes < least) least = bytes;
    }
    // none within the rule (a single image whose padding makes the padded input larger than the input by
    // more than the fixed workspace): the first that needs at most the least plus the fixed workspace, so
    // that a few bytes less never buy the scalar path
    for (const Path p : order)
        if (why_unavailable(d, p).empty() && path_memory_bytes(d, p) <= least + kFixedWorkspaceBytes) return p;
    return Path::scalar;
}

}  // namespace convcheck::optimized
