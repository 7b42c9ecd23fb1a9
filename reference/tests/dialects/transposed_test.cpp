// The transposed-convolution dialects (dialects/transposed.hpp): literal readings, each framework's
// own error words (PyTorch's measured with python3-torch 1.13, ONNX's and TOSA's quoted from their
// specs), and every dialect's spelling of a canonical request read back as the same operation.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference/dialects/transposed.hpp"
#include "transposed_cases.hpp"
#include "convcheck/reference/transposed.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using namespace convcheck::reference::dialects::transposed_cases;

TEST(PyTorchTransposed, ReadsThePyTorchFormula) {
    // (4-1)*2 - 2*1 + 2*(3-1) + 1 + 1 = 10
    EXPECT_EQ(canonical("pytorch_transpose", "c=4,o=6,groups=2,in=4,k=3,stride=2,padding=1,dilation=2,output_padding=1,bias=true"),
              "deconv:n=1,c=4,o=6,g=2,in=4,k=3,s=2,d=2,pb=1,pe=1,op=1,bias=1,dt=f32,data=ncx,wei=oix");
    EXPECT_EQ(read("pytorch_transpose", "in=4x4,k=3,stride=2,padding=1,output_padding=1").output_size,
              (std::vector<std::int64_t>{8, 8}));
    // output_padding may reach dilation - 1 when it is not smaller than the stride
    EXPECT_TRUE(read("pytorch_transpose", "in=4x4,k=3,dilation=3,output_padding=2").ok());
    // the module's output_size: [min, min + stride - 1], output_padding = size - min
    EXPECT_EQ(canonical("pytorch_transpose", "in=4x4,k=3,stride=2,output_size=10x9"),
              "deconv:n=1,c=1,o=1,g=1,in=4x4,k=3x3,s=2x2,d=1x1,pb=0x0,pe=0x0,op=1x0,bias=0,dt=f32,data=ncx,wei=oix");
}

TEST(PyTorchTransposed, RefusesInPyTorchsWords) {
    EXPECT_EQ(error("pytorch_transpose", "in=4x4,k=3,output_padding=1"),
              "output padding must be smaller than either stride or dilation, but got output_padding_height: 1 "
              "output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1");
    // rank 1 is computed as 2-D with a unit height (measured)
    EXPECT_EQ(error("pytorch_transpose", "in=4,k=3,output_padding=1"),
              "output padding must be smaller than either stride or dilation, but got output_padding_height: 0 "
              "output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1");
    EXPECT_EQ(error("pytorch_transpose", "in=4,k=3,dilation=0"),
              "dilation should be greater than zero, but got dilation_height: 1, dilation_width: 0");
    EXPECT_EQ(error("pytorch_transpose", "in=4x4x4,k=3,padding=5"),
              "Given input size per channel: (4 x 4 x 4). Calculated output size per channel: (-4 x -4 x -4). Output "
              "size is too small");
    EXPECT_EQ(error("pytorch_transpose", "in=4x4,k=3,stride=0,padding=-1"), "negative padding is not supported");
    EXPECT_EQ(error("pytorch_transpose", "in=4x4,k=3,dilation=0,output_padding=-1"), "negative output_padding is not supported");
    EXPECT_EQ(error("pytorch_transpose", "in=4x4,k=3,stride=0,output_padding=2"), "non-positive stride is not supported");
    EXPECT_EQ(error("pytorch_transpose", "in=4x4,k=3,output_padding=1x2x3"),
              "expected output_padding to be a single integer value or a list of 2 values to match the convolution "
              "dimensions, but got output_padding=[1, 2, 3]");
    EXPECT_EQ(error("pytorch_transpose", "in=4,k=3,padding=same"),
              "conv_transpose1d(): argument 'padding' (position 5) must be tuple of ints, not tuple");
    EXPECT_EQ(error("pytorch_transpose", "in=4,k=3,padding_mode=circular"),
              "Only \"zeros\" padding mode is supported for ConvTranspose1d");
    EXPECT_EQ(error("pytorch_transpose", "c=3,o=2,groups=2,in=4x4,k=3"), "in_channels must be divisible by groups");
    EXPECT_EQ(error("pytorch_transpose", "in=4x4,k=3,stride=2,output_size=12x10"),
              "requested an output size of [12, 10], but valid sizes range from [9, 9] to [10, 10] (for an input of "
              "torch.Size([4, 4]))");
    // the module's range ignores dilation: output_padding 1 < dilation 3 is F.conv_transpose2d's, not the module's
    EXPECT_EQ(error("pytorch_transpose", "in=4x4,k=3,dilation=3,output_size=11x11"),
              "requested an output size of [11, 11], but valid sizes range from [10, 10] to [10, 10] (for an input of "
              "torch.Size([4, 4]))");
    EXPECT_EQ(error("pytorch_transpose", "in=4x4x4,k=3,stride=2,output_size=11"),
              "ConvTranspose3D: for 5D input, output_size must have 3 or 5 elements (got 1)");
}

