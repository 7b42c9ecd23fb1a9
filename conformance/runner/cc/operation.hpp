// Internal to the runner: the continuous convolution (CC) layer (docs/cc.md): check.cpp, data.cpp,
// calls.cpp, jobs.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../case_pipeline.hpp"
#include "convcheck/core/cc_descriptor.hpp"

namespace convcheck::runner::detail {

// ---- CC: its traits (check.cpp), case data and executions (data.cpp) --------------------------------
void cc_validate(const Case& c);
DataType cc_output_dtype(const Case& c);
std::string cc_mode_not_applicable(accuracy::Mode mode);
void check_cc(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
              const CaseMemory& needs, CaseResult& r);
struct CcData {
    std::vector<float> src, theta, bias;  // theta empty for analytic kernels, bias without has_bias
};
// Drawn from the case's seed, or a stored golden vector's (checked against the descriptor).
CcData cc_case_data(const Case& c, const CcDescriptor& d);
// A stored f32 array's values (loaded and checked by the typed formats loader); empty when not stored.
std::vector<float> stored_floats(const npy::Array& a);
// A guarded f32 buffer holding `values` (cc/data.cpp).
GuardedBuffer guarded_copy(const std::vector<float>& values);
struct CcOutputs {
    std::vector<double> got;
    std::int64_t unwritten = 0;  // outputs the backend never wrote
};
// One isolated execution on `src` with data's theta and bias (execute_cc); `out` is set when it came
// back ok.
ChildOutcome run_cc_backend(const Backend& backend, const CcDescriptor& d, const CcData& data,
                            const std::vector<float>& src, const CheckSettings& s, const CaseMemory& needs,
                            CcOutputs& out);

}  // namespace convcheck::runner::detail
