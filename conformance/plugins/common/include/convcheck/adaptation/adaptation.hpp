// How a backend plugin hands a library a case it cannot take as it is, by exact data movement
// only: the library then computes exactly the spec's convolution of the runner's data, and the
// plugin declines only what the library itself cannot compute.
//
//   reorder      src/dst NCX <-> NXC, weights OIX <-> XIO (grouped weights too: O = G * O/G is one
//                axis in both formats), and back for dst;
//   rank 1 -> 2  a leading unit axis (in = 1, k = 1, s = 1, d = 1, no pads): the same memory in
//                every format, and out = (1 - 1) / 1 + 1 = 1 on that axis;
//   crop         a negative pad the library cannot express: the input is copied without those
//                elements (the spec reads src at o*s - pads_begin + k*d, so a negative pads_begin
//                starts the read |pads_begin| elements in, and a negative pads_end ends it early);
//   zero-pad     a positive pad the library cannot express: explicit zeros in a padded copy of the
//                input (the spec reads src as zero outside [0, in)).
//   depth->batch a 3-D case whose kernel depth is 1, for a library without 3-D: output depth slice
//                od reads only input depth slice od * s - pads_begin (zeros outside [0, in)), so
//                the case is a 2-D convolution of those gathered slices with batch N * out_depth;
//                NXC [N][OD][H][W][C] is then the same memory as 2-D NXC [N*OD][H][W][C]. A 3-D
//                case with a deeper kernel sums across slices: not data movement, declined.
// The output size is unchanged: per axis the library's in' + pb' + pe' = in + pb + pe.
// Explicit zeros are exact where weights are finite (0 * w = 0 adds nothing; only 0 * inf would
// differ, and a library's own padding is zeros in its buffers too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "convcheck/plugin.h"

