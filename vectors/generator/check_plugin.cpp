#include "check_plugin.hpp"

#include <cstring>
#include <stdexcept>

#include "abi_descriptor.hpp"
#include "accuracy.hpp"
#include "case_data.hpp"
#include "cc_descriptor.hpp"
#include "contract.hpp"
#include "convcheck/plugin.h"
#include "plugin_instance.hpp"
#include "convcheck/reference/cc/weight_error.hpp"
#include "convcheck/reference/convolution.hpp"

namespace convcheck::vectors {

namespace {

using LoadedPlugin = runner::PluginInstance;  // the runner's loader, the instance in this process

// ABI 1.1 create arguments: two threads and the user's options.
convcheck_create_args create_args(const std::string& options) {
    convcheck_create_args args{};
    args.struct_size = sizeof(args);
    args.num_threads = 2;
    args.options = options.empty() ? nullptr : options.c_str();
    return args;
}

std::vector<double> f64(const npy::Array& a) {
    std::vector<double> v(static_cast<std::size_t>(a.elements()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = a.get(static_cast<std::int64_t>(i));
    return v;
}

std::vector<std::int64_t> i64(const npy::Array& a) {
    std::vector<std::int64_t> v(static_cast<std::size_t>(a.elements()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(a.get(static_cast<std::int64_t>(i)));
    return v;
}

// The runner's contract (runner/contract.hpp), with the declarations of the runner's default data
// file (backends.json) where there is one.
accuracy::Contract contract_for(DataType output, const convcheck_plugin_info& info) {
    static const runner::Expectations declarations = [] {
        const std::string file = runner::default_expectations_path();
        return file.empty() ? runner::Expectations{} : runner::Expectations::load(file);
    }();
    return runner::contract_for(&declarations, info.name ? info.name : "", info.accumulation_dtype, output);
}

std::string describe(const accuracy::Comparison& cmp) {
    return std::to_string(cmp.mismatches) + " of " + std::to_string(cmp.elements) + " outputs wrong; worst at NCX " +
           std::to_string(cmp.worst_index) + ": got " + std::to_string(cmp.worst_got) + ", want " +
           std::to_string(cmp.worst_want) + " (bound " + std::to_string(cmp.worst_bound) + ")";
}

// One discrete case: "" when it passed, otherwise why not; `unsupported` set when the plugin declines.
std::string run_conv_case(const LoadedPlugin& p, const VectorSet& set, const VectorCase& c, std::string* unsupported) {
    if (!p.api().conv_query) {
        *unsupported = "the plugin has no discrete convolution";
        return "";
    }
    const CaseData data = load_case_data(set, c);
    const ConvDescriptor& d = data.descriptor;
    const convcheck_conv_desc desc = runner::to_abi(d);
    convcheck_support support{};
    support.struct_size = sizeof(support);
    p.check(p.api().conv_query(p.instance(), &desc, &support), "conv_query");
    if (!support.supported) {
        *unsupported = support.reason;
        return "";
    }
    std::vector<std::byte> dst(data.dst.data.size());
    convcheck_conv_args args{};
    args.struct_size = sizeof(args);
    args.src = data.src.data.data();
    args.weights = data.weights.data.data();
    args.bias = d.has_bias ? data.bias.data.data() : nullptr;
    args.dst = dst.data();
    p.check(p.api().conv_execute(p.instance(), &desc, &args), "conv_execute");
    if (c.comparison == "bitwise") {
        if (std::memcmp(dst.data(), data.dst.data.data(), dst.size()) == 0) return "";
        const auto cmp = accuracy::compare_exact(f64(data.dst_f64), reference::dst_to_ncx(d, dst.data()));
        return "bitwise: " + describe(cmp);
    }
    const auto cmp = accuracy::compare_bound(contract_for(d.dtype, p.info()), f64(data.dst_f64), f64(data.magnitude),
                                             i64(data.terms), reference::dst_to_ncx(d, dst.data()));
    return cmp.passed() ? "" : "bound: " + describe(cmp);
}

std::string run_cc_case(const LoadedPlugin& p, const VectorSet& set, const VectorCase& c, std::string* unsupported) {
    if (!p.api().cc_query) {
        *unsupported = "the plugin has no continuous convolution";
        return "";
    }
    const CcDescriptor d = parse_cc_descriptor(c.descriptor);
    const convcheck_cc_desc desc = runner::to_abi(d);
    convcheck_support support{};
    support.struct_size = sizeof(support);
    p.check(p.api().cc_query(p.instance(), &desc, &support), "cc_query");
    if (!support.supported) {
        *unsupported = support.reason;
        return "";
    }
    auto array = [&](const char* role) {
        const ArrayEntry* e = c.array(role);
        return e ? load_array(set, c, *e) : npy::Array{};
    };
    const npy::Array src = array("src"), theta = array("theta"), bias = array("bias"), dst_f64 = array("dst_f64"),
                     magnitude = array("magnitude"), terms = array("terms");
    std::vector<float> dst(static_cast<std::size_t>(d.dst_elements()));
    convcheck_cc_args args{};
    args.struct_size = sizeof(args);
    args.src = src.data.data();
    args.theta = c.array("theta") ? reinterpret_cast<const float*>(theta.data.data()) : nullptr;
    args.bias = d.has_bias ? bias.data.data() : nullptr;
    args.dst = dst.data();
    p.check(p.api().cc_execute(p.instance(), &desc, &args), "cc_execute");
    // The CC contract: the plugin computes K_theta itself, so its evaluation error (at its declared
    // accumulation precision) joins the bound (docs/cc.md, "CC accuracy contract").
    const accuracy::Contract contract = contract_for(DataType::f32, p.info());
    const std::vector<double> weight_error = reference::cc::cc_weight_error(
        d, reinterpret_cast<const float*>(src.data.data()), args.theta, accuracy::accumulation_roundoff(contract));
    const auto cmp = accuracy::compare_bound_cc(contract, f64(dst_f64), f64(magnitude), i64(terms), weight_error,
                                                std::vector<double>(dst.begin(), dst.end()));
    return cmp.passed() ? "" : "bound: " + describe(cmp);
}

}  // namespace

PluginCheck check_plugin(const std::string& plugin_path, const std::string& options,
                         const std::vector<std::filesystem::path>& set_dirs, std::FILE* out) {
    const LoadedPlugin plugin(plugin_path, create_args(options));
    PluginCheck total;
    for (const auto& dir : set_dirs) {
        const VectorSet set = load_vector_set(dir);
        PluginCheck s;
        for (const auto& c : set.cases) {
            if (c.expect_error_attribute) {
                ++s.not_applicable;  // a descriptor that must be refused: nothing to run
                continue;
            }
            std::string unsupported, failure;
            try {
                failure = c.descriptor.rfind("cc:", 0) == 0 ? run_cc_case(plugin, set, c, &unsupported)
                                                             : run_conv_case(plugin, set, c, &unsupported);
            } catch (const std::exception& e) {
                failure = e.what();
            }
            if (!failure.empty()) {
                ++s.failed;
                std::fprintf(out, "FAIL vector %s/%s: %s seed=%llu: %s\n", set.name.c_str(), c.name.c_str(),
                             c.descriptor.c_str(), static_cast<unsigned long long>(c.seed), failure.c_str());
            } else if (!unsupported.empty()) {
                ++s.unsupported;
            } else {
                ++s.passed;
            }
        }
        std::fprintf(out, "%s: %d passed, %d failed, %d unsupported by the plugin, %d not applicable (expect_error)\n",
                     set.name.c_str(), s.passed, s.failed, s.unsupported, s.not_applicable);
        total.passed += s.passed, total.failed += s.failed, total.unsupported += s.unsupported;
        total.not_applicable += s.not_applicable;
    }
    return total;
}

}  // namespace convcheck::vectors
