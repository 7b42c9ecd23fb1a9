// The accuracy mutants plugin (libconvcheck_plugin_accuracy_mutants.so): the reference's f64
// summation with one deliberate accuracy fault per `--backend-option mutant=<name>`, each one the
// accuracy contract's checks must catch (docs/accuracy.md; tests/accuracy_caught_test.cpp):
//   none         the f64 reference, rounded once: passes everything
//   zeros        writes 0 everywhere and declares f16 accumulation: where phi_n(2^-11) is
//                at least 1 its per-output bound is vacuous; never a pass
//   truncation   the f64 result truncated toward zero into the output type, declaring f32
//                accumulation: inside every per-output bound, caught by the statistics' bias rule
//   tf32_inputs  src and weights rounded to TF32 (11 significand bits) before summing: caught by
//                precision mode, which names TF32
//   bf16_inputs  the same with bf16 (8 significand bits)
//   whole_tensor_error  the exact result plus an error of up to 2 u M_max (u = 2^-24, M_max the
//                largest sum |x w| of the output tensor), as a Winograd or FFT kernel's error scales
//                with the tensor's largest magnitudes: it fails the per-output bound where an output's
//                own M is far below M_max, and passes under a declared "bound": {"kind": "whole_tensor"}
//   bias_after_rounding  the sum rounded to the output type, then the bias added in the output type and rounded
//                again (cuDNN's convolution followed by its separate bias add): two roundings, which an f16 or
//                bf16 output's bound for one rounding does not hold
// tf32_inputs, whole_tensor_error and bias_after_rounding pass everything once backends.json declares what they do
// ("input_precision": {"dtype": "tf32"}, "bound": {"kind": "whole_tensor"}, "bias": {"added":
// "after_output_rounding"}): tests/accuracy_caught_test.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/reference/fast_summation.hpp"
#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/accuracy/precision_fill.hpp"

namespace {

using namespace convcheck_plugin_support;

enum class Fault { none, zeros, truncation, tf32_inputs, bf16_inputs, whole_tensor_error, bias_after_rounding };
constexpr const char* kFaultNames[] = {"none",        "zeros",       "truncation",         "tf32_inputs",
                                       "bf16_inputs", "whole_tensor_error", "bias_after_rounding"};

struct Instance {
    Fault fault = Fault::none;
};

// `value` with its significand cut (toward zero) to `bits` bits: truncation instead of rounding.
double truncate_significand(double value, int bits) {
    if (value == 0.0 || !std::isfinite(value)) return value;
    const int e = std::ilogb(value);
    return std::ldexp(std::trunc(std::ldexp(value, bits - 1 - e)), e - (bits - 1));
}

// y_i += r_i c u M_max, r_i in [-1, 1) from a hash of i (unbiased, reproducible), u = 2^-24 (the f32
// accumulation it declares), c = min(2, n_max / 2): inside the whole-tensor bound phi_{n_max}(u) M_max
// and inside its statistics (E[z^2] = c^2 / (2 n_max) <= 1 for the whole-tensor sigma).
void add_whole_tensor_error(const std::vector<double>& magnitude, const std::vector<std::int64_t>& terms,
                            std::vector<double>& dst) {
    double max_magnitude = 0.0;
    std::int64_t max_terms = 1;
    for (std::size_t i = 0; i < dst.size(); ++i) {
        max_magnitude = std::max(max_magnitude, magnitude[i]);
        max_terms = std::max(max_terms, terms[i]);
    }
    const double scale = std::min(2.0, 0.5 * double(max_terms)) * std::ldexp(max_magnitude, -24);
    for (std::size_t i = 0; i < dst.size(); ++i) {
        std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;  // splitmix64's finaliser
        h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
        h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
        h ^= h >> 31;
        const double r = std::ldexp(double(h >> 11), -52) - 1.0;  // [-1, 1)
        dst[i] += r * scale;
    }
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return guarded("create", [&]() -> convcheck_error* {
        const std::string options =
            CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options ? args->options : "";
        auto instance = std::make_unique<Instance>();
        if (!options.empty()) {
            bool known = false;
            for (std::size_t i = 0; i < std::size(kFaultNames); ++i)
                if (options == "mutant=" + std::string(kFaultNames[i])) instance->fault = static_cast<Fault>(i), known = true;
            if (!known)
            {
                std::string names;
                for (const char* name : kFaultNames) names += (names.empty() ? "" : "|") + std::string(name);
                return invalid_argument("accuracy_mutants: unknown option '" + options + "' (want mutant=" + names + ")");
            }
        }
        *out = reinterpret_cast<convcheck_plugin*>(instance.release());
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }

convcheck_error* describe(convcheck_plugin* plugin, convcheck_plugin_info* info) {
    const Fault fault = reinterpret_cast<Instance*>(plugin)->fault;
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "accuracy_mutants";
    mine.version = "0.1.0";
    mine.operations = CONVCHECK_OP_CONV;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16);
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO);
    // none computes in f64 and says so; truncation hides behind a declared f32 accumulation; the
    // input-rounding mutants declare f32 as a TF32 backend would; zeros declares f16
    mine.accumulation_dtype = fault == Fault::none ? CONVCHECK_F64 : fault == Fault::zeros ? CONVCHECK_F16 : CONVCHECK_F32;
    return fill_info(info, mine);
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    return guarded("conv_query", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, nullptr)) return e;
        convcheck::validate(convcheck::runner::from_abi(*desc));
        return supported(out);
    });
}