namespace convcheck_plugin_support {

// The pads a library can express on one axis; the rest moves into the data.
enum class PadsRule {
    any,                       // every value, negative ones included
    nonnegative,               // pads_begin >= 0 and pads_end >= 0
    onednn,                    // padding_l >= 0 and padding_r + stride > 0 (oneDNN's conv_desc_init)
    symmetric_nonnegative,     // pads_begin == pads_end >= 0 (one padding per axis)
};

// What the library takes natively for one case.
struct LibraryForm {
    int32_t data_format = CONVCHECK_NCX;  // the only src/dst format it takes (set it to the case's own when it takes both)
    int32_t filter_format = CONVCHECK_OIX;
    bool rank1_as_rank2 = false;  // the library has no 1-D path
    bool depth_as_batch = false;  // the library has no 3-D path (with data_format NXC only)
    PadsRule pads = PadsRule::any;
};

// The data movement planned for one case (plan_adaptation); per spatial axis of the runner's
// descriptor, the part of pads_begin / pads_end moved into the data: negative = that many input
// elements cropped, positive = that many explicit zeros.
struct Adaptation {
    int32_t data_format = CONVCHECK_NCX;
    int32_t filter_format = CONVCHECK_OIX;
    bool rank1_as_rank2 = false;
    bool depth_as_batch = false;  // depth axis (0) gathered by its stride and pads, folded into the batch
    int64_t moved_begin[3] = {0, 0, 0};
    int64_t moved_end[3] = {0, 0, 0};
};

// The least movement that gives the library a case in `form`. When a crop would leave nothing of
// an axis's input (e.g. in = 1, pads_begin = 3, pads_end = -2: the spec's padded range [-3, -1)
// is all padding), both pads of that axis move into the data, which then holds exactly the spec's
// padded range [-pads_begin, in + pads_end).
Adaptation plan_adaptation(const convcheck_conv_desc& d, const LibraryForm& form);

// The case as the library sees it (formats, rank, input sizes and pads adapted).
convcheck_conv_desc library_desc(const convcheck_conv_desc& d, const Adaptation& a);

bool moves_src(const convcheck_conv_desc& d, const Adaptation& a);
bool moves_weights(const convcheck_conv_desc& d, const Adaptation& a);
bool moves_dst(const convcheck_conv_desc& d, const Adaptation& a);
// "" when nothing moves, else e.g. " [reordered ncx->nxc, oix->xio, rank1->2, cropped, zero-padded]"
// (and "depth->batch"):
// appended to the implementation string, so a result says which adaptation ran.
std::string adaptation_note(const convcheck_conv_desc& d, const Adaptation& a);

size_t element_bytes(int32_t dtype);

// *bytes times every count, false (and *bytes unspecified) when a count is negative or the product does not fit
// size_t: whether an array of that many elements can exist in memory at all.
inline bool multiply_into(size_t* bytes, std::initializer_list<int64_t> counts) {
    for (int64_t c : counts)
        if (c < 0 || __builtin_mul_overflow(*bytes, static_cast<size_t>(c), bytes)) return false;
    return true;
}

// The copies themselves. `out` has room for the library's tensor (library_desc's sizes).
void adapt_src(const convcheck_conv_desc& d, const Adaptation& a, const void* src, void* out);
// Weights into the library's filter format, or into any memory order `physical` of the logical
// dims {O, I/G, k...} of library_desc (a library's own weights order, e.g. XNNPACK's [O][k...][I/G]).
void adapt_weights(const convcheck_conv_desc& d, const Adaptation& a, const void* weights, void* out);
void weights_in_order(const convcheck_conv_desc& d, const Adaptation& a, const void* weights,
                      const std::vector<int>& physical, void* out);
// The library's dst (library_desc's format) into the runner's dst (the runner's format).
void restore_dst(const convcheck_conv_desc& d, const Adaptation& a, const void* library_dst, void* dst);

// The backward passes (docs/passes.md) move the same tensors the other way: diff_dst is an input
// (the runner's format into the library's), diff_src and diff_weights are outputs. diff_src comes
// back from the library's src-shaped tensor by the inverse window: an element the crop removed is
// read by no output, so its gradient is exactly 0 (the copy's zeros); the library's gradient of an
// explicit zero is dropped. The depth fold gathers src slices and has no backward here: refused.
void adapt_dst(const convcheck_conv_desc& d, const Adaptation& a, const void* dst, void* library_dst);
void restore_src(const convcheck_conv_desc& d, const Adaptation& a, const void* library_src, void* src);
void restore_weights(const convcheck_conv_desc& d, const Adaptation& a, const void* library_weights, void* weights);

// One execute's buffers as the library takes them: the runner's own where nothing moves, else
// copies owned here. tail_bytes > 0 (a library that reads past the end of its inputs, e.g.
// XNNPACK's XNN_EXTRA_BYTES): src and bias are always copies with that many zero bytes after them.
// For a backward pass (the descriptor's prop_kind; tail_bytes 0) the inputs are the ones the pass
// reads (src or weights, and diff_dst in dst()), the outputs diff_src() or diff_weights() and
// diff_bias(), and return_gradients() moves the library's gradients into the runner's buffers.
class LibraryBuffers {
public:
    LibraryBuffers(const convcheck_conv_desc& d, const Adaptation& a, const convcheck_conv_args& args, size_t tail_bytes = 0);
    LibraryBuffers(const LibraryBuffers&) = delete;
    LibraryBuffers& operator=(const LibraryBuffers&) = delete;

    const void* src() const { return src_; }
    const void* weights() const { return weights_; }
    const void* bias() const { return bias_; }
    void* dst() { return dst_; }
    // Moves the library's result into the runner's dst when the library wrote a copy.
    void return_dst();

    void* diff_src() { return diff_src_; }
    void* diff_weights() { return diff_weights_; }
    void* diff_bias() { return diff_bias_; }
    // Moves the library's gradients into the runner's diff_src / diff_weights where it wrote copies.
    void return_gradients();

private:
    convcheck_conv_desc d_;
    Adaptation a_;
    void* runner_dst_;
    void* runner_diff_src_ = nullptr;
    void* runner_diff_weights_ = nullptr;
    std::vector<unsigned char> src_copy_, weights_copy_, bias_copy_, dst_copy_, diff_src_copy_, diff_weights_copy_;
    const void* src_;
    const void* weights_;
    const void* bias_;
    void* dst_;
    void* diff_src_ = nullptr;
    void* diff_weights_ = nullptr;
    void* diff_bias_ = nullptr;
};

}  // namespace convcheck_plugin_support
