#include "convcheck/adaptation/adaptation.hpp"

#include <algorithm>
#include <stdexcept>

#include "convcheck/plugin_support.hpp"
#include "convcheck/adaptation/window_copy.hpp"

namespace convcheck_plugin_support {

namespace {

// Rank 1 as rank 2: a leading unit axis. The memory of every tensor is the same: NCX [N][C][1][W],
// NXC [N][1][W][C], OIX [O][I/G][1][kw] and XIO [1][kw][I/G][O] hold their elements where the
// rank-1 tensors do.
convcheck_conv_desc lifted(const convcheck_conv_desc& d) {
    if (d.rank != 1) return d;
    convcheck_conv_desc l = d;
    l.rank = 2;
    const auto lift = [](int64_t (&v)[3], int64_t unit) { v[2] = 0, v[1] = v[0], v[0] = unit; };
    lift(l.input_size, 1);
    lift(l.kernel_size, 1);
    lift(l.strides, 1);
    lift(l.dilations, 1);
    lift(l.pads_begin, 0);
    lift(l.pads_end, 0);
    return l;
}

// The runner's tensors described at the library's rank (the same memory), before any depth fold.
convcheck_conv_desc runner_view(const convcheck_conv_desc& d, const Adaptation& a) {
    return a.rank1_as_rank2 ? lifted(d) : d;
}

// The library's case at the runner's (lifted) rank: the tensors the copies write. With the depth
// fold, the depth axis holds the gathered slices: in = out_depth, k = s = d = 1, no pads.
convcheck_conv_desc adapted_view(const convcheck_conv_desc& d, const Adaptation& a) {
    convcheck_conv_desc l = d;
    l.data_format = a.data_format;
    l.filter_format = a.filter_format;
    for (int axis = 0; axis < d.rank; ++axis) {
        l.input_size[axis] += a.moved_begin[axis] + a.moved_end[axis];
        l.pads_begin[axis] -= a.moved_begin[axis];
        l.pads_end[axis] -= a.moved_end[axis];
    }
    if (a.depth_as_batch) {
        l.input_size[0] = output_size(d, 0);
        l.strides[0] = l.dilations[0] = 1;
        l.pads_begin[0] = l.pads_end[0] = 0;
    }
    return a.rank1_as_rank2 ? lifted(l) : l;
}

// A 3-D case (kernel depth 1) as 2-D: depth joins the batch, axes 1 and 2 become 0 and 1.
convcheck_conv_desc folded(const convcheck_conv_desc& d) {
    convcheck_conv_desc l = d;
    l.rank = 2;
    l.batch = d.batch * d.input_size[0];
    for (int64_t(convcheck_conv_desc::*field)[3] : {&convcheck_conv_desc::input_size, &convcheck_conv_desc::kernel_size,
                                                    &convcheck_conv_desc::strides, &convcheck_conv_desc::dilations,
                                                    &convcheck_conv_desc::pads_begin, &convcheck_conv_desc::pads_end}) {
        int64_t(&v)[3] = l.*field;
        v[0] = v[1], v[1] = v[2], v[2] = 0;
    }
    return l;
}

DenseLayout src_layout(const convcheck_conv_desc& d) {
    DenseLayout l{{d.batch, d.in_channels}, activation_order(d)};
    for (int a = 0; a < d.rank; ++a) l.dims.push_back(d.input_size[a]);
    return l;
}

DenseLayout dst_layout(const convcheck_conv_desc& d) {
    DenseLayout l{{d.batch, d.out_channels}, activation_order(d)};
    for (int a = 0; a < d.rank; ++a) l.dims.push_back(output_size(d, a));
    return l;
}

DenseLayout weights_layout(const convcheck_conv_desc& d) {
    DenseLayout l{{d.out_channels, d.in_channels / d.groups}, weights_order(d)};
    for (int a = 0; a < d.rank; ++a) l.dims.push_back(d.kernel_size[a]);
    return l;
}

int64_t elements(const DenseLayout& l) {
    int64_t n = 1;
    for (int64_t d : l.dims) n *= d;
    return n;
}

bool moves_pads(const convcheck_conv_desc& d, const Adaptation& a) {
    for (int axis = 0; axis < d.rank; ++axis)
        if (a.moved_begin[axis] != 0 || a.moved_end[axis] != 0) return true;
    return false;
}

}  // namespace

Adaptation plan_adaptation(const convcheck_conv_desc& d, const LibraryForm& form) {
    Adaptation a;
    a.data_format = form.data_format;
    a.filter_format = form.filter_format;
    a.rank1_as_rank2 = form.rank1_as_rank2 && d.rank == 1;
    a.depth_as_batch = form.depth_as_batch && form.data_format == CONVCHECK_NXC && d.rank == 3 && d.kernel_size[0] == 1;
    for (int axis = a.depth_as_batch ? 1 : 0; axis < d.rank; ++axis) {
        const int64_t pb = d.pads_begin[axis], pe = d.pads_end[axis], s = d.strides[axis];
        int64_t& mb = a.moved_begin[axis];
        int64_t& me = a.moved_end[axis];
        switch (form.pads) {
            case PadsRule::any: break;
            case PadsRule::nonnegative:
                mb = std::min<int64_t>(pb, 0);
                me = std::min<int64_t>(pe, 0);
                break;
            case PadsRule::onednn:
                mb = pb < 0 ? pb : 0;
                me = pe + s <= 0 ? pe : 0;
                break;
            case PadsRule::symmetric_nonnegative: {
                const int64_t both = std::max<int64_t>(std::min(pb, pe), 0);  // what the library keeps on each side
                mb = pb - both;
                me = pe - both;
                break;
            }
        }
        if (d.input_size[axis] + mb + me < 1) mb = pb, me = pe;  // a crop past the input: the whole padded range
    }
    return a;
}

convcheck_conv_desc library_desc(const convcheck_conv_desc& d, const Adaptation& a) {
    const convcheck_conv_desc l = adapted_view(d, a);
    return a.depth_as_batch ? folded(l) : l;
}

bool moves_src(const convcheck_conv_desc& d, const Adaptation& a) {
    const bool gathers = a.depth_as_batch && (d.strides[0] != 1 || d.pads_begin[0] != 0 || d.pads_end[0] != 0);
    return d.data_format != a.data_format || moves_pads(d, a) || gathers;
}
bool moves_weights(const convcheck_conv_desc& d, const Adaptation& a) { return d.filter_format != a.filter_format; }
bool moves_dst(const convcheck_conv_desc& d, const Adaptation& a) { return d.data_format != a.data_format; }

std::string adaptation_note(const convcheck_conv_desc& d, const Adaptation& a) {
    const auto data = [](int32_t f) { return f == CONVCHECK_NXC ? "nxc" : "ncx"; };
    const auto filter = [](int32_t f) { return f == CONVCHECK_XIO ? "xio" : f == CONVCHECK_OXI ? "oxi" : "oix"; };
    std::vector<std::string> notes;
    if (d.data_format != a.data_format) notes.push_back(std::string(data(d.data_format)) + "->" + data(a.data_format));
    if (d.filter_format != a.filter_format)
        notes.push_back(std::string(filter(d.filter_format)) + "->" + filter(a.filter_format));
    if (!notes.empty()) notes.front() = "reordered " + notes.front();
    if (a.rank1_as_rank2) notes.push_back("rank1->2");
    if (a.depth_as_batch) notes.push_back("depth->batch");
    bool cropped = false, padded = false;
    for (int axis = 0; axis < d.rank; ++axis)
        for (int64_t moved : {a.moved_begin[axis], a.moved_end[axis]}) {
            cropped = cropped || moved < 0;
            padded = padded || moved > 0;
        }
    if (cropped) notes.push_back("cropped");
    if (padded) notes.push_back("zero-padded");
    if (notes.empty()) return "";
    std::string out = " [";
    for (size_t i = 0; i < notes.size(); ++i) out += (i ? ", " : "") + notes[i];
    return out + "]";
}

size_t element_bytes(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F16:
        case CONVCHECK_BF16: return 2;
        case CONVCHECK_F64: return 8;
        default: return 4;
    }
}

