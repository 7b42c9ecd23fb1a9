// Discrete convolution's case data and its trip through the backend: canonical data (src NCX,
// weights OIX, bias [O]) into guarded buffers in the case's layouts and dtypes, one isolated
// execution (conv/calls.cpp), and a stored golden vector's inputs and truth.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/abi/abi_post_ops.hpp"
#include "convcheck/reference/post_ops.hpp"
#include "convcheck/formats/case_data.hpp"
#include "operation.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/formats/manifest.hpp"
#include "convcheck/runner/offline.hpp"
#include "convcheck/runner/strided_buffers.hpp"

namespace convcheck::runner {

namespace {

// The case's four buffers, each spanning its tensor's memory layout in its own dtype, the gaps of a strided one
// holding the fill (strided_buffers.hpp); they live until the case is judged, and their mappings are kept for the
// next case's (guarded_buffer.hpp).
Buffers allocate_buffers(const ConvDescriptor& d) {
    const std::size_t e = static_cast<std::size_t>(size_of(d.bias_dtype()));
    Buffers b{GuardedBuffer(layout_bytes(d, TensorRole::src)), GuardedBuffer(layout_bytes(d, TensorRole::weights)),
              GuardedBuffer(d.bias_elements() * e), GuardedBuffer(layout_bytes(d, TensorRole::dst)), {}, {}};
    for (GuardedBuffer* t : {&b.src, &b.weights, &b.bias, &b.dst}) t->keep_when_released();
    fill_gaps(d, TensorRole::src, b.src.data());
    fill_gaps(d, TensorRole::weights, b.weights.data());
    return b;
}

// weights and bias into their buffers; dst "never written"
void write_weights_and_bias(const ConvDescriptor& d, const std::vector<double>& weights, const std::vector<double>& bias,
                            Buffers& b) {
    reference::oix_to_weights(d, weights, b.weights.data());
    for (std::int64_t o = 0; o < d.bias_elements(); ++o) store_from_double(b.bias.data(), d.bias_dtype(), o, bias[o]);
    std::memset(b.dst.data(), 0xFF, b.dst.bytes());
}

// Values a run of the streamed fill holds (8 MiB of doubles).
constexpr std::int64_t kFillRun = std::int64_t{1} << 20;

}  // namespace

Buffers make_buffers(const ConvDescriptor& d, const std::vector<double>& src, const std::vector<double>& weights,
                     const std::vector<double>& bias) {
    Buffers b = allocate_buffers(d);
    reference::ncx_to_src(d, src, b.src.data());
    write_weights_and_bias(d, weights, bias, b);
    return b;
}

namespace detail {

Buffers make_random_buffers(const ConvDescriptor& d, std::uint64_t seed, std::vector<double>& weights,
                            std::vector<double>& bias) {
    if (!reference::dense_canonical_f32(d, TensorRole::src))
        throw std::logic_error("make_random_buffers: src is not a dense NCX f32 tensor");
    Buffers b = allocate_buffers(d);
    accuracy::RandomFillStream fill(seed);
    float* src = static_cast<float*>(b.src.data());
    std::vector<double> run(static_cast<std::size_t>(std::min(d.src_elements(), kFillRun)));
    for (std::int64_t first = 0; first < d.src_elements(); first += kFillRun) {
        const std::span<double> values(run.data(), static_cast<std::size_t>(std::min(kFillRun, d.src_elements() - first)));
        fill.draw(DataType::f32, values);
        for (std::size_t j = 0; j < values.size(); ++j) src[first + static_cast<std::int64_t>(j)] = static_cast<float>(values[j]);
    }
    weights.resize(static_cast<std::size_t>(d.weights_elements()));
    fill.draw(d.weights_dtype(), weights);
    bias.resize(d.has_bias ? static_cast<std::size_t>(d.bias_elements()) : 0);
    if (d.has_bias) fill.draw(d.bias_dtype(), bias);
    write_weights_and_bias(d, weights, bias, b);
    return b;
}

}  // namespace detail

void add_post_op_buffers(const ConvDescriptor& d, const std::vector<std::vector<double>>& operands,
                         const std::vector<double>& prior_dst_ncx, Buffers& b) {
    b.operands.clear();
    for (std::size_t k = 0; k < d.post_ops.size(); ++k) {
        const std::int64_t n = operand_elements(d, d.post_ops[k]);
        b.operands.emplace_back(n * static_cast<std::int64_t>(size_of(d.post_ops[k].operand_type)));
        if (n > 0) reference::canonical_to_operand(d, d.post_ops[k], operands[k], b.operands.back().data());
    }
    if (!has_sum(d.post_ops)) return;
    reference::round_dst_to_output(d, prior_dst_ncx, b.dst.data());
    b.prior_dst = GuardedBuffer(b.dst.bytes());
    std::memcpy(b.prior_dst.data(), b.dst.data(), b.dst.bytes());
}

ConvExecution conv_execution(const ConvDescriptor& d, const Buffers& b) {
    ConvExecution e;
    e.desc = to_abi(d);
    if (!d.post_ops.empty()) {  // ABI 1.6: the chain on desc.next, the operands and dst_prev beside the buffers
        e.post_ops = std::make_shared<AbiPostOps>();
        attach_post_ops(d, e.desc, *e.post_ops);
        for (const GuardedBuffer& operand : b.operands) e.operands.push_back(operand.bytes() > 0 ? &operand : nullptr);
        if (has_sum(d.post_ops)) e.prior_dst = &b.prior_dst;
    }
    if (d.scales.present()) {  // ABI 1.7: the scales extension, first on the chain
        e.scales = std::make_shared<AbiScales>();
        attach_scales(d, e.desc, *e.scales);
    }
    e.src = &b.src;
    e.weights = &b.weights;
    e.bias = d.has_bias ? &b.bias : nullptr;
    e.dst = &b.dst;
    return e;
}

}  // namespace convcheck::runner

