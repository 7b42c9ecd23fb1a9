#include "convcheck/core/dtype.hpp"

#include "convcheck/core/float8.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace convcheck {

std::string_view to_string(DataType dtype) {
    switch (dtype) {
        case DataType::f32: return "f32";
        case DataType::f16: return "f16";
        case DataType::bf16: return "bf16";
        case DataType::f64: return "f64";
        case DataType::f8_e4m3: return "f8_e4m3";
        case DataType::f8_e5m2: return "f8_e5m2";
    }
    return "?";
}

bool parse_data_type(std::string_view text, DataType* dtype) {
    if (text == "f32") { *dtype = DataType::f32; return true; }
    if (text == "f16") { *dtype = DataType::f16; return true; }
    if (text == "bf16") { *dtype = DataType::bf16; return true; }
    if (text == "f64") { *dtype = DataType::f64; return true; }
    if (text == "f8_e4m3") { *dtype = DataType::f8_e4m3; return true; }
    if (text == "f8_e5m2") { *dtype = DataType::f8_e5m2; return true; }
    return false;
}

bool is_fp8(DataType dtype) { return dtype == DataType::f8_e4m3 || dtype == DataType::f8_e5m2; }

int size_of(DataType dtype) { return dtype == DataType::f64 ? 8 : dtype == DataType::f32 ? 4 : is_fp8(dtype) ? 1 : 2; }

double unit_roundoff(DataType dtype) {
    switch (dtype) {
        case DataType::f32: return std::ldexp(1.0, -24);
        case DataType::f16: return std::ldexp(1.0, -11);
        case DataType::bf16: return std::ldexp(1.0, -8);
        case DataType::f64: return std::ldexp(1.0, -53);
        case DataType::f8_e4m3: return std::ldexp(1.0, -4);
        case DataType::f8_e5m2: return std::ldexp(1.0, -3);
    }
    return 1.0;
}

namespace {

// A binary floating-point format: `precision` significand bits (hidden bit included),
// normal exponents in [emin, emax] for values written as 1.f * 2^e.
struct Format {
    int precision;
    int emin;
    int emax;
    int fraction_bits() const { return precision - 1; }
};
constexpr Format kF16{11, -14, 15};
constexpr Format kBF16{8, -126, 127};

// Rounds a finite double to the format once, to nearest even. Returns +-inf on overflow.
double round_finite(double x, Format f) {
    if (x == 0.0) return x;
    int e;  // x = m * 2^e, 0.5 <= |m| < 1, so the leading bit has weight 2^(e-1)
    std::frexp(x, &e);
    int lead = e - 1;
    if (lead < f.emin) lead = f.emin;  // subnormal range: fixed quantum
    const int quantum_exp = lead - f.fraction_bits();
    // x / 2^quantum_exp is exact (a power-of-two scaling of a double well inside range);
    // nearbyint rounds to nearest even under the default rounding mode.
    const double scaled = std::ldexp(x, -quantum_exp);
    const double rounded = std::ldexp(std::nearbyint(scaled), quantum_exp);
    const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -f.fraction_bits()), f.emax);
    if (std::fabs(rounded) > max_finite) return std::copysign(std::numeric_limits<double>::infinity(), x);
    return rounded;
}

// Encodes a double that is exactly representable in the format (or +-inf) into its bits.
std::uint16_t encode(double v, Format f, int exponent_bits) {
    const std::uint16_t sign = std::signbit(v) ? std::uint16_t(1u << 15) : 0;
    const int bias = f.emax;
    const std::uint16_t exp_all_ones = std::uint16_t(((1u << exponent_bits) - 1) << f.fraction_bits());
    const double a = std::fabs(v);
    if (std::isinf(a)) return sign | exp_all_ones;
    if (a == 0.0) return sign;
    int e;
    std::frexp(a, &e);
    const int lead = e - 1;
    if (lead < f.emin) {  // subnormal: a = fraction * 2^(emin - fraction_bits)
        const auto fraction = static_cast<std::uint16_t>(std::ldexp(a, f.fraction_bits() - f.emin));
        return sign | fraction;
    }
    const auto fraction = static_cast<std::uint16_t>(std::ldexp(a, f.fraction_bits() - lead) - std::ldexp(1.0, f.fraction_bits()));
    const auto biased = static_cast<std::uint16_t>(lead + bias);
    return sign | std::uint16_t(biased << f.fraction_bits()) | fraction;
}

