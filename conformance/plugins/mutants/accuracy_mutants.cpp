// The accuracy mutants plugin (libconvcheck_plugin_accuracy_mutants.so): the reference's f64
// summation with one deliberate accuracy fault per `--backend-option mutant=<name>`, each one the
// accuracy contract's checks must catch (docs/accuracy.md; tests/accuracy_caught_test.cpp):
//   none         the f64 reference, rounded once: passes everything
//   zeros        writes 0 everywhere and declares f16 accumulation: where gamma_n(2^-11) is
//                infinite its per-output bound is vacuous; never a pass
//   truncation   the f64 result truncated toward zero into the output type, declaring f32
//                accumulation: inside every per-output bound, caught by the statistics' bias rule
//   tf32_inputs  src and weights rounded to TF32 (11 significand bits) before summing: caught by
//                precision mode, which names TF32
//   bf16_inputs  the same with bf16 (8 significand bits)
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "convcheck/reference/convolution.hpp"
#include "abi_descriptor.hpp"
#include "convcheck/plugin_support.hpp"
#include "precision_fill.hpp"

namespace {

using namespace convcheck_plugin_support;

enum class Fault { none, zeros, truncation, tf32_inputs, bf16_inputs };
constexpr const char* kFaultNames[] = {"none", "zeros", "truncation", "tf32_inputs", "bf16_inputs"};

struct Instance {
    Fault fault = Fault::none;
};

// `value` with its significand cut (toward zero) to `bits` bits: truncation instead of rounding.
double truncate_significand(double value, int bits) {
    if (value == 0.0 || !std::isfinite(value)) return value;
    const int e = std::ilogb(value);
    return std::ldexp(std::trunc(std::ldexp(value, bits - 1 - e)), e - (bits - 1));
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
                return invalid_argument("accuracy_mutants: unknown option '" + options +
                                  "' (want mutant=none|zeros|truncation|tf32_inputs|bf16_inputs)");
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
        std::vector<double> dst = ref::convolution_summation(d, src, weights, bias).dst;
        const int p = convcheck::accuracy::significand_bits(d.dtype);
        for (double& y : dst) {
            if (fault == Fault::zeros) y = 0.0;
            if (fault == Fault::truncation) y = truncate_significand(y, p);
        }
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
