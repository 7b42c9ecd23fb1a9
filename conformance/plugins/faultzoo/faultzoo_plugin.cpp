// The fault zoo: a correct backend (it computes with the reference) that misbehaves on demand, one
// fault per `--backend-option fault=<name>`, to prove that the runner survives and classifies each:
//   none               correct (must pass)
//   segfault           writes through a null pointer                 -> crashed (SIGSEGV)
//   abort              calls abort()                                 -> crashed (SIGABRT)
//   endless_loop       never returns                                 -> hanged
//   write_past_output  writes one element past the end of dst        -> crashed (write past the end of dst)
//   write_before_output writes one element before dst                -> crashed (before the start of dst)
//   write_into_input   writes into src                               -> crashed (write into the input src)
//   nan_output         writes NaN into every output                  -> failed (NaN where the reference is finite)
//   exception          lets a C++ exception escape conv_execute      -> crashed (exception escaped)
//   leak               keeps 1 MiB of heap per execute, never freed  -> failed with --leak-check
//   exit               calls exit(7) inside execute                  -> crashed (called exit)
//   hang_in_create     create never returns                          -> negotiation fails (exit code 3)
//   hostile_message    declines rank-1 cases and fails the others with a message (and names its
//                      implementation) full of bytes no report format holds as they are: invalid
//                      UTF-8, control characters, ANSI escapes, newlines, XML markup
//                                                                    -> unsupported / failed; every artefact
//                                                                       stays well-formed (printable.hpp)
//   hostile_create     create fails with that message                -> negotiation fails (exit code 3)
//   unimplemented      execute returns CONVCHECK_ERROR_UNIMPLEMENTED -> failed (plugin_error, error_code unimplemented)
//   out_of_memory_error execute returns CONVCHECK_ERROR_OUT_OF_MEMORY -> crashed (out_of_memory, error_code out_of_memory)
//   one_shot_differs   the plan is right, the one-shot conv_execute  -> failed (paths_differ)
//                      is one output off
//   bits_follow_threads with num_threads > 1, every output that is 0  -> passes one run; fails
//                      is written as -0: right values whose bits        --threads-sweep 1,2 as
//                      follow the thread count                          nondeterministic
//   by_out_channels    one fault per case, by its out channels (o):   each classified for its own case,
//                      o=5 segfault, o=6 endless_loop, o=7 abort,     also when cases run at once
//                      o=8 grows its heap until it is stopped,        (--jobs, jobs_check.py)
//                      o=9 exit; correct for any other o
// Every fault happens in the plan's execute (ABI 1.2) and in the one-shot conv_execute alike, and
// neither is behind the exception barrier: the "exception" fault must escape.
// The backward passes (ABI 1.2 prop_kind; docs/passes.md) are computed with the reference too, through
// conv_execute, and every fault but one_shot_differs (a plan's) happens in them alike: on their
// gradients (the outputs) and diff_dst (the input), so the runner's jobs for a backward case
// (shrinking, failure bundles, determinism mode) have a backend that is wrong on purpose.
// Two more libraries complete the zoo: faultzoo_wrong_abi (major version 99) and faultzoo_no_entry
// (no convcheck_get_api); both must fail to load (exit code 3).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/convolution.hpp"

namespace {

using namespace convcheck_plugin_support;

const char* const kFaults[] = {"none", "segfault", "abort", "endless_loop", "write_past_output", "write_before_output",
                               "write_into_input", "nan_output", "exception", "leak", "exit", "hang_in_create", "hostile_message",
                               "hostile_create", "unimplemented", "out_of_memory_error", "one_shot_differs",
                               "bits_follow_threads", "by_out_channels"};

// Every kind of byte a plugin can send that JSON, XML 1.0 or a terminal cannot take as it is. (The
// literal is split where a hex escape would swallow the letters after it.)
const std::string kHostile =
    "faultzoo: hostile <&\"'> ]]> stray \xff\xfe, broken \xc3\x28, overlong \xc0\xaf, surrogate \xed\xa0\x80, "
    "past U+10FFFF \xf4\x90\x80\x80, controls \x01\x02\x07\x08\x0b, ANSI \x1b[1;31m" "red\x1b[0m, OSC \x1b]0;"
    "title\x07, line1\nline2\r\n\ttab, DEL \x7f, C1 \xc2\x85\xc2\x9b, non-character \xef\xbf\xbe, "
    "truncated at the end \xe2\x82";

struct Instance {
    std::string fault = "none";
    int num_threads = 0;  // create_args.num_threads (0: the plugin's default, one thread here)
};

[[noreturn]] void endless_loop() {
    volatile unsigned long spin = 0;
    while (true) spin = spin + 1;
}

std::vector<void*>& leaked() {
    static std::vector<void*> blocks;  // reachable, so sanitizers do not complain; never freed
    return blocks;
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    std::string options = CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options ? args->options : "";
    std::string fault = "none";
    if (!options.empty()) {
        if (!options.starts_with("fault=")) return invalid_argument("faultzoo: unknown option '" + options + "' (want fault=<name>)");
        fault = options.substr(6);
        bool known = false;
        for (const char* f : kFaults) known = known || fault == f;
        if (!known) return invalid_argument("faultzoo: unknown fault '" + fault + "'");
    }
    if (fault == "hang_in_create")
        endless_loop();
    if (fault == "hostile_create") return make_error(kHostile);
    *out = reinterpret_cast<convcheck_plugin*>(new Instance{fault, args->num_threads});
    return nullptr;
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "faultzoo";
    mine.version = "0.1.0";
    mine.operations = CONVCHECK_OP_CONV;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16);
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO);
    mine.accumulation_dtype = CONVCHECK_F32;
    mine.prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD) | CONVCHECK_BIT(CONVCHECK_BACKWARD_DATA) |
                      CONVCHECK_BIT(CONVCHECK_BACKWARD_WEIGHTS);
    return fill_info(info, mine);
}

