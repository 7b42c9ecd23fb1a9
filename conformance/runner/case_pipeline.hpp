// Internal to the runner: what the case pipeline (case_pipeline.cpp) and every operation's folder
// share: a child's limits, the claims every convolution reads, the forward's index pairs, the verdict
// of summed outputs and the probe judge. Each operation's own pieces are in its folder's
// operation.hpp (conv/, backward/, transposed/, cc/, cc_backward/); the verdict's operation-generic
// pieces are in verdict.hpp.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "convcheck/runner/case_memory.hpp"
#include "convcheck/runner/check.hpp"
#include "convcheck/formats/manifest.hpp"
#include "convcheck/formats/npy.hpp"
#include "convcheck/runner/operation_traits.hpp"
#include "convcheck/runner/verdict.hpp"

namespace convcheck::runner::detail {

// A child's limits for a check: --timeout, --leak-check, and the memory limit with the runner's part
// (`runner_bytes`: the case's own buffers and reference, case_memory.hpp).
inline ExecutionLimits execution_limits(const CheckSettings& s, std::int64_t runner_bytes) {
    return {s.leak_check, s.timeout_s, {s.memory_limit_bytes, runner_bytes}};
}

// One run of a case, expectations applied: check_case without determinism mode (case_pipeline.cpp).
CaseResult check_case_once(const Backend& backend, const Case& c, const CheckSettings& settings);
// The data file's expected failures applied to a result: xfail, xpass, or an intermittent one that passed.
void apply_expectations(const Backend& backend, CaseResult& r);
// The stored golden vector a case names (c.vector_case in the set); throws std::invalid_argument.
const vectors::VectorCase& stored_case(const vectors::VectorSet& set, const Case& c);

// ---- the claims every convolution reads, and a case's stored arrays ---------------------------------
// The claims of describe every convolution reads (discrete convolution, its passes and transposed
// convolution, each on its own descriptor): dtype, rank, data and filter format; "" when claimed.
std::string tensors_unclaimed(const PluginInfo& info, DataType dtype, int rank, DataFormat data, FilterFormat filter);
// An f64 (or i64) array's values in order.
std::vector<double> f64_values(const npy::Array& a);

// ---- the forward's index pairs (probe_partners.cpp) ------------------------------------------------
// One term of the forward's index set: x = y*s - pb + k*d on every axis, x inside the input, y inside the
// output, as flat canonical indices (src NCX, weights OIX, dst NCX). The probes of the forward and backward
// passes and of transposed convolution put a zero opposite their NaN with it (probe_partners.cpp): the first
// term that holds the given element, or none when every tap of it reads padding.
struct IndexPair {
    std::int64_t src = -1, weights = -1, dst = -1;
};
std::optional<IndexPair> first_pair_with_dst(const ConvDescriptor& d, std::int64_t dst);
std::optional<IndexPair> first_pair_with_weights(const ConvDescriptor& d, std::int64_t weights);
std::optional<IndexPair> first_pair_with_src(const ConvDescriptor& d, std::int64_t src);

// The verdict of a pass whose outputs are sums the reference gives with magnitudes and term counts
// (the backward passes, transposed convolution): compares `got` exactly or under the contract's
// bound, sets r's error, status, kind and reason (the first failing output by element(flat), got,
// want and its terms; `outputs` names them, "gradient elements"), the statistics and the leak check.
struct SummedOutputs {
    const std::vector<double>& want;
    const std::vector<double>& magnitude;
    const std::vector<std::int64_t>& terms;
    const std::vector<double>& got;
    std::int64_t unwritten = 0;
    const std::vector<double>* bounds = nullptr;  // bound mode: each output's own bound (else the contract's)
};
void judge_summed_outputs(const accuracy::Contract& contract, bool exact, const SummedOutputs& o, const char* outputs,
                          const std::function<std::string(std::int64_t)>& element, const ChildOutcome& outcome,
                          const CheckSettings& s, CaseResult& r);


// ---- sampled mode's verdict (sampled_verdict.cpp; the large suite: conv/sampled.cpp, backward/sampled.cpp) ----
// The canary scan's unwritten outputs first (`unwritten`: the sentence naming them), then the sample compared
// under the bound (`cmp` made on the sample, `first_bad` its first failing index into got and want; the
// first failing output named by first_words, e.g. "at [0,1,2] (dst element 7, byte 28), sampled as ..."), then
// a pass with the comparison's statistics. `sampled`: "1030 sampled outputs of 2^31".
struct SampledJudgement {
    const accuracy::Comparison& cmp;
    std::int64_t first_bad = -1;
    const std::vector<double>& got;
    const std::vector<double>& want;
    std::string sampled;
    std::int64_t unwritten_count = 0;
    std::string unwritten;
    std::function<std::string(std::size_t)> first_words;
    std::function<std::string(std::size_t)> after_want = [](std::size_t) { return std::string(); };
};
void judge_sampled(const SampledJudgement& j, CaseResult& r);

// ---- probe mode, discrete convolution and CC alike (probe_judge.cpp) ------------------------------
// One backend run per probed src element. A ProbeJudge sums the runs: outputs that got NaN outside
// the receptive field, outputs inside it that did not, outputs the NaN does not reach over the error
// bound, where each lies, and the worst output of every run.
struct ProbeRun {
    std::int64_t src_element = 0;                    // where the NaN is (a flat index into the probed tensor)
    std::span<const double> want_with_nan, got;      // the reference's and the backend's result, NaN in place
    std::span<const double> want, magnitude;         // the reference's result without the NaN
    std::span<const std::int64_t> terms;
    std::span<const double> weight_error;            // CC: per output (accuracy.hpp); empty for conv
    std::int64_t unwritten = 0;                      // outputs the backend never wrote
    std::span<const char> may_reach;                 // empty, or outputs a NaN may reach (compare_probe)
    std::span<const double> bounds = {};             // empty, or each output's allowed |got - want| (CC backward)
    // empty, or 1 for each output that must be a zero of want's sign where the backend's is a zero (post-ops:
    // post_op_bounds, conv/operation.hpp)
    std::span<const char> zero_judged = {};
};
// How a probe's messages name the probed tensor and the outputs the NaN must reach: the forward
// probes src and its receptive field; a backward pass probes diff_dst and the elements the forward
// pairs it with.
struct ProbeWords {
    const char* probed = "src";
    const char* field = "its receptive field";      // the first failing run's words
    const char* field_summed = "the receptive field";  // the counts summed over the runs
    std::function<std::string(std::int64_t)> name_of;  // an output's name ("diff_src[0,1,2]"); empty: its coordinates
    // the probed element's name ("src[0,1,2,3]", when the runs probe more than one tensor); empty:
    // "<probed> element <flat index>"
    std::function<std::string(std::int64_t)> probed_name = {};
    const char* zero_sign = "";  // where zeros are judged: the sign's rule ("relu's: post_op_signed_zero ...")
};
class ProbeJudge {
public:
    ProbeJudge(const accuracy::Contract& contract, OutputLocation where, ProbeWords words = {});
    void add(const ProbeRun& run);
    // Sets r.error; and, when a run failed and r has not failed already, the status, kind and reason:
    // the first failing run in its own words, then the counts summed over the runs, then the worst
    // output the NaN does not reach when it exceeds the bound.
    void finish(CaseResult& r) const;

private:
    void locate(std::int64_t flat);  // counts a failing output at the border or inside
    std::string element_name(std::int64_t flat) const;
    std::string probed_name(std::int64_t flat) const;
    accuracy::Contract contract_;
    OutputLocation where_;
    ProbeWords words_;
    ErrorReport report_;
    std::string first_problem_;
    Kind first_kind_ = Kind::none;
};

}  // namespace convcheck::runner::detail
