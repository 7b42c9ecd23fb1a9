// The mutants plugin's transposed convolution (docs/transposed.md): the backward data pass of the
// forward convolution it transposes (mutants_backward.cpp's loops, on f32 copies of the inputs), the bias
// added in float, each output rounded once to the dtype. Its mutants are marked deviations of that:
//   transposed_output_padding_at_begin  the outputs output_padding adds are put at the beginning of each
//                                       axis (every output shifted by output_padding)
//   transposed_kernel_not_flipped       the pass pairs each input with the mirrored tap (the kernel of the
//                                       zero-stuffed reading not flipped: backward's own mutant)
//   transposed_zero_weight_skipped      a term whose weight is exactly 0 skipped (backward data's own mutant)
//   transposed_zero_src_skipped         a term whose src is exactly 0 skipped (backward data's zero diff_dst)
// The honest variants sum another way here too; no other mutant touches transposed convolution.
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/core/dtype_widening.hpp"
#include "mutants_problem.hpp"

namespace convcheck::mutants {

void compute_transposed(const convcheck_conv_transposed_desc& desc, const convcheck_conv_args& args, Mutant mutant) {
    const TransposedDescriptor t = runner::from_abi(desc);
    ConvDescriptor f = t.forward();
    f.pass = Pass::backward_data;
    f.dtype = DataType::f32;  // the inputs widened exactly; the sums rounded once, after the bias
    if (mutant == M::transposed_output_padding_at_begin)
        for (int a = 0; a < t.rank; ++a) f.pads_begin[a] -= t.output_padding[a], f.pads_end[a] += t.output_padding[a];
    const bool honest = kMutants[static_cast<int>(mutant)].kind == Kind::honest;
    const Mutant pass = mutant == M::transposed_kernel_not_flipped  ? M::bwd_data_kernel_not_flipped
                        : mutant == M::transposed_zero_weight_skipped ? M::bwd_data_zero_weight_skipped
                        : mutant == M::transposed_zero_src_skipped    ? M::bwd_data_zero_diff_dst_skipped
                        : honest                                      ? mutant
                                                                      : M::none;
    const std::vector<float> src = widened_to_f32(args.src, t.dtype, t.src_elements()),
                             weights = widened_to_f32(args.weights, t.dtype, t.weights_elements());
    std::vector<float> sum(static_cast<std::size_t>(t.dst_elements()));
    convcheck_conv_args a{};
    a.struct_size = sizeof(a);
    a.weights = weights.data();
    a.dst = const_cast<float*>(src.data());  // diff_dst arrives in dst (read only)
    a.diff_src = sum.data();
    compute_backward(runner::to_abi(f), a, pass);
    std::int64_t spatial = 1;
    for (int ax = 0; ax < t.rank; ++ax) spatial *= t.output_size(ax);
    const bool nxc = t.data_format == DataFormat::nxc;
    for (std::int64_t i = 0; i < t.dst_elements(); ++i) {
        const std::int64_t o = nxc ? i % t.out_channels : (i / spatial) % t.out_channels;
        const float v = t.has_bias ? sum[i] + static_cast<float>(load_as_double(args.bias, t.dtype, o)) : sum[i];
        store_from_double(args.dst, t.dtype, i, round_to(t.dtype, v));
    }
}

}  // namespace convcheck::mutants
