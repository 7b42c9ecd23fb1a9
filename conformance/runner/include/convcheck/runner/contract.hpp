// The one accuracy contract of a backend (docs/accuracy.md): what the runner, the golden-vector
// checker (vectors/generator/check_plugin) and the direct plugin test (backend_test) all
// compare with. From the declarations file (backends.json, expectations.hpp) where it speaks, else
// from what the plugin says of itself in describe.
#pragma once

#include <cstdint>
#include <string>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/runner/expectations.hpp"

namespace convcheck::runner {

// The contract for a case of `output_dtype` on the backend named `backend_name`:
// - accumulation: the file's declaration for that dtype (or "*"), else the plugin's described
//   accumulation_dtype (a convcheck_dtype: f32, f16, bf16 or f64; any other value is taken as f32);
// - bound kind, input precision and bias rounding: the file's "bound", "input_precision" and "bias"
//   declarations (the caller drops the bias rounding for a case without a bias: case_pipeline.cpp).
// `declarations` may be nullptr (no file).
accuracy::Contract contract_for(const Expectations* declarations, const std::string& backend_name,
                                std::int32_t described_accumulation, DataType output_dtype);

}  // namespace convcheck::runner
