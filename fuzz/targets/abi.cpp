// Fuzz target: the plugin ABI argument checks, on both sides of the boundary.
//
// Plugin side: the in-tree optimized plugin (conformance/plugins/optimized, compiled into this
// program) is called through its function table with structs of random sizes and contents, as an
// older, newer or broken runner might pass them: create_args, plugin_info, conv_desc, cc_desc,
// conv_args. Properties: every call returns either NULL or an error whose message is readable; no
// call crashes, reads or writes past the struct_size it was given (each struct sits in a buffer of
// exactly that many bytes, so ASan sees any overrun; bytes past struct_size must stay untouched),
// or leaves the support reason unterminated; a supported, small descriptor executes on buffers of
// exactly its sizes.
// Runner side: from_abi + validate on the same random structs throw ConvError only.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/plugin.h"
#include "fuzz_input.hpp"
#include "convcheck/core/memory_layout.hpp"

namespace {

using convcheck::fuzz::FuzzInput;
using convcheck::fuzz::property_failed;

const convcheck_api& api() {
    static const convcheck_api* table = convcheck_get_api();
    return *table;
}

void check_error(convcheck_error* e, const char* call) {
    if (e == nullptr) return;
    const char* message = api().error_message(e);
    if (message == nullptr) property_failed("abi", std::string(call) + ": error_message returned NULL");
    (void)std::strlen(message);
    api().error_destroy(e);
}

// A struct of `T`'s type but only `size` bytes long (at least sizeof(size_t)): random contents,
// struct_size set to `declared`. Stored in a buffer of max(size, sizeof(T)) + 16 bytes whose tail is
// a known pattern, to see writes past the declared size.
template <typename T>
struct RandomStruct {
    std::vector<unsigned char> bytes;
    std::size_t declared;
    RandomStruct(FuzzInput& in, bool any_size) {
        declared = any_size ? static_cast<std::size_t>(in.integer(0, sizeof(T) + 8)) : sizeof(T);
        bytes.assign(sizeof(T) + 16, 0xA5);
        for (std::size_t i = sizeof(std::size_t); i < sizeof(T); ++i) bytes[i] = static_cast<unsigned char>(in.integer(0, 255));
        std::memcpy(bytes.data(), &declared, sizeof(std::size_t));
    }
    T* get() { return reinterpret_cast<T*>(bytes.data()); }
    bool tail_untouched(std::size_t from) const {
        for (std::size_t i = from; i < bytes.size(); ++i)
            if (bytes[i] != 0xA5 && i >= sizeof(T)) return false;
        return true;
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzInput in(data, size);
    const bool sizes_vary = in.flag();

    // create with random create_args (or none)
    RandomStruct<convcheck_create_args> create_args(in, sizes_vary);
    // Keep the thread count and options sane enough not to spawn thousands of threads or read a
    // random pointer: the options pointer is the runner's, never random.
    create_args.get()->num_threads = static_cast<int32_t>(in.integer(-2, 2));
#if CONVCHECK_ABI_MINOR >= 1
    if (create_args.declared >= CONVCHECK_STRUCT_SIZE(convcheck_create_args, options)) create_args.get()->options = nullptr;
#endif
#if CONVCHECK_ABI_MINOR >= 2
    // the thread pool, like the options, is the runner's pointer: valid or NULL, never random
    if (create_args.declared >= CONVCHECK_STRUCT_SIZE(convcheck_create_args, thread_pool))
        create_args.get()->thread_pool = nullptr;
#endif
    convcheck_plugin* plugin = nullptr;
    convcheck_error* e = api().create(in.flag() ? nullptr : create_args.get(), &plugin);
    if (e != nullptr || plugin == nullptr) {
        check_error(e, "create");
        return 0;
    }

    // describe into an info struct of random size: nothing may be written past struct_size
    RandomStruct<convcheck_plugin_info> info(in, sizes_vary);
    check_error(api().describe(plugin, info.get()), "describe");
    if (!info.tail_untouched(info.declared)) property_failed("abi", "describe wrote past info.struct_size");

    // conv_query with a random descriptor
    RandomStruct<convcheck_conv_desc> desc(in, sizes_vary);
#if CONVCHECK_ABI_MINOR >= 2
    // the extension chain is the runner's pointer (NULL in 1.2); the dtypes and pass stay random
    if (desc.declared >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, next)) desc.get()->next = nullptr;
#endif
    convcheck_support support{};
    support.struct_size = sizeof(support);
    std::memset(support.reason, 'x', sizeof(support.reason));
    e = api().conv_query(plugin, desc.get(), &support);
    if (e == nullptr && !support.supported && std::memchr(support.reason, '\0', sizeof(support.reason)) == nullptr)
        property_failed("abi", "conv_query left the reason unterminated");
    const bool supported = e == nullptr && support.supported;
    check_error(e, "conv_query");