void adapt_src(const convcheck_conv_desc& d, const Adaptation& a, const void* src, void* out) {
    const convcheck_conv_desc from = runner_view(d, a), to = adapted_view(d, a);
    std::vector<int64_t> offset{0, 0}, step(2 + from.rank, 1);
    if (a.rank1_as_rank2) offset.push_back(0);  // the unit axis
    for (int axis = 0; axis < d.rank; ++axis) offset.push_back(-a.moved_begin[axis]);
    if (a.depth_as_batch) {  // slice od of the copy is input slice od * s - pads_begin
        offset[2] = -d.pads_begin[0];
        step[2] = d.strides[0];
    }
    copy_window({src, src_layout(from), out, src_layout(to), offset, element_bytes(tensor_dtypes(d).src), step});
}

// The runner's weights at the library's rank: lifted for rank 1; for the depth fold the unit
// kernel depth is dropped (OIX [O][I/G][1][kh][kw] and XIO [1][kh][kw][I/G][O] are the same memory
// as their 2-D forms).
convcheck_conv_desc weights_view(const convcheck_conv_desc& d, const Adaptation& a) {
    return a.depth_as_batch ? folded(d) : runner_view(d, a);
}

void weights_in_order(const convcheck_conv_desc& d, const Adaptation& a, const void* weights,
                      const std::vector<int>& physical, void* out) {
    DenseLayout to = weights_layout(library_desc(d, a));
    to.physical = physical;
    copy_window({weights, weights_layout(weights_view(d, a)), out, to, std::vector<int64_t>(to.dims.size(), 0),
                 element_bytes(tensor_dtypes(d).weights), {}});
}

