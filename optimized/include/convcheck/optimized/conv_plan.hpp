// The optimized discrete convolution: a plan that validates a descriptor, picks a path (or is told
// which), packs the weights once, and then runs on buffers in the descriptor's dtype and formats.
//
//   optimized::ConvPlan plan(desc, weights, bias, {.threads = 2});
//   plan.execute(src, dst);            // plan.path() names the path it took
//
// Every path accumulates in f32 and rounds the f32 result once (round to nearest even) into an
// f16/bf16 output. Results are bitwise identical for any number of threads: work is split only
// over independent outputs, in blocks whose sizes do not depend on the thread count, and every
// output is summed in one fixed order (bias, then taps outermost-first, then input channels).
// The optimized code never calls the reference: the tests check each against the other.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/optimized/decomposition.hpp"

namespace convcheck::optimized {

// The paths of the dispatcher. `automatic` asks the dispatcher to pick.
enum class Path : int {
    automatic = 0,
    scalar,            // portable direct loops; every descriptor, every CPU
    im2col_gemm,       // im2col + Eigen GEMM; the general fallback (AVX2+FMA)
    gemm_1x1,          // 1x1 kernel with unit strides: the input already is the GEMM matrix (AVX2+FMA)
    blocked_avx2,      // register-blocked direct kernel, 8-float output-channel blocks
    blocked_avx512,    // register-blocked direct kernel, 16-float output-channel blocks
    depthwise_avx2,    // one input and one output channel per group, channels vectorised
    depthwise_avx512,
};

std::string_view to_string(Path path);
// "scalar", "im2col_gemm", ...; also "auto". Returns false on an unknown name.
bool parse_path(std::string_view text, Path* path);

struct Options {
    int threads = 0;                      // 0: TBB's default; otherwise an arena of exactly this many
    Path forced_path = Path::automatic;   // a path that does not apply, or that the CPU lacks, is a ConvError
    // The most bytes the padded input (the channels-last f32 copy of src that the kernels read, when src
    // is not already one) may take at once; 0: the memory rule's, the input's bytes + kFixedWorkspaceBytes / 2.
    // The plan packs and runs the batch in chunks of as many images as fit, and on the blocked paths an image
    // that does not fit in bands of its work items (pixel chunks; 3-D: planes). The same bits whatever it is.
    std::int64_t padded_input_budget = 0;
    // Whether a large dst that the kernels write in place may be stored non-temporally (no read for
    // ownership: such output does not stay in a core's cache anyway); false where the caller reads dst back at
    // once (backward data's phases, scattered after). The same bits either way.
    bool stream_large_output = true;
    // The dst bytes above which the blocked kernel's channels-last dst is stored non-temporally (when
    // stream_large_output); 0: half the last-level cache (on AMD at most one CCD's 32 MiB), and at least 16 MiB. A
    // non-temporal store skips the read for ownership but leaves dst in no cache: it pays only where dst could not
    // stay in the last-level cache. The AVX-512 depthwise kernel streams its f32 channels-last dst where its input
    // and output together pass this bound; BackwardDataPlan its f32 channels-last diff_src likewise (the 1x1 and row
    // kernels' full tiles, the zeros of the phases no tap reaches). (The NCX 1x1 tiles stream past 16 MiB whatever the
    // cache: their many strided streams are what it saves.)
    std::int64_t stream_nxc_output_above = 0;
};

// Why the optimized implementation cannot run the valid descriptor `d` at all (its padded input,
// output or packed weights exceed 2^60 floats, beyond its 64-bit index arithmetic; or its padded
// input would exceed both 2^26 floats and 32 times the input and output together, padding far larger
// than the data; ConvPlan throws this as a ConvError), or an empty string when it can. `d` must be
// valid (see validate).
std::string why_too_large(const ConvDescriptor& d);

// Why the optimized implementation does not take d's memory layout (it reads dense tensors with OIX or
// XIO weights: strided tensors and OXI are declined; ConvPlan throws this as a ConvError), or "".
std::string why_layout_unsupported(const ConvDescriptor& d);
// Why it does not take d's data types (it reads every tensor as d.dtype: a mixed descriptor is declined;
// ConvPlan throws this as a ConvError), or "".
std::string why_dtypes_unsupported(const ConvDescriptor& d);

// Why `path` cannot run `d` on this CPU, or an empty string when it can.
std::string why_unavailable(const ConvDescriptor& d, Path path);
// Every path (never `automatic`) that can run `d` on this CPU, in enum order.
std::vector<Path> available_paths(const ConvDescriptor& d);
// The path the dispatcher picks for `d` on this CPU.
Path choose_path(const ConvDescriptor& d);

// Memory (docs/optimized.md, "Memory"). The rule: a plan holds, beyond the case's tensors, at most
// the tensors' bytes again plus a fixed workspace, so that the peak of a forward convolution, tensors
// included, is at most 2x the tensors + kFixedWorkspaceBytes. The dispatcher picks only paths within it
// (when none is, the one that needs the least).
inline constexpr std::int64_t kFixedWorkspaceBytes = std::int64_t{64} << 20;
// src, weights, bias and dst of `d`, in d.dtype.
std::int64_t tensor_bytes(const ConvDescriptor& d);
// What a plan of `path` holds at its peak beyond the tensors, in bytes, from the descriptor alone: its
// packed weights, and the larger of what packing holds at once (the widened weights) and what execute
// holds (the padded input, the f32 output, the tap lists and per-thread scratch of the CPU's threads).
// An upper bound of what the plan allocates (bench/memory_table.cpp measures it); `d` must be valid.
std::int64_t path_memory_bytes(const ConvDescriptor& d, Path path);
// path_memory_bytes(d, path) <= tensor_bytes(d) + kFixedWorkspaceBytes.
bool within_memory_rule(const ConvDescriptor& d, Path path);

// Run-time CPU features the dispatcher looks at.
bool cpu_has_avx2_fma();
bool cpu_has_avx512();

class ConvPlan {
public:
    // Validates `d` (throws ConvError), chooses the path, widens and packs `weights` (d.weights_dims()
    // in d.filter_format, dtype d.dtype) and `bias` (O elements, may be null when !d.has_bias).
    ConvPlan(const ConvDescriptor& d, const void* weights, const void* bias, Options options = {});
    ~ConvPlan();
    ConvPlan(ConvPlan&&) noexcept;
    ConvPlan& operator=(ConvPlan&&) noexcept;

    // src: d.src_dims() in d.data_format; dst: d.dst_dims() in d.data_format; both of d.dtype.
    // Safe to call from several threads at once (each call has its own workspace).
    void execute(const void* src, void* dst) const;

    Path path() const;
    std::string_view path_name() const { return to_string(path()); }
    // The path's name and, where it runs a kernel of its own for d, that kernel: "blocked_avx512 rows" (the row
    // kernel: forward_rows.hpp; "blocked_avx512 rows pairs": its tiles of two rows), "blocked_avx512 src_in_place"
    // (the user's padded src read where it is).
    std::string implementation() const;
    // The output pixels of one work item of the blocked register tiles (0 on other paths and on the row kernel):
    // the chunk that the memory rule's estimate of the padded input's bands assumes (path_memory_bytes), cut finer
    // for the threads only on layers whose pixels read every tap and whose input is not packed in bands.
    std::int64_t work_item_pixels() const;
    // The tasks of the plan's main parallel loop for the thread count it was made for (Options::threads, 0 resolved
    // to the constructing arena's concurrency): decomposition.hpp; optimized/tests/decomposition_test.cpp asserts it.
    Decomposition decomposition() const;
    const ConvDescriptor& descriptor() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace convcheck::optimized
