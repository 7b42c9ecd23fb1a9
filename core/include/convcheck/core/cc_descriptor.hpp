// The canonical descriptor of a continuous convolution (CC) layer (seed 004, "From Discrete to
// Continuous Convolution Layers"), 2-D, NCHW: I [N, Cin, H, W] -> I' [N, Cout, H', W'].
//
// It carries exactly what the plugin ABI's convcheck_cc_desc carries (conformance/include/
// convcheck/plugin.h): batch, channels, input and output size, the per-axis scale (exact p/q or a
// real number), the kernel support, the continuous kernel (the Internal-Net K_theta or an analytic
// stand-in) with its parameters, bias and dtype. Axis 0 is H (vertical), axis 1 is W.
//
// Per axis (SPEC-NOTES §4, paper Eq. 2):
//   g_n = n/s + (in-1)/2 - (out-1)/(2s),  n = 0..out-1        (the projected grid)
//   out = ceil(s * in) unless given explicitly (then the given s is still used)
// A rational scale p/q is handled in exact arithmetic (core/include/convcheck/core/rational.hpp). A real scale is handled
// in double, and every ceil it needs goes through cc_ceil(), which snaps a value within
// kCcRealTolerance * max(1, |x|) of an integer onto that integer (docs/cc.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convcheck/core/descriptor.hpp"  // ConvError
#include "convcheck/core/dtype.hpp"
#include "convcheck/core/rational.hpp"

namespace convcheck {

// The continuous kernel of the layer; values match the ABI's convcheck_cc_kernel.
enum class CcKernel : int {
    internal_net = 0,  // the learned K_theta (paper, appendix A.1): 1x1 convs 2 -> h1 -> h2 -> Cin*Cout
    linear = 1,        // triangle, k(t) = max(0, 1 - |t|), natural support 2
    cubic = 2,         // Keys cubic convolution, a = -0.5, natural support 4
    gaussian = 3,      // exp(-t^2 / (2 sigma^2)) per axis, sigma in kernel_parameter
};
// "net", "linear", "cubic", "gaussian".
std::string_view to_string(CcKernel kernel);

// The tolerance of every decision a REAL scale makes in double: ceil(s*in) for the default output
// size and ceil(g - k/2) for the neighbour window. See cc_ceil().
inline constexpr double kCcRealTolerance = 1e-9;
// ceil(x), except that x within kCcRealTolerance * max(1, |x|) of an integer j gives j.
// Throws std::overflow_error when |x| >= 9e18 (outside the 64-bit range).
std::int64_t cc_ceil(double x);

// The scale factor of one axis. Mirrors the ABI: denominator > 0 means exactly
// numerator/denominator (kept in lowest terms); denominator == 0 means the real number `value`.
// `value` is always set (for a rational scale, p/q rounded to double).
struct CcScale {
    std::int64_t numerator = 1;
    std::int64_t denominator = 1;
    double value = 1.0;

    static CcScale exact(const Rational& s);
    static CcScale real(double s);
    bool is_rational() const { return denominator > 0; }
    Rational rational() const { return Rational(numerator, denominator); }  // only when is_rational()
    // Rational: same p/q. Real: same value.
    bool operator==(const CcScale& other) const;
    // "p/q" (or "p" when q = 1) for a rational; the shortest round-trip decimal with a '.' or an
    // exponent for a real (e.g. "0.7071", "2.0"), so that a real never reads back as rational.
    std::string to_string() const;
};

struct CcDescriptor {
    std::int64_t batch = 1;                          // N
    std::int64_t in_channels = 1;                    // Cin
    std::int64_t out_channels = 1;                   // Cout
    std::array<std::int64_t, 2> input_size{1, 1};    // H, W
    std::array<std::int64_t, 2> output_size{1, 1};  // H', W' (always explicit here; see parse)
    std::array<CcScale, 2> scale{};                  // s_h, s_w
    std::array<std::int64_t, 2> support{3, 3};       // k_h, k_w: kernel support in input pixels
    CcKernel kernel = CcKernel::internal_net;
    double kernel_parameter = 0.0;                   // gaussian: sigma; unused otherwise
    std::array<std::int64_t, 2> hidden_widths{16, 16};  // Internal-Net h1, h2 (paper: 16, 16)
    double leaky_relu_slope = 0.01;                  // Internal-Net LeakyReLU slope (PyTorch default)
    bool has_bias = false;
    DataType dtype = DataType::f32;                  // ABI 1.0: f32 only

