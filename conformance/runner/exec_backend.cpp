#include "convcheck/runner/exec_backend.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "convcheck/runner/plugin_loader.hpp"

#ifndef CONVCHECK_SOURCE_PYTHON_DIR
#define CONVCHECK_SOURCE_PYTHON_DIR ""
#endif

namespace convcheck::runner {

namespace fs = std::filesystem;

namespace {

// A word for /bin/sh: in single quotes, each quote written as '\''.
std::string shell_quoted(const std::string& word) {
    std::string q = "'";
    for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// python/convcheck_backend.py of this build's source tree, or of an installation (share/convcheck/python).
std::string python_module() {
    if (const char* dir = std::getenv("CONVCHECK_PYTHON_SDK"); dir && *dir) return (fs::path(dir) / "convcheck_backend.py").string();
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path().parent_path() / "share" / "convcheck" / "python" / "convcheck_backend.py";
        if (fs::exists(installed, ec)) return installed.string();
    }
    const fs::path source = fs::path(CONVCHECK_SOURCE_PYTHON_DIR) / "convcheck_backend.py";
    if (fs::exists(source, ec)) return source.string();
    throw PluginError("--backend python: the Python backend module convcheck_backend.py is neither in this "
                      "installation's share/convcheck/python nor in the source tree (" + source.string() +
                      "); set CONVCHECK_PYTHON_SDK to its folder");
}

}  // namespace

std::string backend_argument(const std::string& spec) {
    const bool plain = spec.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=+-,@") ==
                       std::string::npos;
    return plain && !spec.empty() ? spec : shell_quoted(spec);
}

bool is_exec_backend(const std::string& spec) { return spec.rfind("exec:", 0) == 0 || spec.rfind("python:", 0) == 0; }

std::string exec_command(const std::string& spec) {
    if (spec.rfind("exec:", 0) == 0) {
        const std::string command = spec.substr(5);
        if (command.find_first_not_of(" \t") == std::string::npos)
            throw std::invalid_argument("--backend '" + spec + "': exec: needs a command (exec:COMMAND, run by /bin/sh)");
        return command;
    }
    const std::string file = spec.substr(7);
    std::error_code ec;
    if (file.empty() || !fs::is_regular_file(file, ec))
        throw std::invalid_argument("--backend '" + spec + "': python: needs a Python file that exists (python:FILE.py); '" +
                                    file + "' is not one");
    const char* python = std::getenv("CONVCHECK_PYTHON");
    return shell_quoted(python && *python ? python : "/usr/bin/python3") + " -u " + shell_quoted(python_module()) +
           " " + shell_quoted(fs::absolute(file).string());
}

std::string exec_bridge(const std::string& spec) {
    setenv("CONVCHECK_EXEC_COMMAND", exec_command(spec).c_str(), 1);
    return resolve_backend("exec");
}

}  // namespace convcheck::runner