void adapt_weights(const convcheck_conv_desc& d, const Adaptation& a, const void* weights, void* out) {
    weights_in_order(d, a, weights, weights_order(library_desc(d, a)), out);
}

void restore_dst(const convcheck_conv_desc& d, const Adaptation& a, const void* library_dst, void* dst) {
    const DenseLayout from = dst_layout(adapted_view(d, a)), to = dst_layout(runner_view(d, a));
    copy_window({library_dst, from, dst, to, std::vector<int64_t>(to.dims.size(), 0), element_bytes(tensor_dtypes(d).dst), {}});
}

void adapt_dst(const convcheck_conv_desc& d, const Adaptation& a, const void* dst, void* library_dst) {
    const DenseLayout from = dst_layout(runner_view(d, a)), to = dst_layout(adapted_view(d, a));
    copy_window({dst, from, library_dst, to, std::vector<int64_t>(to.dims.size(), 0), element_bytes(tensor_dtypes(d).dst), {}});
}

namespace {
void no_depth_fold(const Adaptation& a) {
    if (a.depth_as_batch) throw std::invalid_argument("the depth->batch adaptation has no backward pass");
}
}  // namespace

void restore_src(const convcheck_conv_desc& d, const Adaptation& a, const void* library_src, void* src) {
    no_depth_fold(a);
    const DenseLayout from = src_layout(adapted_view(d, a)), to = src_layout(runner_view(d, a));
    std::vector<int64_t> offset{0, 0};  // runner element x is library element x + moved_begin (adapt_src's inverse)
    if (a.rank1_as_rank2) offset.push_back(0);
    for (int axis = 0; axis < d.rank; ++axis) offset.push_back(a.moved_begin[axis]);
    copy_window({library_src, from, src, to, offset, element_bytes(tensor_dtypes(d).src), {}});
}

