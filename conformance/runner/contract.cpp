#include "convcheck/runner/contract.hpp"

#include "convcheck/abi/abi_descriptor.hpp"

namespace convcheck::runner {

accuracy::Contract contract_for(const Expectations* declarations, const std::string& backend_name,
                                std::int32_t described_accumulation, DataType output_dtype) {
    accuracy::Contract c;
    c.output_dtype = output_dtype;
    // an f64 output accumulates in f64 unless backends.json names f64's own entry: neither the plugin's one
    // described type nor an entry for every dtype ('*') speaks for f64 (docs/accuracy.md, "f64 cases")
    const bool f64 = output_dtype == DataType::f64;
    std::string acc = f64 ? "f64" : abi_dtype_name(described_accumulation);
    const BackendDeclaration* declared = declarations ? declarations->declaration(backend_name) : nullptr;
    if (declarations)
        if (auto a = declarations->accumulation(backend_name, std::string(to_string(output_dtype)), !f64)) acc = *a;
    if (acc == "f64") c.accumulation_is_f64 = true;  // u_acc = 2^-53
    else if (!parse_data_type(acc, &c.accumulation_dtype)) c.accumulation_dtype = DataType::f32;
    if (declared && declared->bound) c.bound_kind = accuracy::BoundKind::whole_tensor;  // the only kind declared
    if (declared && declared->input_precision)
        c.input_significand_bits = declared->input_precision->value == "tf32" ? 11 : 8;  // tf32 or bf16 (parsed)
    if (declared && declared->bias) c.bias_after_output_rounding = true;  // "after_output_rounding" (parsed)
    if (declared && declared->post_op_nan) c.post_op_nan = *declared->post_op_nan;
    if (declared && declared->post_op_signed_zero)  // "minus_zero" or "plus_zero" (parsed)
        parse_relu_zero(declared->post_op_signed_zero->value, &c.post_op_nan.relu_zero);
    if (declared && declared->fp8_conversion && declared->fp8_conversion->value == "saturating")
        c.fp8_overflow = Fp8Overflow::saturating;  // applies where the output is fp8 (accuracy::fp8_saturates)
    return c;
}

}  // namespace convcheck::runner
