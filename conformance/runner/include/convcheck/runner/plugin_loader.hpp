// Loading a backend plugin: dlopen, the one entry point, the ABI version check. Nothing of the
// plugin runs in the runner's own process beyond its load-time constructors and convcheck_get_api:
// create, describe, query and execute run in child processes (isolation.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "convcheck/plugin.h"

namespace convcheck::runner {

// The plugin could not be loaded or negotiated (the CLI exits with code 3).
class PluginError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What a plugin claims about itself (convcheck_plugin_info, copied out of the plugin).
struct PluginInfo {
    std::string name, version;
    std::uint32_t operations = 0, dtypes = 0, ranks = 0, data_formats = 0, filter_formats = 0;
    std::int32_t accumulation_dtype = CONVCHECK_F32;
    std::uint32_t strided_tensors = 0;  // ABI 1.2: CONVCHECK_BIT(convcheck_tensor) taken strided
    std::int32_t abi_major = 0, abi_minor = 0;
    // ABI 1.2 claims, with their defaults: forward only, one dtype for every tensor.
    std::uint32_t prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD);
    bool mixed_dtypes = false;
    // ABI 1.5 claims of quantized convolution, with their defaults: no rule named, an s32 accumulator. Read
    // only from a plugin of 1.5 or later (quantized/check.cpp).
    std::int32_t requantization = CONVCHECK_REQUANTIZATION_UNNAMED;
    std::int32_t integer_accumulator = CONVCHECK_ACCUMULATOR_S32;
    // ABI 1.6 claims of post-ops (CONVCHECK_BIT of convcheck_post_op_kind and of the algorithms), default none;
    // read only from a plugin of 1.6 or later (abi_post_ops.cpp).
    std::uint32_t post_op_kinds = 0, eltwise_algorithms = 0, binary_algorithms = 0;
    // Whether zero points outside their tensors' types (zpt=s32) may be sent: an offline run's claim
    // "zero_points_outside_types" (default false); a plugin says so at conv_query, so true for a loaded one.
    bool zero_points_outside_types = true;
};

// Before a plugin is loaded for checking (`run`, convcheck_backend_test): idle OpenMP workers sleep.
// A plugin's OpenMP pool lives only in the child forked for one call, and libgomp's default spins each
// idle worker some 300,000 rounds after every parallel region, CPU taken from the case's own threads
// and from the runner (40 % of the CPU time of `run --backend libtorch --suite smoke --threads 2`).
// The OpenMP runtime reads OMP_WAIT_POLICY once, when the plugin's dlopen loads it; this sets it to
// passive unless the user set it. Results do not depend on it; `bench` does not call it, since there a
// waking worker's latency is part of the time measured.
void let_idle_openmp_threads_sleep();

class Plugin {
public:
    // Throws PluginError: no such file, not a shared library, no convcheck_get_api, a NULL table,
    // a table too small for ABI 1.0, another major version, or a required entry missing.
    static Plugin load(const std::string& path);

    Plugin(Plugin&& other) noexcept;
    Plugin& operator=(Plugin&& other) noexcept;
    Plugin(const Plugin&) = delete;
    Plugin& operator=(const Plugin&) = delete;
    ~Plugin();

    // The plugin's table as this runner's ABI version sees it: the entries the plugin's struct_size
    // covers, and NULL (the documented default) for every entry it does not know.
    const convcheck_api& api() const { return *api_; }
    const std::string& path() const { return path_; }
    // ABI 1.2: prepare once, execute many (all four plan entries set).
    bool has_conv_plan() const { return api_->conv_prepare != nullptr; }
    // The convcheck_error_code of an error; CONVCHECK_ERROR_UNKNOWN for a plugin without error_code.
    std::int32_t error_code(const convcheck_error* error) const;

private:
    Plugin() = default;
    void* handle_ = nullptr;
    std::unique_ptr<convcheck_api> api_;  // a copy: see api()
    std::string path_;
};

// "unknown", "invalid_argument", "unimplemented", "out_of_memory", "internal" (the case record's
// "error_code"); "unknown" for a code this runner does not know.
const char* error_code_name(std::int32_t code);

// A backend given by name ("optimized", "onednn") or by path. A name without a '/' and not ending
// in ".so" is looked up as libconvcheck_plugin_<name>.so in $CONVCHECK_PLUGIN_PATH (':'-separated),
// next to the convcheck executable (../plugins, plugins/, ../lib/convcheck/plugins) and in the build
// tree's plugin folder. Returns the path to load (the argument itself when it is a path).
std::string resolve_backend(const std::string& name_or_path);

}  // namespace convcheck::runner