// The plan remembers the fault; the f64 summation runs at each execute.
struct Plan : convcheck_conv_plan {
    Plan(const convcheck_conv_desc& desc, Fault fault)
        : convcheck_conv_plan(desc), d(convcheck::runner::from_abi(desc)), fault(fault) {
        convcheck::validate(d);
    }
    convcheck_error* execute(const convcheck_conv_args& args) override {
        namespace ref = convcheck::reference;
        std::vector<double> src = ref::src_to_ncx(d, args.src), weights = ref::weights_to_oix(d, args.weights);
        const std::vector<double> bias = ref::bias_to_double(d, args.bias);
        if (fault == Fault::tf32_inputs || fault == Fault::bf16_inputs)
            for (auto* v : {&src, &weights})
                for (double& x : *v) x = convcheck::accuracy::round_significand(x, fault == Fault::tf32_inputs ? 11 : 8);
        const bool late_bias = fault == Fault::bias_after_rounding && d.has_bias;
        convcheck::ConvDescriptor summed_desc = d;
        summed_desc.has_bias = !late_bias && d.has_bias;  // the late bias: added below, after a rounding
        const auto summed = ref::fast_convolution_summation(summed_desc, src, weights,
                                                            late_bias ? std::vector<double>{} : bias);
        std::vector<double> dst = summed.dst;
        if (late_bias) {
            const std::int64_t spatial = static_cast<std::int64_t>(dst.size()) / (d.batch * d.out_channels);
            for (std::size_t i = 0; i < dst.size(); ++i) {
                const double b = bias[static_cast<std::int64_t>(i) / spatial % d.out_channels];
                dst[i] = convcheck::round_to(d.dst_dtype(), convcheck::round_to(d.dst_dtype(), dst[i]) + b);
            }
        }
        const int p = convcheck::accuracy::significand_bits(d.dtype);
        for (double& y : dst) {
            if (fault == Fault::zeros) y = 0.0;
            if (fault == Fault::truncation) y = truncate_significand(y, p);
        }
        if (fault == Fault::whole_tensor_error) add_whole_tensor_error(summed.magnitude, summed.terms, dst);
        ref::round_dst_to_output(d, dst, args.dst);
        write_implementation(&args, std::string("accuracy_mutant_") + kFaultNames[static_cast<int>(fault)]);
        return nullptr;
    }
    const convcheck::ConvDescriptor d;
    const Fault fault;
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin* plugin, const convcheck_conv_desc& desc,
                                             const PrepareInputs&) {
    return std::make_unique<Plan>(desc, reinterpret_cast<Instance*>(plugin)->fault);
}

const convcheck_api api = [] {
    convcheck_api a = basic_api(create, destroy, describe);
    add_conv<prepare>(a, conv_query);
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
