// Running formats/onnx_conv_nodes.py (see suite_onnx.hpp): a Python script because
// reading ONNX needs protobuf and ONNX's shape inference, which Debian ships as python3-onnx only
// (libonnx1 has no headers and there is no protoc): the script is the one clean way to get the
// shapes exactly as ONNX infers them. Its stdout and stderr go to temporary files (no pipe to
// deadlock on), and its exit status decides: 0 is the JSON, anything else is its one-line message.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "convcheck/runner/suite_onnx.hpp"

extern char** environ;

namespace convcheck::runner {

namespace {

namespace fs = std::filesystem;

constexpr const char* kPython = "/usr/bin/python3";
constexpr const char* kScript = "onnx_conv_nodes.py";

// A temporary file removed when it goes out of scope.
struct TempFile {
    TempFile() {
        const fs::path dir = fs::temp_directory_path();
        std::string name = (dir / "convcheck-onnx-XXXXXX").string();
        fd = mkstemp(name.data());
        if (fd < 0) throw std::invalid_argument("cannot create a temporary file in " + dir.string());
        path = name;
    }
    ~TempFile() {
        close(fd);
        unlink(path.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    std::string text() const {
        std::ifstream in(path);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    int fd = -1;
    std::string path;
};

}  // namespace

std::string onnx_converter_path() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path().parent_path() / "share" / "convcheck" / kScript;
        if (fs::exists(installed, ec)) return installed.string();
    }
    const fs::path source = fs::path(CONVCHECK_SOURCE_DATA_DIR) / ".." / ".." / "formats" / kScript;
    if (*CONVCHECK_SOURCE_DATA_DIR && fs::exists(source, ec)) return source.lexically_normal().string();
    return "";
}

nlohmann::json read_onnx_conv_nodes(const std::string& model_path) {
    const std::string script = onnx_converter_path();
    if (script.empty())
        throw std::invalid_argument(model_path + ": cannot read an ONNX model: " + kScript +
                                    " is neither in <prefix>/share/convcheck nor in the source tree");
    TempFile out, err;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out.fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err.fd, STDERR_FILENO);
    std::string python = kPython;
    std::string script_arg = script;
    std::string model_arg = model_path;
    char* argv[] = {python.data(), script_arg.data(), model_arg.data(), nullptr};
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, kPython, &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0)
        throw std::invalid_argument(model_path + ": cannot run " + kPython + " to read the ONNX model: " +
                                    std::strerror(spawned));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string message = err.text();
        while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
        if (message.empty())
            message = WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                        : "killed by signal " + std::to_string(WTERMSIG(status));
        throw std::invalid_argument(message);
    }
    try {
        return nlohmann::json::parse(out.text());
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(model_path + ": " + script + " wrote no JSON: " + e.what());
    }
}

}  // namespace convcheck::runner