convcheck_error* conv_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = check_conv_call(desc, nullptr)) return e;
    if (reinterpret_cast<Instance*>(plugin)->fault == "hostile_message" && desc->rank == 1)
        return unsupported(out, kHostile);
    return supported(out);
}

bool is_backward(const convcheck_conv_desc& desc) { return prop_kind(desc) != CONVCHECK_FORWARD; }

// One output tensor of an execution: dst; diff_src; diff_weights and diff_bias.
struct Output {
    void* data;
    std::int64_t elements;
};

// The pass computed with the reference (in double, rounded once) into its outputs, which it returns.
std::vector<Output> compute(const convcheck::ConvDescriptor& d, const convcheck_conv_args& args) {
    namespace ref = convcheck::reference;
    if (d.pass == convcheck::Pass::forward) {
        std::vector<double> dst = ref::convolution(d, args.src, args.weights, args.bias).dst;
        ref::apply_dst_scale(d, dst);  // a float case's dst scale (ABI 1.7), the reference's last step
        ref::round_dst_to_output(d, dst, args.dst);
        return {{args.dst, d.dst_elements()}};
    }
    if (d.pass == convcheck::Pass::backward_data) {
        ref::ncx_to_src(d, ref::backward_data(d, args.dst, args.weights).values, args.diff_src);
        return {{args.diff_src, d.src_elements()}};
    }
    ref::GradientResult bias;
    ref::oix_to_weights(d, ref::backward_weights(d, args.src, args.dst, d.has_bias ? &bias : nullptr).values,
                        args.diff_weights);
    if (!d.has_bias) return {{args.diff_weights, d.weights_elements()}};
    ref::round_bias_to_output(d, bias.values, args.diff_bias);
    return {{args.diff_weights, d.weights_elements()}, {args.diff_bias, d.out_channels}};
}

// The fault of this case: the instance's, or by_out_channels' pick for the case.
std::string fault_of(const Instance& instance, const convcheck_conv_desc& desc) {
    if (instance.fault != "by_out_channels") return instance.fault;
    switch (desc.out_channels) {
        case 5: return "segfault";
        case 6: return "endless_loop";
        case 7: return "abort";
        case 8: return "grow";
        case 9: return "exit";
        default: return "none";
    }
}

// Deliberately NOT behind the exception barrier: the "exception" fault must escape.
convcheck_error* run_fault(const Instance& instance, const convcheck_conv_desc& desc, const convcheck_conv_args& args) {
    const std::string fault = fault_of(instance, desc);
    if (fault == "hostile_message") {
        write_implementation(&args, kHostile);
        return make_error(kHostile);
    }
    if (fault == "unimplemented")
        return make_error("faultzoo: this backend cannot run what its query accepted", CONVCHECK_ERROR_UNIMPLEMENTED);
    if (fault == "out_of_memory_error")
        return make_error("faultzoo: the device allocator has no memory left", CONVCHECK_ERROR_OUT_OF_MEMORY);
    const convcheck::ConvDescriptor d = convcheck::runner::from_abi(desc);
    const std::vector<Output> outputs = compute(d, args);
    const std::size_t element = static_cast<std::size_t>(convcheck::size_of(d.dtype));
    char* dst = static_cast<char*>(outputs.front().data);
    const void* input = d.pass == convcheck::Pass::forward ? args.src : args.dst;  // src, or diff_dst
    if (fault == "segfault") *static_cast<volatile int*>(nullptr) = 1;
    if (fault == "abort") std::abort();
    if (fault == "endless_loop")
        endless_loop();
    if (fault == "write_past_output") std::memset(dst + outputs.front().elements * element, 0, element);
    if (fault == "write_before_output") std::memset(dst - element, 0, element);
    if (fault == "write_into_input") std::memset(const_cast<void*>(input), 0, element);
    for (const Output& o : outputs)
        for (std::int64_t i = 0; i < o.elements; ++i) {
            if (fault == "nan_output") convcheck::store_from_double(o.data, d.dtype, i, std::nan(""));
            if (fault == "bits_follow_threads" && instance.num_threads > 1 && convcheck::load_as_double(o.data, d.dtype, i) == 0.0)
                convcheck::store_from_double(o.data, d.dtype, i, -0.0);
        }
    if (fault == "exception") throw std::runtime_error("faultzoo: an exception thrown across the C ABI");
    if (fault == "leak") {
        void* block = std::malloc(1 << 20);
        std::memset(block, 1, 1 << 20);
        leaked().push_back(block);
    }
    if (fault == "exit") std::exit(7);
    if (fault == "grow")  // by_out_channels' o=8: past any memory limit, 64 MiB at a time, every page touched
        while (true) {
            auto* block = new char[64 << 20];
            std::memset(block, 1, 64 << 20);
            leaked().push_back(block);
        }
    write_implementation(&args, "faultzoo_" + fault);
    return nullptr;
}