    // Compares what the layer means: hidden_widths and leaky_relu_slope only for the Internal-Net,
    // kernel_parameter only for the Gaussian.
    bool operator==(const CcDescriptor& other) const;

    // K = k_h * k_w: the number of neighbours of every grid point (the window [g - k/2, g + k/2)
    // is half-open and k long, so it always holds exactly k integers).
    std::int64_t neighbours() const { return support[0] * support[1]; }
    std::vector<std::int64_t> src_dims() const { return {batch, in_channels, input_size[0], input_size[1]}; }
    std::vector<std::int64_t> dst_dims() const { return {batch, out_channels, output_size[0], output_size[1]}; }
    std::int64_t src_elements() const;
    std::int64_t dst_elements() const;
    // Length of the Internal-Net parameter vector theta in the ABI order
    // W1[h1][2], b1[h1], W2[h2][h1], b2[h2], W3[Cin*Cout][h2], b3[Cin*Cout]; 0 for analytic kernels.
    std::int64_t theta_elements() const;
};

// The default output size of an axis: ceil(s * in), exact for a rational s, cc_ceil for a real s.
std::int64_t cc_default_output_size(const CcScale& scale, std::int64_t input_size);

// Throws ConvError for the first rule the descriptor breaks: batch, channels, input and output
// sizes, support, hidden widths >= 1; a rational scale with numerator and denominator >= 1; a real
// scale finite and > 0; gaussian sigma finite and > 0; the slope finite; dtype f32; the projected
// grid and its windows representable (64-bit rational arithmetic, or |g| + k below 2^52 for a real
// scale); every tensor of the four blocks (src, dst, neighbours, distances, weights, theta) with an
// element count that fits in 64 bits.
void validate(const CcDescriptor& d);

// The canonical string form, e.g.
//   cc:n=1,cin=3,cout=8,in=32x32,scale=2/3x5/7,out=22x23,support=3x3,kernel=net,hidden=16x16,slope=0.01,bias=0,dt=f32
// print() writes every meaningful field (hidden and slope only for kernel=net, sigma only for
// kernel=gaussian); parse(print(d)) == d for every valid d.
std::string to_string(const CcDescriptor& d);
// Parses the canonical form (the "cc:" prefix is optional; keys in any order). Required: cin,
// cout, in. Defaults: n=1, bias=0, dt=f32, kernel=net, hidden=16x16, slope=0.01, sigma=0.5;
// support = 2 (linear), 4 (cubic), 3 (net, gaussian); scale and out: when both are missing the
// scale is 1; when only out is given the scale is out/in exactly; when only scale is given
// out = ceil(s * in). A key with one value applies it to both axes. Throws ConvError; validates.
CcDescriptor parse_cc_descriptor(std::string_view text);

// The pass of a CC case (docs/cc-backward.md): a case text is the layer's descriptor with an optional
// key dir=fwd (the forward, the default, never printed) or dir=bwd (the backward pass: diff_src,
// diff_theta, diff_bias). split_cc_pass takes the key out; `layer` is the rest, in its order.
// Throws ConvError naming dir for another value or a second dir key. The runner's cc suite and the
// cc_backward vector set (docs/vectors.md) spell a backward case this way.
struct CcPassText {
    std::string layer;
    bool backward = false;
};
CcPassText split_cc_pass(std::string_view text);

}  // namespace convcheck