TEST(OnnxTransposed, ReadsTheSpecsEquations) {
    // the spec's node test test_convtranspose_pads: X 1x1x3x3, W 1x2x3x3, strides [3,2], pads [1,2,1,2] -> 7x3
    const auto r = read("onnx_transpose", "c=1,o=2,in=3x3,k=3x3,strides=3x2,pads=1x2x1x2");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.output_size, (std::vector<std::int64_t>{7, 3}));
    std::vector<double> x{0, 1, 2, 3, 4, 5, 6, 7, 8}, w(18, 1.0);
    const std::vector<double> plane{1, 1, 3, 1, 1, 3, 7, 4, 9, 7, 4, 9, 7, 4, 9, 13, 7, 15, 13, 7, 15};
    std::vector<double> y = plane;
    y.insert(y.end(), plane.begin(), plane.end());
    EXPECT_EQ(convcheck::reference::transposed_convolution_summation(r.descriptor, x, w, {}).dst, y);
    // output_shape: total_padding = 3*(3-1) + 0 + 3 - 10 = -1; NOTSET splits it "Else": begin = total - total/2
    // (floor: -1 - (-1) = 0), end = total/2 = -1: a row of zeros at the end
    EXPECT_EQ(canonical("onnx_transpose", "c=1,o=2,in=3x3,k=3x3,strides=3x2,output_shape=10x8"),
              "deconv:n=1,c=1,o=2,g=1,in=3x3,k=3x3,s=3x2,d=1x1,pb=0x0,pe=-1x-1,op=0x0,bias=0,dt=f32,data=ncx,wei=oix");
    // SAME_UPPER: output in*s = 6, total = 2*(3-1) + 3 - 6 = 1: begin 0, end 1 (the extra at the end)
    EXPECT_EQ(canonical("onnx_transpose", "in=3,k=3,strides=2,auto_pad=SAME_UPPER"),
              "deconv:n=1,c=1,o=1,g=1,in=3,k=3,s=2,d=1,pb=0,pe=1,op=0,bias=0,dt=f32,data=ncx,wei=oix");
    EXPECT_EQ(canonical("onnx_transpose", "in=3,k=3,strides=2,auto_pad=SAME_LOWER"),
              "deconv:n=1,c=1,o=1,g=1,in=3,k=3,s=2,d=1,pb=1,pe=0,op=0,bias=0,dt=f32,data=ncx,wei=oix");
    EXPECT_EQ(read("onnx_transpose", "in=3,k=3,strides=2,auto_pad=VALID").output_size, (std::vector<std::int64_t>{7}));
    // docs/errata.md, where ONNX Runtime and the reference evaluator differ: the spec's readings
    EXPECT_EQ(read("onnx_transpose", "in=3,k=3,dilations=2").output_size, (std::vector<std::int64_t>{7}));  // ORT: 6
    EXPECT_EQ(canonical("onnx_transpose", "in=3,k=3,output_shape=4"),  // total 1, NOTSET: the extra at the beginning
              "deconv:n=1,c=1,o=1,g=1,in=3,k=3,s=1,d=1,pb=1,pe=0,op=0,bias=0,dt=f32,data=ncx,wei=oix");
    EXPECT_EQ(canonical("onnx_transpose", "in=3,k=3,output_shape=3"),  // total 2: the middle three (evaluator: the first)
              "deconv:n=1,c=1,o=1,g=1,in=3,k=3,s=1,d=1,pb=1,pe=1,op=0,bias=0,dt=f32,data=ncx,wei=oix");
    EXPECT_EQ(read("onnx_transpose", "in=3,k=3,strides=2,auto_pad=SAME_UPPER").output_size,
              (std::vector<std::int64_t>{6}));  // ORT: 7
    // the test_convtranspose_kernel_shape node: output_padding [1,1] takes part in total_padding (0 here)
    EXPECT_EQ(canonical("onnx_transpose", "o=2,in=3x3,kernel_shape=3x3,strides=3x2,output_padding=1x1,output_shape=10x8"),
              "deconv:n=1,c=1,o=2,g=1,in=3x3,k=3x3,s=3x2,d=1x1,pb=0x0,pe=0x0,op=1x1,bias=0,dt=f32,data=ncx,wei=oix");
}