void restore_weights(const convcheck_conv_desc& d, const Adaptation& a, const void* library_weights, void* weights) {
    no_depth_fold(a);
    const DenseLayout from = weights_layout(library_desc(d, a)), to = weights_layout(weights_view(d, a));
    copy_window({library_weights, from, weights, to, std::vector<int64_t>(to.dims.size(), 0),
                 element_bytes(tensor_dtypes(d).weights), {}});
}

LibraryBuffers::LibraryBuffers(const convcheck_conv_desc& d, const Adaptation& a, const convcheck_conv_args& args,
                               size_t tail_bytes)
    : d_(d), a_(a), runner_dst_(args.dst), src_(args.src), weights_(args.weights), bias_(args.bias), dst_(args.dst) {
    const convcheck_conv_desc l = adapted_view(d, a);  // the library's tensors, at the runner's rank
    // each tensor's own element size (a mixed-dtype case's differ; a backward pass has one dtype)
    const TensorDtypes types = tensor_dtypes(d);
    const size_t src_bytes = element_bytes(types.src), weights_bytes = element_bytes(types.weights),
                 bias_bytes = element_bytes(types.bias), dst_bytes = element_bytes(types.dst);
    const int32_t pass = prop_kind(d);
    if (pass != CONVCHECK_FORWARD) {
        no_depth_fold(a);
        if (tail_bytes > 0) throw std::invalid_argument("LibraryBuffers: tail bytes are for forward inputs only");
        if (args.struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_args, diff_bias))
            throw std::invalid_argument("LibraryBuffers: a backward pass needs ABI 1.2's diff buffers");
    }
    if (args.src != nullptr && (moves_src(d, a) || tail_bytes > 0)) {
        src_copy_.assign(elements(src_layout(l)) * src_bytes + tail_bytes, 0);
        adapt_src(d, a, args.src, src_copy_.data());
        src_ = src_copy_.data();
    }
    if (args.weights != nullptr && moves_weights(d, a)) {
        weights_copy_.assign(elements(weights_layout(library_desc(d, a))) * weights_bytes + tail_bytes, 0);
        adapt_weights(d, a, args.weights, weights_copy_.data());
        weights_ = weights_copy_.data();
    }
    if (d.has_bias && args.bias != nullptr && tail_bytes > 0) {
        bias_copy_.assign(d.out_channels * bias_bytes + tail_bytes, 0);
        std::copy_n(static_cast<const unsigned char*>(args.bias), d.out_channels * bias_bytes, bias_copy_.begin());
        bias_ = bias_copy_.data();
    }
    if (moves_dst(d, a)) {
        dst_copy_.assign(elements(dst_layout(l)) * dst_bytes, 0);
        if (pass != CONVCHECK_FORWARD) adapt_dst(d, a, args.dst, dst_copy_.data());  // diff_dst: an input
        dst_ = dst_copy_.data();
    }
    if (pass == CONVCHECK_BACKWARD_DATA) {
        diff_src_ = runner_diff_src_ = args.diff_src;
        if (moves_src(d, a)) {
            diff_src_copy_.assign(elements(src_layout(l)) * src_bytes, 0);
            diff_src_ = diff_src_copy_.data();
        }
    } else if (pass == CONVCHECK_BACKWARD_WEIGHTS) {
        diff_weights_ = runner_diff_weights_ = args.diff_weights;
        diff_bias_ = args.diff_bias;
        if (moves_weights(d, a)) {
            diff_weights_copy_.assign(elements(weights_layout(library_desc(d, a))) * weights_bytes, 0);
            diff_weights_ = diff_weights_copy_.data();
        }
    }
}

void LibraryBuffers::return_dst() {
    if (!dst_copy_.empty()) restore_dst(d_, a_, dst_copy_.data(), runner_dst_);
}

void LibraryBuffers::return_gradients() {
    if (!diff_src_copy_.empty()) restore_src(d_, a_, diff_src_copy_.data(), runner_diff_src_);
    if (!diff_weights_copy_.empty()) restore_weights(d_, a_, diff_weights_copy_.data(), runner_diff_weights_);
}

}  // namespace convcheck_plugin_support
