#include "plugin_instance.hpp"

namespace convcheck::runner {

PluginInstance::PluginInstance(const std::string& path, const convcheck_create_args& args)
    : plugin_(Plugin::load(path)) {
    check(api().create(&args, &instance_), "create");
    info_.struct_size = sizeof(info_);
    info_.accumulation_dtype = CONVCHECK_F32;  // the documented default for a plugin that knows fewer fields
    info_.prop_kinds = CONVCHECK_BIT(CONVCHECK_FORWARD);  // ABI 1.2 default (0 reads as it too)
    if (std::string why = take_error(api().describe(instance_, &info_)); !why.empty()) {
        api().destroy(instance_);
        instance_ = nullptr;
        throw PluginError("describe: " + why);
    }
}

PluginInstance::~PluginInstance() {
    if (instance_ != nullptr) api().destroy(instance_);
}

std::string PluginInstance::take_error(convcheck_error* error) const {
    if (error == nullptr) return "";
    std::string message = api().error_message(error);
    api().error_destroy(error);
    return message.empty() ? "(error with an empty message)" : message;
}

void PluginInstance::check(convcheck_error* error, const char* call) const {
    const std::string message = take_error(error);
    if (!message.empty()) throw PluginError(std::string(call) + ": " + message);
}

}  // namespace convcheck::runner