TEST(OnnxTransposed, RefusesInOnnxsWords) {
    EXPECT_EQ(error("onnx_transpose", "in=3,k=3,auto_pad=SAME_UPPER,pads=1x1"),
              "This attribute cannot be used simultaneously with auto_pad attribute.");
    EXPECT_EQ(error("onnx_transpose", "in=3,k=3,strides=2,output_padding=2"),
              "Each padding value in \"output_padding\" must be less than the corresponding stride/dilation dimension "
              "(axis 0: output_padding 2, stride 2, dilation 1)");
    EXPECT_EQ(error("onnx_transpose", "in=3x3,k=3,strides=2"), "Attribute strides has incorrect length");
    EXPECT_EQ(error("onnx_transpose", "in=3,k=3,pads=1"), "Attribute pads has incorrect length");
}

TEST(TosaTransposed, ReadsTheSpecsOutputRule) {
    // the MLIR decomposition test's shapes: input 2x16x14x3, weight [5,3,6,3] (OC,KH,KW,IC): 18x19
    const auto r = read("tosa_transpose", "n=2,c=3,o=5,in=16x14,k=3x6,bias=5");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.output_size, (std::vector<std::int64_t>{18, 19}));
    // out_pad may be negative down to -(K-1): a crop; positive widens (canonical pads are -out_pad)
    EXPECT_EQ(canonical("tosa_transpose", "in=4x4,k=3x3,stride=2x2,out_pad=-2x-1x1x0"),
              "deconv:n=1,c=1,o=1,g=1,in=4x4,k=3x3,s=2x2,d=1x1,pb=2x-1,pe=1x0,op=0x0,bias=0,dt=f32,data=nxc,wei=oix");
}

TEST(TosaTransposed, RefusesWithTheErrorIfRules) {
    EXPECT_EQ(error("tosa_transpose", "in=4x4,k=3x3,out_pad=-3x0x0x0"), "ERROR_IF(out_pad_top <= -KH || out_pad_bottom <= -KH)");
    EXPECT_EQ(error("tosa_transpose", "in=4x4,k=3x3,out_pad=0x0x0x-3"), "ERROR_IF(out_pad_left <= -KW || out_pad_right <= -KW)");
    EXPECT_EQ(error("tosa_transpose", "in=4x4,k=3x3,stride=0x1"), "ERROR_IF(stride_y < 1 || stride_x < 1)");
    EXPECT_TRUE(read("tosa_transpose", "in=4x4,k=3x3,out=6x6").ok());
    EXPECT_NE(error("tosa_transpose", "in=4x4,k=3x3,out=7x6").find("ERROR_IF(OH != (IH - 1) * stride_y + out_pad_top + "
                                                                   "out_pad_bottom + KH): OH = 7 but the rule gives 6"),
              std::string::npos);
    EXPECT_NE(error("tosa_transpose", "in=1x1,k=3x3,out_pad=-2x-2x0x0").find("greater than or equal to 1: OH = -1"),
              std::string::npos);
    EXPECT_EQ(error("tosa_transpose", "in=4x4,k=3x3,o=2,bias=3"), "ERROR_IF(BC != OC && BC != 1)");
    EXPECT_NE(error("tosa_transpose", "in=4x4,k=3x3,dilation=2").find("no dilation attribute"), std::string::npos);
}

