// The libtorch plugin's transposed convolution (docs/transposed.md, ABI 1.3): at::convolution with
// transposed = true, what at::conv_transpose1d/2d/3d and torch.nn.ConvTranspose{1,2,3}d call.
//
// The translation:
//   weights  ATen's transposed weights are [C][O/G][k...], the descriptor's OIX; XIO ([k...][O/G][C]) is a
//            strided view over the same memory, as NXC is for src and dst.
//   pads     ATen has one padding p >= 0 per axis on both sides and an output_padding op' added at the
//            end: out = (in-1)*s - 2p + K + op'. The descriptor's (pb, pe, op) is that with p = pb and
//            op' = op + pb - pe, when pb >= 0, op' >= 0 and op' is below the stride or the dilation
//            (PyTorch ConvTranspose: "output padding must be smaller than either stride or dilation").
//            Otherwise ATen computes the whole output (p = 0, op' = 0) and the plugin crops and extends it
//            (Arguments below; the implementation string says "[cropped]"). An invalid case is passed as it is
//            (docs/backends.md, "The invalid suite"): no crop where it would hide a rule the pads break, and a
//            negative op is op' itself (pb == pe; else the plugin cannot express it): ATen judges them.
//   dtypes   f32 and bf16; f16 declined (ATen 1.13 has no CPU f16 convolution), and bf16 where ATen would
//            take its slow_conv_transpose kernels, which have no bf16 (asked of select_conv_backend).
#include <ATen/native/ConvUtils.h>
#include <ATen/ops/add.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/convolution.h>
#include <ATen/ops/empty.h>

#include <string>
#include <vector>

#include "convcheck/adaptation/transposed_form.hpp"
#include "convcheck/plugin_transposed.hpp"
#include "libtorch_backward.hpp"
#include "libtorch_tensors.hpp"
#include "libtorch_transposed.hpp"

namespace support = convcheck_plugin_support;

