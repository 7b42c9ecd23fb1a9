// A plugin instance created in this process, for the tools that call a plugin directly: the
// golden-vector checker (`convcheck_vectors check`) and the ABI-level backend test. Loading is the
// runner's one loader (Plugin::load, plugin_loader.hpp); the runner itself never creates an
// instance in its own process (isolation.hpp), and neither should anything that forks afterwards.
#pragma once

#include <string>

#include "plugin_loader.hpp"

namespace convcheck::runner {

class PluginInstance {
public:
    // Loads the plugin, creates an instance with `args` and describes it (info().struct_size is
    // this header's). Throws PluginError on any failure, naming the call and the plugin's message.
    PluginInstance(const std::string& path, const convcheck_create_args& args);
    ~PluginInstance();
    PluginInstance(const PluginInstance&) = delete;
    PluginInstance& operator=(const PluginInstance&) = delete;

    const Plugin& plugin() const { return plugin_; }
    const convcheck_api& api() const { return plugin_.api(); }
    convcheck_plugin* instance() const { return instance_; }
    const convcheck_plugin_info& info() const { return info_; }

    // An error value as its message (freed through the plugin); "" for success.
    std::string take_error(convcheck_error* error) const;
    // Throws PluginError "<call>: <message>" when `error` is an error value (and frees it).
    void check(convcheck_error* error, const char* call) const;

private:
    Plugin plugin_;
    convcheck_plugin* instance_ = nullptr;
    convcheck_plugin_info info_{};
};

}  // namespace convcheck::runner
