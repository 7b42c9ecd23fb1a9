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
// Every fault happens in the plan's execute (ABI 1.2) and in the one-shot conv_execute alike, and
// neither is behind the exception barrier: the "exception" fault must escape.
// Two more libraries complete the zoo: faultzoo_wrong_abi (major version 99) and faultzoo_no_entry
// (no convcheck_get_api); both must fail to load (exit code 3).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "abi_descriptor.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/reference/convolution.hpp"

namespace {

using namespace convcheck_plugin_support;

const char* const kFaults[] = {"none", "segfault", "abort", "endless_loop", "write_past_output", "write_before_output",
                               "write_into_input", "nan_output", "exception", "leak", "exit", "hang_in_create", "hostile_message",
                               "hostile_create", "unimplemented", "out_of_memory_error", "one_shot_differs"};

// Every kind of byte a plugin can send that JSON, XML 1.0 or a terminal cannot take as it is. (The
// literal is split where a hex escape would swallow the letters after it.)
const std::string kHostile =
    "faultzoo: hostile <&\"'> ]]> stray \xff\xfe, broken \xc3\x28, overlong \xc0\xaf, surrogate \xed\xa0\x80, "
    "past U+10FFFF \xf4\x90\x80\x80, controls \x01\x02\x07\x08\x0b, ANSI \x1b[1;31m" "red\x1b[0m, OSC \x1b]0;"
    "title\x07, line1\nline2\r\n\ttab, DEL \x7f, C1 \xc2\x85\xc2\x9b, non-character \xef\xbf\xbe, "
    "truncated at the end \xe2\x82";

struct Instance {
    std::string fault = "none";
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
    *out = reinterpret_cast<convcheck_plugin*>(new Instance{fault});
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
    return fill_info(info, mine);
}

convcheck_error* conv_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = check_conv_call(desc, nullptr)) return e;
    if (reinterpret_cast<Instance*>(plugin)->fault == "hostile_message" && desc->rank == 1)
        return unsupported(out, kHostile);
    return supported(out);
}

// Deliberately NOT behind the exception barrier: the "exception" fault must escape.
convcheck_error* run_fault(const std::string& fault, const convcheck_conv_desc& desc, const convcheck_conv_args& args) {
    if (fault == "hostile_message") {
        write_implementation(&args, kHostile);
        return make_error(kHostile);
    }
    if (fault == "unimplemented")
        return make_error("faultzoo: this backend cannot run what its query accepted", CONVCHECK_ERROR_UNIMPLEMENTED);
    if (fault == "out_of_memory_error")
        return make_error("faultzoo: the device allocator has no memory left", CONVCHECK_ERROR_OUT_OF_MEMORY);
    const convcheck::ConvDescriptor d = convcheck::runner::from_abi(desc);
    const auto result = convcheck::reference::convolution(d, args.src, args.weights, args.bias);
    convcheck::reference::round_dst_to_output(d, result.dst, args.dst);
    const std::size_t element = static_cast<std::size_t>(convcheck::size_of(d.dtype));
    char* dst = static_cast<char*>(args.dst);
    if (fault == "segfault") *static_cast<volatile int*>(nullptr) = 1;
    if (fault == "abort") std::abort();
    if (fault == "endless_loop")
        endless_loop();
    if (fault == "write_past_output") std::memset(dst + d.dst_elements() * element, 0, element);
    if (fault == "write_before_output") std::memset(dst - element, 0, element);
    if (fault == "write_into_input") std::memset(const_cast<void*>(args.src), 0, element);
    if (fault == "nan_output")
        for (std::int64_t i = 0; i < d.dst_elements(); ++i) convcheck::store_from_double(dst, d.dtype, i, std::nan(""));
    if (fault == "exception") throw std::runtime_error("faultzoo: an exception thrown across the C ABI");
    if (fault == "leak") {
        void* block = std::malloc(1 << 20);
        std::memset(block, 1, 1 << 20);
        leaked().push_back(block);
    }
    if (fault == "exit") std::exit(7);
    write_implementation(&args, "faultzoo_" + fault);
    return nullptr;
}

convcheck_error* conv_execute(convcheck_plugin* plugin, const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    if (auto* e = check_conv_call(desc, args)) return e;
    const std::string& fault = reinterpret_cast<Instance*>(plugin)->fault;
    convcheck_error* e = run_fault(fault, *desc, *args);
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
    Plan(const convcheck_conv_desc& desc, std::string fault) : convcheck_conv_plan(desc), fault(std::move(fault)) {}
    convcheck_error* execute(const convcheck_conv_args& args) override { return run_fault(fault, desc, args); }
    const std::string fault;
};

convcheck_error* conv_prepare(convcheck_plugin* plugin, const convcheck_conv_desc* desc,
                              const convcheck_conv_prepare_args*, convcheck_conv_plan** out) {
    if (auto* e = check_conv_call(desc, nullptr)) return e;
    *out = new Plan(*desc, reinterpret_cast<Instance*>(plugin)->fault);
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