// NaN: keep the sign and the top fraction bits, force the quiet bit so the result stays a NaN.
std::uint16_t nan_from_f32(float value, Format f, int exponent_bits) {
    const std::uint32_t b = std::bit_cast<std::uint32_t>(value);
    const std::uint16_t sign = std::uint16_t((b >> 31) << 15);
    const std::uint16_t exp_all_ones = std::uint16_t(((1u << exponent_bits) - 1) << f.fraction_bits());
    const std::uint16_t payload = std::uint16_t((b & 0x7fffffu) >> (23 - f.fraction_bits()));
    const std::uint16_t quiet = std::uint16_t(1u << (f.fraction_bits() - 1));
    return sign | exp_all_ones | payload | quiet;
}

std::uint16_t narrow(double value, Format f, int exponent_bits) {
    if (std::isnan(value)) return nan_from_f32(static_cast<float>(value), f, exponent_bits);
    if (std::isinf(value)) return encode(value, f, exponent_bits);
    return encode(round_finite(value, f), f, exponent_bits);
}

}  // namespace

// f16: sign, 5 exponent bits (bias 15), 10 fraction bits. Every f16 value is an f32 value: its bits rebiased, a
// subnormal's fraction scaled, a NaN's sign and payload kept (the fraction at the top of f32's). Bit operations, not
// ldexp: the runner, the reference and the plugins widen every f16 element they read.
float f16_to_f32(std::uint16_t bits) {
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu, fraction = bits & 0x3ffu;
    if (exponent == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (fraction << 13));  // inf, NaN
    if (exponent == 0) {  // zero or subnormal: fraction * 2^-24 (exact in f32, a normal number there)
        const float magnitude = static_cast<float>(fraction) * 0x1p-24f;
        return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(magnitude));
    }
    return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (fraction << 13));
}

float bf16_to_f32(std::uint16_t bits) { return std::bit_cast<float>(std::uint32_t(bits) << 16); }

std::uint16_t f32_to_f16(float value) { return narrow(value, kF16, 5); }
std::uint16_t f32_to_bf16(float value) { return narrow(value, kBF16, 8); }
std::uint16_t f64_to_f16(double value) { return narrow(value, kF16, 5); }
std::uint16_t f64_to_bf16(double value) { return narrow(value, kBF16, 8); }

double round_to(DataType dtype, double value) {
    switch (dtype) {
        case DataType::f32: return static_cast<double>(static_cast<float>(value));
        case DataType::f16: return f16_to_f32(f64_to_f16(value));
        case DataType::bf16: return bf16_to_f32(f64_to_bf16(value));
        case DataType::f64: return value;
        case DataType::f8_e4m3: return f8_e4m3_to_f64(f64_to_f8_e4m3(value));
        case DataType::f8_e5m2: return f8_e5m2_to_f64(f64_to_f8_e5m2(value));
    }
    return value;
}

double load_as_double(const void* data, DataType dtype, std::int64_t index) {
    switch (dtype) {
        case DataType::f32: return static_cast<const float*>(data)[index];
        case DataType::f16: return f16_to_f32(static_cast<const std::uint16_t*>(data)[index]);
        case DataType::bf16: return bf16_to_f32(static_cast<const std::uint16_t*>(data)[index]);
        case DataType::f64: return static_cast<const double*>(data)[index];
        case DataType::f8_e4m3: return f8_e4m3_to_f64(static_cast<const std::uint8_t*>(data)[index]);
        case DataType::f8_e5m2: return f8_e5m2_to_f64(static_cast<const std::uint8_t*>(data)[index]);
    }
    return 0.0;
}

void store_from_double(void* data, DataType dtype, std::int64_t index, double value) {
    switch (dtype) {
        case DataType::f32: static_cast<float*>(data)[index] = static_cast<float>(value); return;
        case DataType::f16: static_cast<std::uint16_t*>(data)[index] = f64_to_f16(value); return;
        case DataType::bf16: static_cast<std::uint16_t*>(data)[index] = f64_to_bf16(value); return;
        case DataType::f64: static_cast<double*>(data)[index] = value; return;
        case DataType::f8_e4m3: static_cast<std::uint8_t*>(data)[index] = f64_to_f8_e4m3(value); return;
        case DataType::f8_e5m2: static_cast<std::uint8_t*>(data)[index] = f64_to_f8_e5m2(value); return;
    }
}

}  // namespace convcheck