namespace convcheck_libtorch {

namespace {

// The forward-shaped descriptor whose layouts (data and filter format, rank) the transposed tensors
// share: for the physical orders of plugin_layout.hpp.
convcheck_conv_desc layouts_of(const convcheck_conv_transposed_desc& t) {
    convcheck_conv_desc d{};
    d.struct_size = sizeof(d);
    d.rank = t.rank;
    d.data_format = t.data_format;
    d.filter_format = t.filter_format;
    return d;
}

// ATen's output_padding op' for axis a with padding pb: op + pb - pe; a negative op stays op (transposed_form.hpp:
// never folded into the pads, so transposed_inexpressible refuses it where pb != pe).
int64_t aten_output_padding(const convcheck_conv_transposed_desc& t, int a) {
    return t.output_padding[a] < 0 ? t.output_padding[a] : t.output_padding[a] + t.pads_begin[a] - t.pads_end[a];
}

// at::convolution's arguments for t (transposed = true). Direct: padding pb and output_padding
// op + pb - pe, when ATen takes them (pb >= 0, 0 <= op' and op' below the stride or the dilation). Else
// cropped: padding 0 and output_padding 0 (the whole output every tap reaches), then constant_pad_nd
// with -pb at the begin and op - pe at the end of each axis (negative: a crop; positive: zeros), and the
// bias added to that in f32 (one more addition, as ATen's own): exact data movement.
struct Arguments {
    explicit Arguments(const convcheck_conv_transposed_desc& t)
        : src_dims{t.batch, t.in_channels}, dst_dims{t.batch, t.out_channels}, wei_dims{t.in_channels, t.out_channels / t.groups} {
        for (int a = 0; a < t.rank; ++a) {
            src_dims.push_back(t.input_size[a]);
            dst_dims.push_back(support::transposed_output_size(t, a));
            wei_dims.push_back(t.kernel_size[a]);
            strides.push_back(t.strides[a]);
            dilations.push_back(t.dilations[a]);
            const int64_t op = aten_output_padding(t, a);
            direct = direct && t.pads_begin[a] >= 0 && op >= 0 && (op < t.strides[a] || op < t.dilations[a]);
        }
        direct = direct || !support::transposed_crop_hides(t).empty();  // ATen judges those pads
        for (int a = 0; a < t.rank; ++a) {
            pads.push_back(direct ? t.pads_begin[a] : 0);
            output_padding.push_back(direct ? aten_output_padding(t, a) : 0);
        }
        for (int a = t.rank - 1; a >= 0; --a)  // constant_pad_nd: the last axis first, (begin, end) each
            crop.push_back(-t.pads_begin[a]), crop.push_back(t.output_padding[a] - t.pads_end[a]);
    }
    std::vector<int64_t> src_dims, dst_dims, wei_dims, strides, pads, dilations, output_padding, crop;
    bool direct = true;
};

// ATen's own kernels, asked before the call (a query must decline what execute cannot do).
std::string aten_declines(const convcheck_conv_transposed_desc& t) {
    const Arguments g(t);
    if (t.dtype != CONVCHECK_BF16) return "";
    if (!g.direct)
        return "ATen's padding and output_padding cannot say this case's pads (pb >= 0 and output_padding + pb - pe "
               "below the stride or the dilation); the plugin crops an f32 result only (a bf16 one would be rounded "
               "before the bias is added)";
    const auto options = at::TensorOptions().dtype(at::kBFloat16);
    const at::Tensor src = at::empty(g.src_dims, options), weights = at::empty(g.wei_dims, options);
    const auto backend = select_backend(src, weights, c10::nullopt, g.strides, g.pads, g.dilations, true, g.output_padding,
                                        t.groups, false);
    if (backend == at::native::ConvBackend::SlowTranspose2d || backend == at::native::ConvBackend::SlowTranspose3d)
        return "ATen 1.13 computes this bf16 case with slow_conv_transpose2d/3d, which is not implemented for "
               "'BFloat16' (its oneDNN path, which has bf16, is not taken on this CPU)";
    return "";
}

}  // namespace

std::string transposed_not_computable(const convcheck_conv_transposed_desc& t) {
    if (t.dtype == CONVCHECK_F16)
        return "ATen 1.13 has no CPU f16 convolution (at::convolution with transposed = true raises "
               "\"slow_conv_transpose2d\" not implemented for 'Half')";
    if (t.dtype != CONVCHECK_F32 && t.dtype != CONVCHECK_BF16)
        return std::string("libtorch transposed convolution has no ") + support::dtype_name(t.dtype) + " through this ABI";
    if (t.filter_format != CONVCHECK_OIX && t.filter_format != CONVCHECK_XIO) return "OIX or XIO weights only";
    return aten_declines(t);
}

// What the plugin cannot hand ATen without inventing a number (as the forward's inexpressible): refused itself,
// as an invalid argument, before the weights' shape divides by the groups.
std::string transposed_inexpressible(const convcheck_conv_transposed_desc& t) {
    if (const std::string why = support::transposed_beyond_64_bits(t); !why.empty())
        return "the libtorch plugin cannot hand this case to ATen: " + why;
    if (t.groups == 0)
        return "the libtorch plugin cannot express groups = 0 to ATen: the weights tensor at::convolution takes "
               "(transposed) is [C, O/G, k...], and O/G has no value for G = 0";
    if (t.groups > 0 && t.out_channels % t.groups != 0)
        return "the libtorch plugin cannot express out_channels = " + std::to_string(t.out_channels) + " with groups = " +
               std::to_string(t.groups) + " to ATen: at::convolution (transposed) takes the output channels as the weights' "
               "[C, O/G, k...] dimension 1 times the groups, and a truncated O/G would be a smaller, valid problem";
    // ATen's padding is one value per axis on both sides, with an output_padding.
    return support::transposed_output_padding_inexpressible(t, {true, true}, "libtorch", "ATen");
}

convcheck_error* transposed_query(convcheck_plugin*, const convcheck_conv_transposed_desc& t, convcheck_support* out) {
    if (const std::string why = transposed_inexpressible(t); !why.empty()) return support::invalid_argument(why);
    const std::string why = transposed_not_computable(t);
    return why.empty() ? support::supported(out) : support::unsupported(out, why);
}

convcheck_error* transposed_execute(convcheck_plugin*, const convcheck_conv_transposed_desc& t, const convcheck_conv_args& args) {
    if (const std::string why = transposed_inexpressible(t); !why.empty()) return support::invalid_argument(why);
    if (const std::string why = transposed_not_computable(t); !why.empty())
        return support::make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    return aten_errors([&] { return transposed_compute(t, at::kCPU, "libtorch", args); });
}

bool transposed_direct(const convcheck_conv_transposed_desc& t) { return Arguments(t).direct; }

at::ScalarType transposed_scalar_type(const convcheck_conv_transposed_desc& t) { return scalar_type_of(t.dtype); }

convcheck_error* transposed_compute(const convcheck_conv_transposed_desc& t, const at::Device& device, const std::string& plugin,
                                    const convcheck_conv_args& args) {
    const at::ScalarType type = transposed_scalar_type(t);
    const convcheck_conv_desc l = layouts_of(t);
    const Arguments g(t);
    const at::Tensor src = over(args.src, g.src_dims, support::activation_order(l), type).to(device);
    const at::Tensor weights = over(args.weights, g.wei_dims, support::weights_order(l), type).to(device);
    const c10::optional<at::Tensor> bias =
        t.has_bias ? c10::optional<at::Tensor>(over(args.bias, {t.out_channels}, {0}, type).to(device)) : c10::nullopt;
    at::Tensor result = at::convolution(src, weights, g.direct ? bias : c10::nullopt, g.strides, g.pads, g.dilations,
                                        true, g.output_padding, t.groups);
    if (!g.direct) {
        result = at::constant_pad_nd(result, g.crop, 0);
        if (bias) {
            std::vector<int64_t> shape(static_cast<std::size_t>(t.rank) + 2, 1);
            shape[1] = t.out_channels;
            result = at::add(result, bias->view(shape));
        }
    }
    if (result.sizes() != at::IntArrayRef(g.dst_dims) || result.scalar_type() != type) {
        support::write_implementation(&args, plugin + ":conv_transpose (at::convolution returned shape " +
                                                 c10::str(result.sizes()) + ", the spec's dst is " +
                                                 c10::str(at::IntArrayRef(g.dst_dims)) + ": nothing written)");
        return nullptr;
    }
    over(args.dst, g.dst_dims, support::activation_order(l), type).copy_(result.to(at::kCPU));
    support::write_implementation(&args, plugin + (g.direct ? ":conv_transpose" : ":conv_transpose [cropped]"));
    return nullptr;
}

}  // namespace convcheck_libtorch