namespace convcheck::runner::detail {

std::int64_t unwritten_elements(const ConvDescriptor& d, const void* dst) { return unwritten_dst_elements(d, dst); }

ChildOutcome run_backend(const Backend& backend, const ConvDescriptor& d, const Buffers& b, const CheckSettings& s,
                         const CaseMemory& needs, bool one_shot_path) {
    if (backend.offline) return backend.offline->conv(d, b);  // export's or judge's stand-in (offline.hpp)
    ConvExecution e = conv_execution(d, b);
    // The plan decides the verdict; the one-shot conv_execute writes its own dst, filled like dst,
    // which must then hold the same outputs (operation_calls.hpp).
    GuardedBuffer one_shot;
    if (one_shot_path && backend.plugin->has_conv_plan() && b.dst.bytes() > 0) {
        one_shot = GuardedBuffer(b.dst.bytes());
        std::memset(one_shot.data(), 0xFF, one_shot.bytes());
        if (e.prior_dst) std::memcpy(one_shot.data(), e.prior_dst->data(), one_shot.bytes());
        e.one_shot_dst = &one_shot;
    }
    static_cast<ExecutionLimits&>(e) = execution_limits(s, needs.total() + static_cast<std::int64_t>(one_shot.bytes()));
    ChildOutcome o = execute_conv(*backend.plugin, backend.options, e);
    if (o.kind == ChildOutcome::Kind::ok)
        if (std::string why = written_gaps(d, b.dst.data()); !why.empty()) {
            o.kind = ChildOutcome::Kind::gaps_written;
            o.reason = std::move(why);
        }
    if (s.log) s.log->record(&b.src, &b.weights, e.bias, b.dst, o.kind == ChildOutcome::Kind::ok, backend.options.num_threads);
    return o;
}

const vectors::VectorCase& stored_case(const vectors::VectorSet& set, const Case& c) {
    for (const auto& vc : set.cases)
        if (vc.name == c.vector_case) return vc;
    throw std::invalid_argument("vector set " + c.vector_dir + " has no case " + c.vector_case);
}

std::vector<double> f64_values(const npy::Array& a) {
    std::vector<double> v(static_cast<std::size_t>(a.elements()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = a.get(static_cast<std::int64_t>(i));
    return v;
}

StoredConvData stored_conv_data(const Case& c) {
    const ConvDescriptor& d = c.conv;
    const vectors::VectorSet set = vectors::load_vector_set(c.vector_dir);
    const vectors::VectorCase& stored = stored_case(set, c);
    const vectors::CaseData data = vectors::load_case_data(set, stored);
    if (!(data.descriptor == d))  // the buffers below are sized from d: the stored arrays must fit it
        throw std::invalid_argument("stored vector " + c.vector_case + " is " + to_string(data.descriptor) + ", not " +
                                    to_string(d));
    StoredConvData s{set.name + "/" + stored.name,
                     make_buffers(d, reference::src_to_ncx(d, data.src.data.data()),
                                  reference::weights_to_oix(d, data.weights.data.data()),
                                  reference::bias_to_double(d, d.has_bias ? data.bias.data.data() : nullptr)),
                     reference::dst_to_ncx(d, data.dst.data.data()),
                     f64_values(data.dst_f64),
                     f64_values(data.magnitude),
                     {}};
    s.terms.resize(static_cast<std::size_t>(data.terms.elements()));
    for (std::size_t i = 0; i < s.terms.size(); ++i) s.terms[i] = static_cast<std::int64_t>(data.terms.get(std::int64_t(i)));
    return s;
}

}  // namespace convcheck::runner::detail