TEST(OneDnnDeconvolution, ReadsZeroBasedDilatesAndTheDstCheck) {
    // dilates 1 (0-based) is dilation 2: ker_range 5, min dst = 3*2 - 1 - 1 + 5 = 9
    EXPECT_EQ(canonical("onednn_deconvolution", "in=4,k=3,strides=2,dilates=1,padding_l=1,padding_r=1"),
              "deconv:n=1,c=1,o=1,g=1,in=4,k=3,s=2,d=2,pb=1,pe=1,op=0,bias=0,dt=f32,data=ncx,wei=oix");
    // a dst up to min + strides - 1 passes (dst - ker_range + pl + pr) / s + 1 == src: output padding
    EXPECT_EQ(canonical("onednn_deconvolution", "in=4,k=3,strides=2,dilates=1,padding_l=1,padding_r=1,dst=10"),
              "deconv:n=1,c=1,o=1,g=1,in=4,k=3,s=2,d=2,pb=1,pe=1,op=1,bias=0,dt=f32,data=ncx,wei=oix");
    EXPECT_NE(error("onednn_deconvolution", "in=4,k=3,strides=2,dilates=1,padding_l=1,padding_r=1,dst=11")
                  .find("(dst - ker_range + padding_l + padding_r) / strides + 1 = 5 != src 4"),
              std::string::npos);
    // output padding below the dilation only (PyTorch's dilation=3, output_padding=1: 11) fails the check
    EXPECT_NE(error("onednn_deconvolution", "in=4,k=3,dilates=2,dst=11").find("= 5 != src 4"), std::string::npos);
    // src 1: a dst below min truncates to the same src (C division): read as a crop at the end
    const auto r = read("onednn_deconvolution", "in=1,k=3,strides=2,dst=2");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(to_string(r.descriptor), "deconv:n=1,c=1,o=1,g=1,in=1,k=3,s=2,d=1,pb=0,pe=1,op=0,bias=0,dt=f32,data=ncx,wei=oix");
    EXPECT_NE(error("onednn_deconvolution", "in=4,k=3,padding_l=-1").find("problem is not mathematically consistent"),
              std::string::npos);
    EXPECT_NE(error("onednn_deconvolution", "in=4,k=3,strides=0").find("bad dimension strides:0"), std::string::npos);
}

// Every dialect that can say a canonical request reads it back as the same operation (the same
// pads_begin and output size: the index set), or refuses it in its own words.
RC_GTEST_PROP(TransposedDialects, SpellingsReadBackAsTheSameOperation, ()) {
    testgen::DescriptorLimits lim;
    lim.any_dtype = false;
    lim.any_format = false;
    auto t = *testgen::valid_transposed_descriptor(lim);
    const TransposedRequest q = request_from_descriptor(t);
    for (const TransposedDialect& d : all_transposed_dialects()) {
        std::string why_not;
        const auto spelled = d.spell(q, &why_not);
        if (!spelled) {
            RC_ASSERT(!why_not.empty());
            continue;
        }
        const auto r = d.read(*spelled);
        if (r.error) {
            RC_ASSERT(r.error->framework_wording);  // a framework's own rule, never a spelling bug
            continue;
        }
        for (int a = 0; a < t.rank; ++a) {
            if (r.descriptor.pads_begin[a] != t.pads_begin[a] || r.descriptor.output_size(a) != t.output_size(a))
                RC_FAIL(std::string(d.name) + " reads " + to_string(*spelled) + " as " + to_string(r.descriptor) +
                        ", not " + to_string(t));
        }
        RC_ASSERT(r.descriptor.has_bias == t.has_bias);
    }
}
