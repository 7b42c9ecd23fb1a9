// benchdnn's fp8 lines (current oneDNN's inputs/conv/test_conv_gpu, test_conv_gpu_ci): --dt=f8_e4m3 / f8_e5m2 and
// their mixes map to dt= on the forward pass (docs/fp8.md); fp8 on a backward pass, in the deconv driver, with
// --attr-scales or with stochastic rounding is skipped with its reason, never run as something else.
#include <gtest/gtest.h>

#include "convcheck/formats/benchdnn_driver.hpp"

using namespace convcheck;

namespace {

std::vector<BenchdnnCase> read(const std::string& text, BenchdnnDriver driver = BenchdnnDriver::conv) {
    BenchdnnReadOptions options;
    options.driver = driver;
    return read_benchdnn_batch_text(text, "text", options);
}

std::string run_or_skip(const BenchdnnCase& c) {
    if (c.descriptor) return to_string(*c.descriptor);
    if (c.transposed) return to_string(*c.transposed);
    return "skip: " + c.skip_reason;
}

}  // namespace

TEST(BenchdnnFp8, ForwardLinesMapToTheirTypes) {
    const auto cases = read("--dt=f8_e5m2,f8_e4m3 --dir=FWD_B mb2ic4ih5oc4kh3\n"
                            "--reset --dt=f8_e4m3:f8_e4m3:bf16 --dir=fwd_d mb1ic4ih5oc4kh3\n");
    ASSERT_EQ(cases.size(), 3u);
    // FWD_B: current oneDNN's f32 bias
    EXPECT_NE(run_or_skip(cases[0]).find("bias=1,dt=f8_e5m2,bdt=f32"), std::string::npos) << run_or_skip(cases[0]);
    EXPECT_NE(run_or_skip(cases[1]).find("bias=1,dt=f8_e4m3,bdt=f32"), std::string::npos) << run_or_skip(cases[1]);
    EXPECT_NE(run_or_skip(cases[2]).find("bias=0,dt=f8_e4m3:f8_e4m3:bf16"), std::string::npos) << run_or_skip(cases[2]);
}

TEST(BenchdnnFp8, WhatIsNotCheckedIsSkippedWithItsReason) {
    const auto cases = read("--dt=f16:f8_e5m2:f8_e5m2 --dir=bwd_d mb1ic4ih5oc4kh3\n"
                            "--reset --dt=f8_e5m2 --dir=BWD_WB mb1ic4ih5oc4kh3\n"
                            "--reset --dt=f8_e4m3 --dir=FWD_B --attr-rounding-mode=dst:stochastic mb1ic4ih5oc4kh3\n"
                            "--reset --dt=f8_e4m3 --dir=fwd_d --attr-scales=wei:per_oc:f32+dst:per_oc:f32 mb1ic4ih5oc4kh3\n");
    ASSERT_EQ(cases.size(), 4u);
    EXPECT_EQ(run_or_skip(cases[0]), "skip: --dt: fp8 (f8_e4m3, f8_e5m2) on --dir=BWD_D; convcheck checks fp8 on the "
                                     "forward pass only (docs/fp8.md)");
    EXPECT_EQ(run_or_skip(cases[1]), "skip: --dt: fp8 (f8_e4m3, f8_e5m2) on --dir=BWD_WB; convcheck checks fp8 on the "
                                     "forward pass only (docs/fp8.md)");
    EXPECT_NE(run_or_skip(cases[2]).find("skip: --attr-rounding-mode: stochastic rounding"), std::string::npos)
        << run_or_skip(cases[2]);
    EXPECT_NE(run_or_skip(cases[3]).find("skip: --attr-scales"), std::string::npos) << run_or_skip(cases[3]);
}

TEST(BenchdnnFp8, TheDeconvDriverSkipsFp8) {
    const auto cases = read("--dt=f8_e4m3 --dir=FWD_D ic4ih5oc2kh3\n", BenchdnnDriver::deconv);
    ASSERT_EQ(cases.size(), 1u);
    EXPECT_EQ(run_or_skip(cases[0]), "skip: --dt: fp8 (f8_e4m3, f8_e5m2) of a transposed convolution (benchdnn's "
                                     "deconv driver); convcheck checks fp8 on the forward convolution only");
}
