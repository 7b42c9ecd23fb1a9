#include "convcheck/runner/plugin_loader.hpp"

#include "convcheck/runner/exec_backend.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#ifndef CONVCHECK_BUILD_PLUGIN_DIR
#define CONVCHECK_BUILD_PLUGIN_DIR ""
#endif

namespace convcheck::runner {

namespace fs = std::filesystem;

void let_idle_openmp_threads_sleep() { setenv("OMP_WAIT_POLICY", "passive", 0); }

Plugin Plugin::load(const std::string& path) {
    if (!fs::exists(path)) throw PluginError("backend plugin '" + path + "' does not exist");
    Plugin p;
    p.path_ = path;
    // RTLD_LOCAL: each plugin keeps its own symbols; RTLD_NOW: an unresolved symbol is a load error now.
    p.handle_ = dlopen(fs::absolute(path).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (p.handle_ == nullptr) throw PluginError("cannot load backend plugin '" + path + "': " + dlerror());
    auto get_api = reinterpret_cast<convcheck_get_api_fn>(dlsym(p.handle_, "convcheck_get_api"));
    if (get_api == nullptr)
        throw PluginError("backend plugin '" + path + "' does not export the entry point convcheck_get_api");
    const convcheck_api* table = get_api();
    if (table == nullptr) throw PluginError("backend plugin '" + path + "': convcheck_get_api returned NULL");
    if (table->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_api, error_destroy))
        throw PluginError("backend plugin '" + path + "': its function table has struct_size " +
                          std::to_string(table->struct_size) + ", smaller than ABI 1.0's " +
                          std::to_string(CONVCHECK_STRUCT_SIZE(convcheck_api, error_destroy)));
    // The entries the plugin's struct_size covers; every later one stays NULL, its documented
    // default. Nothing past the plugin's table is ever read (an older plugin's table is shorter).
    p.api_ = std::make_unique<convcheck_api>();
    std::memcpy(p.api_.get(), table, std::min(table->struct_size, sizeof(convcheck_api)));
    p.api_->struct_size = sizeof(convcheck_api);
    const auto& a = *p.api_;
    if (a.abi_major != CONVCHECK_ABI_MAJOR)
        throw PluginError("backend plugin '" + path + "' was built for ABI " + std::to_string(a.abi_major) + "." +
                          std::to_string(a.abi_minor) + "; this runner speaks ABI " +
                          std::to_string(CONVCHECK_ABI_MAJOR) + "." + std::to_string(CONVCHECK_ABI_MINOR) +
                          " (the major versions must be equal)");
    if (!a.create || !a.destroy || !a.describe || !a.error_message || !a.error_destroy)
        throw PluginError("backend plugin '" + path +
                          "': its function table lacks create, destroy, describe, error_message or error_destroy");
    if ((a.conv_query == nullptr) != (a.conv_execute == nullptr) || (a.cc_query == nullptr) != (a.cc_execute == nullptr) ||
        (a.conv_transposed_query == nullptr) != (a.conv_transposed_execute == nullptr) ||
        (a.cc_backward_query == nullptr) != (a.cc_backward_execute == nullptr))
        throw PluginError("backend plugin '" + path + "': a query entry without its execute entry (or the reverse)");
    const int plan_entries = (a.conv_prepare != nullptr) + (a.conv_plan_describe != nullptr) +
                             (a.conv_plan_execute != nullptr) + (a.conv_plan_destroy != nullptr);
    if (plan_entries != 0 && plan_entries != 4)
        throw PluginError("backend plugin '" + path + "': it sets " + std::to_string(plan_entries) +
                          " of the four plan entries (conv_prepare, conv_plan_describe, conv_plan_execute, "
                          "conv_plan_destroy): ABI 1.2 wants all four or none");
    if (plan_entries == 4 && a.conv_query == nullptr)
        throw PluginError("backend plugin '" + path + "': plan entries without conv_query and conv_execute");
    return p;
}

Plugin::Plugin(Plugin&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), api_(std::move(other.api_)), path_(std::move(other.path_)) {}

Plugin& Plugin::operator=(Plugin&& other) noexcept {
    if (this != &other) {
        if (handle_) dlclose(handle_);
        handle_ = std::exchange(other.handle_, nullptr);
        api_ = std::move(other.api_);
        path_ = std::move(other.path_);
    }
    return *this;
}

// Plugins stay mapped until exit: a plugin's static objects or threads may outlive any instance,
// and unloading code that still runs is worse than a mapping kept a little longer.
Plugin::~Plugin() = default;

std::int32_t Plugin::error_code(const convcheck_error* error) const {
    return api_->error_code != nullptr ? api_->error_code(error) : CONVCHECK_ERROR_UNKNOWN;
}

const char* error_code_name(std::int32_t code) {
    switch (code) {
        case CONVCHECK_ERROR_UNKNOWN: return "unknown";
        case CONVCHECK_ERROR_INVALID_ARGUMENT: return "invalid_argument";
        case CONVCHECK_ERROR_UNIMPLEMENTED: return "unimplemented";
        case CONVCHECK_ERROR_OUT_OF_MEMORY: return "out_of_memory";
        case CONVCHECK_ERROR_INTERNAL: return "internal";
        case CONVCHECK_ERROR_CRASHED: return "crashed";
    }
    return "unknown";
}

namespace {
fs::path executable_dir() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path{} : self.parent_path();
}
}  // namespace

std::string resolve_backend(const std::string& name) {
    if (is_exec_backend(name)) return exec_bridge(name);  // exec:COMMAND, python:FILE.py (exec_backend.hpp)
    const bool is_name = name.find('/') == std::string::npos && !name.ends_with(".so");
    if (!is_name) return name;
    const std::string file = "libconvcheck_plugin_" + name + ".so";
    std::vector<fs::path> dirs;
    if (const char* env = std::getenv("CONVCHECK_PLUGIN_PATH")) {
        std::string list = env;
        for (std::size_t start = 0; start <= list.size();) {
            const std::size_t end = std::min(list.find(':', start), list.size());
            if (end > start) dirs.emplace_back(list.substr(start, end - start));
            start = end + 1;
        }
    }
    const fs::path exe = executable_dir();
    if (!exe.empty()) {
        dirs.push_back(exe / "plugins");
        dirs.push_back(exe.parent_path() / "plugins");
        dirs.push_back(exe.parent_path() / "lib" / "convcheck" / "plugins");
    }
    if (*CONVCHECK_BUILD_PLUGIN_DIR) dirs.emplace_back(CONVCHECK_BUILD_PLUGIN_DIR);
    for (const auto& dir : dirs) {
        std::error_code ec;
        if (fs::exists(dir / file, ec)) return (dir / file).string();
    }
    std::string where;
    for (const auto& dir : dirs) where += (where.empty() ? "" : ", ") + dir.string();
    throw PluginError("no backend plugin named '" + name + "': " + file + " is not in " + where +
                      " (give a path, or set CONVCHECK_PLUGIN_PATH)");
}

}  // namespace convcheck::runner
