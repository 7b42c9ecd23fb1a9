// The mutants plugin's ABI glue (see mutants.hpp): create reads `mutant=<name>` (a name of
// mutants.def), execute runs mutants_conv.cpp or mutants_cc.cpp with that mutant.
#include <cstdio>
#include <string>

#include "../common/plugin_support.hpp"
#include "mutants_impl.hpp"

namespace {

using namespace convcheck_plugin_support;
using convcheck::mutants::kMutants;
using convcheck::mutants::Mutant;

struct Instance {
    Mutant mutant = Mutant::none;
    int threads = 0;  // create's num_threads (0: the default)
};

Mutant mutant_of(convcheck_plugin* plugin) { return reinterpret_cast<Instance*>(plugin)->mutant; }
std::string implementation_name(Mutant m) { return "mutant_" + std::string(kMutants[static_cast<int>(m)].name); }

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return guarded("create", [&]() -> convcheck_error* {
        auto* instance = new Instance{};
        instance->threads = args->num_threads;
        std::string options = CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options ? args->options : "";
        if (!options.empty()) {
            bool known = false;
            for (std::size_t i = 0; i < std::size(kMutants); ++i)
                if (options == "mutant=" + std::string(kMutants[i].name)) {
                    instance->mutant = static_cast<Mutant>(i);
                    known = true;
                }
            if (!known) {
                delete instance;
                return make_error("mutants: unknown option '" + options + "' (want mutant=<name>, see mutants.def)");
            }
        }
        *out = reinterpret_cast<convcheck_plugin*>(instance);
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "mutants";
    mine.version = "0.1.0";
    mine.operations = CONVCHECK_OP_CONV | CONVCHECK_OP_CC;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16);
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO);
    mine.accumulation_dtype = CONVCHECK_F32;
    return fill_info(info, mine);
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    return guarded("conv_query", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, nullptr)) return e;
        if (desc->dtype < 0 || desc->dtype > 2) return unsupported(out, std::string("dtype ") + dtype_name(desc->dtype));
        return supported(out);
    });
}

convcheck_error* conv_execute(convcheck_plugin* plugin, const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    return guarded("conv_execute", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, args)) return e;
        convcheck::mutants::compute_conv(*desc, *args, mutant_of(plugin), reinterpret_cast<Instance*>(plugin)->threads);
        write_implementation(args, implementation_name(mutant_of(plugin)));
        return nullptr;
    });
}

convcheck_error* cc_query(convcheck_plugin*, const convcheck_cc_desc* desc, convcheck_support* out) {
    return guarded("cc_query", [&]() -> convcheck_error* {
        if (desc == nullptr || desc->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_cc_desc, dtype))
            return make_error("cc_desc: NULL or smaller than ABI 1.0's convcheck_cc_desc");
        if (desc->dtype != CONVCHECK_F32) return unsupported(out, std::string("CC dtype ") + dtype_name(desc->dtype));
        return supported(out);
    });
}

convcheck_error* cc_execute(convcheck_plugin* plugin, const convcheck_cc_desc* desc, const convcheck_cc_args* args) {
    return guarded("cc_execute", [&]() -> convcheck_error* {
        if (desc == nullptr || desc->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_cc_desc, dtype) || args == nullptr ||
            args->src == nullptr || args->dst == nullptr)
            return make_error("cc_execute: NULL descriptor or buffers");
        convcheck::mutants::compute_cc(*desc, *args, mutant_of(plugin));
        if (CONVCHECK_HAS_FIELD(args, convcheck_cc_args, implementation_capacity) && args->implementation &&
            args->implementation_capacity > 0)
            std::snprintf(args->implementation, args->implementation_capacity, "%s",
                          implementation_name(mutant_of(plugin)).c_str());
        return nullptr;
    });
}

const convcheck_api api = [] {
    convcheck_api a{};
    a.struct_size = sizeof(a);
    a.abi_major = CONVCHECK_ABI_MAJOR;
    a.abi_minor = CONVCHECK_ABI_MINOR;
    a.create = create;
    a.destroy = destroy;
    a.describe = describe;
    a.conv_query = conv_query;
    a.conv_execute = conv_execute;
    a.cc_query = cc_query;
    a.cc_execute = cc_execute;
    a.error_message = error_message;
    a.error_destroy = error_destroy;
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
