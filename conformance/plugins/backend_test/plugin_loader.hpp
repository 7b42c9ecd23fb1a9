// Loads a backend plugin (.so) through the C ABI and owns its instance: the test's view of a
// plugin, exactly what a vendor's library exposes and nothing more.
#pragma once

#include <dlfcn.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "convcheck/plugin.h"

namespace convcheck::backend_test {

class LoadedPlugin {
public:
    explicit LoadedPlugin(const std::string& path, int num_threads) {
        handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle_ == nullptr) throw std::runtime_error("dlopen " + path + ": " + dlerror());
        auto get_api = reinterpret_cast<convcheck_get_api_fn>(dlsym(handle_, "convcheck_get_api"));
        if (get_api == nullptr) throw std::runtime_error(path + " exports no convcheck_get_api");
        api_ = get_api();
        if (api_ == nullptr || api_->abi_major != CONVCHECK_ABI_MAJOR)
            throw std::runtime_error(path + ": no table or ABI major other than " + std::to_string(CONVCHECK_ABI_MAJOR));
        convcheck_create_args args{};
        args.struct_size = CONVCHECK_STRUCT_SIZE(convcheck_create_args, num_threads);  // ABI 1.0's fields
        args.num_threads = num_threads;
        check(api_->create(&args, &instance_), "create");
        info_.struct_size = sizeof(info_);
        check(api_->describe(instance_, &info_), "describe");
    }
    ~LoadedPlugin() {
        if (instance_ != nullptr) api_->destroy(instance_);
        // The library stays loaded: backends start threads (OpenMP, pthreadpool) that outlive
        // their last call, and unloading code under them is not what a runner does mid-process.
    }
    LoadedPlugin(const LoadedPlugin&) = delete;
    LoadedPlugin& operator=(const LoadedPlugin&) = delete;

    const convcheck_api& api() const { return *api_; }
    convcheck_plugin* instance() const { return instance_; }
    const convcheck_plugin_info& info() const { return info_; }
    // ABI 1.2: the four plan entries, when the table's struct_size covers them and they are set.
    bool has_plan() const {
        return api_->struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_api, conv_plan_destroy) &&
               api_->conv_prepare != nullptr;
    }

    // Turns an error value into a message (and frees it); "" for success.
    std::string take_error(convcheck_error* error) const {
        if (error == nullptr) return "";
        std::string message = api_->error_message(error);
        api_->error_destroy(error);
        return message.empty() ? "(error with an empty message)" : message;
    }
    void check(convcheck_error* error, const char* what) const {
        const std::string message = take_error(error);
        if (!message.empty()) throw std::runtime_error(std::string(what) + ": " + message);
    }

private:
    void* handle_ = nullptr;
    const convcheck_api* api_ = nullptr;
    convcheck_plugin* instance_ = nullptr;
    convcheck_plugin_info info_{};
};

}  // namespace convcheck::backend_test