// A backward pass's buffers (plugin.h, convcheck_conv_args): diff_dst in dst, and the pass's own.
convcheck_error* missing_backward_buffers(const convcheck_conv_desc& desc, const convcheck_conv_args* args) {
    if (!CONVCHECK_HAS_FIELD(args, convcheck_conv_args, diff_bias) || args->dst == nullptr)
        return invalid_argument("conv_args: a backward pass needs ABI 1.2's diff buffers and diff_dst in dst");
    const bool data = prop_kind(desc) == CONVCHECK_BACKWARD_DATA;
    if (data ? args->weights == nullptr || args->diff_src == nullptr
             : args->src == nullptr || args->diff_weights == nullptr || (desc.has_bias && args->diff_bias == nullptr))
        return invalid_argument("conv_args: the backward pass misses one of its inputs or outputs");
    return nullptr;
}

convcheck_error* conv_execute(convcheck_plugin* plugin, const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    const Instance& instance = *reinterpret_cast<Instance*>(plugin);
    if (auto* e = check_conv_call(desc, nullptr)) return e;
    if (is_backward(*desc)) {
        if (auto* e = missing_backward_buffers(*desc, args)) return e;
        return run_fault(instance, *desc, *args);
    }
    if (auto* e = check_conv_call(desc, args)) return e;
    const std::string& fault = instance.fault;
    convcheck_error* e = run_fault(instance, *desc, *args);
    if (e == nullptr && fault == "one_shot_differs") {  // one output off: the first that is not NaN, +1
        const convcheck::ConvDescriptor d = convcheck::runner::from_abi(*desc);
        std::int64_t i = 0;
        while (i + 1 < d.dst_elements() && std::isnan(convcheck::load_as_double(args->dst, d.dtype, i))) ++i;
        const double v = convcheck::load_as_double(args->dst, d.dtype, i);
        convcheck::store_from_double(args->dst, d.dtype, i, std::isnan(v) ? 0.0 : v + 1.0);
    }
    return e;
}

struct Plan : convcheck_conv_plan {
    Plan(const convcheck_conv_desc& desc, Instance instance) : convcheck_conv_plan(desc), instance(std::move(instance)) {}
    convcheck_error* execute(const convcheck_conv_args& args) override { return run_fault(instance, desc, args); }
    const Instance instance;
};

convcheck_error* conv_prepare(convcheck_plugin* plugin, const convcheck_conv_desc* desc,
                              const convcheck_conv_prepare_args*, convcheck_conv_plan** out) {
    if (auto* e = check_conv_call(desc, nullptr)) return e;
    if (is_backward(*desc))  // plugin.h: a plan is the forward pass's; a backward pass runs one-shot
        return make_error("faultzoo: a plan computes the forward pass only", CONVCHECK_ERROR_UNIMPLEMENTED);
    *out = new Plan(*desc, *reinterpret_cast<Instance*>(plugin));
    return nullptr;
}

convcheck_error* conv_plan_execute(convcheck_conv_plan* plan, const convcheck_conv_args* args) {
    if (auto* e = check_conv_args(plan->desc, args)) return e;
    return plan->execute(*args);
}

const convcheck_api api = [] {
    convcheck_api a = basic_api(create, destroy, describe);
    a.conv_query = conv_query;
    a.conv_execute = conv_execute;
    a.conv_prepare = conv_prepare;
    a.conv_plan_describe = convcheck_plugin_support::conv_plan_describe;
    a.conv_plan_execute = conv_plan_execute;  // not the support's: no exception barrier here
    a.conv_plan_destroy = convcheck_plugin_support::conv_plan_destroy;
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
