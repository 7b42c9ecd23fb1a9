// The memory hog: a correct backend (it computes with the reference) that, on demand, uses memory
// without bound, to prove that the runner's memory limit holds and is named (docs/runner.md):
//   --backend-option hog=none       correct (must pass)
//   --backend-option hog=grow       allocates and touches 8 MiB after 8 MiB, forever   -> out of memory (killed)
//   --backend-option hog=one_block --backend-option bytes=N
//                                   one allocation of N bytes (default 16 GiB), touched -> out of memory
//                                   (the allocation fails under RLIMIT_DATA, else killed while touching)
//   --backend-option hog=one_block_error  the same, but the plugin catches the std::bad_alloc and
//                                   returns an error, as a careful backend does -> out of memory
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/plugin_support.hpp"
#include "convcheck/reference/convolution.hpp"

namespace {

using namespace convcheck_plugin_support;

struct Instance {
    std::string hog = "none";
    std::size_t bytes = std::size_t{1} << 34;  // one_block
};

// Touches every page, so the memory is really used (an untouched allocation costs nothing).
void touch(char* block, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; i += 4096) static_cast<volatile char*>(block)[i] = 1;
}

[[noreturn]] void grow_forever() {
    static std::vector<char*> blocks;  // reachable: never freed, the child is killed
    constexpr std::size_t kBlock = 8u << 20;
    while (true) {
        char* block = static_cast<char*>(std::malloc(kBlock));
        if (!block) throw std::bad_alloc();
        touch(block, kBlock);
        blocks.push_back(block);
    }
}

void one_block(std::size_t bytes) {
    char* block = new char[bytes];  // throws std::bad_alloc when the allocation fails
    touch(block, bytes);
    delete[] block;
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    const std::string options =
        CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options ? args->options : "";
    Instance instance;
    std::size_t from = 0;
    while (from < options.size()) {  // "key=value,key=value"
        const std::size_t comma = std::min(options.find(',', from), options.size());
        const std::string item = options.substr(from, comma - from);
        from = comma + 1;
        if (item.starts_with("hog=")) instance.hog = item.substr(4);
        else if (item.starts_with("bytes=")) instance.bytes = std::strtoull(item.c_str() + 6, nullptr, 10);
        else return invalid_argument("memory_hog: unknown option '" + item + "' (want hog=<name> or bytes=<n>)");
    }
    if (instance.hog != "none" && instance.hog != "grow" && instance.hog != "one_block" &&
        instance.hog != "one_block_error")
        return invalid_argument("memory_hog: unknown hog '" + instance.hog + "' (none, grow, one_block, one_block_error)");
    *out = reinterpret_cast<convcheck_plugin*>(new Instance{instance});
    return nullptr;
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "memory_hog";
    mine.version = "0.1.0";
    mine.operations = CONVCHECK_OP_CONV;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16);
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO);
    mine.accumulation_dtype = CONVCHECK_F32;
    return fill_info(info, mine);
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    if (auto* e = check_conv_call(desc, nullptr)) return e;
    return supported(out);
}

// Not behind the exception barrier: a std::bad_alloc must escape, as from a careless backend.
convcheck_error* run_hog(const Instance& instance, const convcheck_conv_desc& desc, const convcheck_conv_args& args) {
    const std::string& hog = instance.hog;
    if (hog == "grow") grow_forever();
    if (hog == "one_block") one_block(instance.bytes);
    if (hog == "one_block_error")
        if (auto* e = guarded("memory_hog", [&]() -> convcheck_error* { return one_block(instance.bytes), nullptr; }))
            return e;
    const convcheck::ConvDescriptor d = convcheck::runner::from_abi(desc);
    const auto result = convcheck::reference::convolution(d, args.src, args.weights, args.bias);
    convcheck::reference::round_dst_to_output(d, result.dst, args.dst);
    write_implementation(&args, "memory_hog_" + hog);
    return nullptr;
}

convcheck_error* conv_execute(convcheck_plugin* plugin, const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    if (auto* e = check_conv_call(desc, args)) return e;
    return run_hog(*reinterpret_cast<Instance*>(plugin), *desc, *args);
}

// The plan says what one_block takes per execute: its workspace.
struct Plan : convcheck_conv_plan {
    Plan(const convcheck_conv_desc& desc, const Instance& instance) : convcheck_conv_plan(desc), instance(instance) {}
    convcheck_error* execute(const convcheck_conv_args& args) override { return run_hog(instance, desc, args); }
    uint64_t workspace_bytes() const override { return instance.hog.starts_with("one_block") ? instance.bytes : 0; }
    const Instance instance;
};

convcheck_error* conv_prepare(convcheck_plugin* plugin, const convcheck_conv_desc* desc,
                              const convcheck_conv_prepare_args*, convcheck_conv_plan** out) {
    if (auto* e = check_conv_call(desc, nullptr)) return e;
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
    a.conv_plan_execute = conv_plan_execute;  // not the support's: a std::bad_alloc must escape
    a.conv_plan_destroy = convcheck_plugin_support::conv_plan_destroy;
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