    // the runner's reading of the same struct (complete size only: the runner writes its own)
    convcheck::ConvDescriptor d;
    bool valid = false;
    try {
        d = convcheck::runner::from_abi(*desc.get());
        convcheck::validate(d);
        valid = true;
    } catch (const convcheck::ConvError&) {
    }
    if (supported && desc.declared >= sizeof(convcheck_conv_desc) && !valid)
        property_failed("abi", "conv_query supports a descriptor that validate() refuses: " +
                                   std::string(e ? "" : "(see from_abi)"));

    // execute a small supported descriptor on buffers of exactly its sizes: each tensor's span under the
    // descriptor's memory strides (ABI 1.2; dense when it gives none), as the ABI asks of a caller
    auto span = [&](convcheck::TensorRole role) { return convcheck::layout_of(d, role).span(); };
    if (supported && valid && d.macs() <= 100000 && span(convcheck::TensorRole::src) <= 100000 &&
        span(convcheck::TensorRole::dst) <= 100000 && span(convcheck::TensorRole::weights) <= 100000) {
        // each tensor in its own dtype (ABI 1.2's per-tensor dtypes: a bf16 case may have an f32 bias and dst)
        std::vector<unsigned char> src(span(convcheck::TensorRole::src) * convcheck::size_of(d.src_dtype()), 0x3c),
            weights(span(convcheck::TensorRole::weights) * convcheck::size_of(d.weights_dtype()), 0x3c),
            bias(d.bias_elements() * convcheck::size_of(d.bias_dtype()), 0x3c),
            dst(span(convcheck::TensorRole::dst) * convcheck::size_of(d.dst_dtype()));
        RandomStruct<convcheck_conv_args> args(in, sizes_vary);
        auto* a = args.get();
        if (args.declared >= CONVCHECK_STRUCT_SIZE(convcheck_conv_args, dst)) {
            a->src = src.data();
            a->weights = weights.data();
            a->bias = d.has_bias ? bias.data() : nullptr;
            a->dst = dst.data();
        }
#if CONVCHECK_ABI_MINOR >= 2
        // the workspace and the backward outputs are the runner's pointers: NULL here (none given)
        if (args.declared >= CONVCHECK_STRUCT_SIZE(convcheck_conv_args, diff_bias)) {
            a->workspace = nullptr;
            a->workspace_size = 0;
            a->diff_src = a->diff_weights = a->diff_bias = nullptr;
        }
#endif
        char implementation[16];
        if (args.declared >= CONVCHECK_STRUCT_SIZE(convcheck_conv_args, implementation_capacity)) {
            a->implementation = implementation;
            a->implementation_capacity = sizeof(implementation);
        }
        if (args.declared < CONVCHECK_STRUCT_SIZE(convcheck_conv_args, dst)) {
            // a short args struct must be refused, not read past its end
            e = api().conv_execute(plugin, desc.get(), a);
            if (e == nullptr) property_failed("abi", "conv_execute accepted conv_args shorter than ABI 1.0's");
            check_error(e, "conv_execute");
        } else {
            check_error(api().conv_execute(plugin, desc.get(), a), "conv_execute");
        }
        if (!args.tail_untouched(args.declared)) property_failed("abi", "conv_execute wrote into conv_args");
    }

    // cc_query with a random CC descriptor
    if (api().cc_query != nullptr) {
        RandomStruct<convcheck_cc_desc> cc(in, sizes_vary);
        convcheck_support cc_support{};
        cc_support.struct_size = sizeof(cc_support);
        e = api().cc_query(plugin, cc.get(), &cc_support);
        check_error(e, "cc_query");
        try {
            convcheck::validate(convcheck::runner::from_abi(*cc.get()));
        } catch (const convcheck::ConvError&) {
        }
    }
    api().destroy(plugin);
    return 0;
}
