// The exec bridge (libconvcheck_plugin_exec.so): a plugin that speaks the C ABI to the runner and the exec protocol
// (docs/exec-protocol.md) to a backend in another process, `convcheck run --backend exec:COMMAND` or
// `--backend python:FILE.py`. The runner loads it as any plugin, so its isolation, limits, verdicts and reports
// apply unchanged: each case runs in the runner's child, which reaches the backend process through the keeper
// (exec_keeper.hpp), started once at load. The command comes in CONVCHECK_EXEC_COMMAND (the runner sets it from the
// --backend spec: runner/exec_backend.cpp).
//
// Per case: create (the keeper starts the backend once, or finds it running, and hands back its handshake),
// describe (the handshake's claims), conv_query (a "query" message: the backend accepts or declines, with its
// reason) and conv_execute (the inputs copied into a shared-memory object, a "conv" message naming it, the reply
// checked: its outputs' names, dtypes and shapes, then the outputs copied back). The bridge has no plan entries:
// a backend computes each case once.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "convcheck/plugin_quantized.hpp"
#include "convcheck/plugin_support.hpp"
#include "exec_keeper.hpp"
#include "exec_lines.hpp"
#include "convcheck/abi/exec_messages.hpp"

namespace {

using namespace convcheck_plugin_support;
using namespace convcheck_exec;
using nlohmann::json;

int g_control = -1;           // the keeper's control socket (the runner's process and its children)
std::string g_keeper_error;   // why there is none

struct Instance {
    int socket = -1;
    std::string buffer;
    json claims;
    std::string name, version;
    ~Instance() {
        if (socket >= 0) close(socket);
    }

    // One request line and its reply. A failure the keeper reports (the backend died, wrote garbage, ...) and a
    // broken connection are errors of the case, thrown as PluginError(INTERNAL).
    json request(const json& message) {
        if (!write_line(socket, message.dump()))
            throw PluginError(CONVCHECK_ERROR_INTERNAL, "the keeper process is gone");
        std::string line;
        if (read_line(socket, buffer, &line) != ReadResult::line)
            throw PluginError(CONVCHECK_ERROR_INTERNAL, "the keeper process is gone");
        json reply = json::parse(line);  // the keeper checked it
        if (reply.value("keeper", std::string()) == "failure")
            throw PluginError(reply.value("crashed", false) ? CONVCHECK_ERROR_CRASHED : CONVCHECK_ERROR_INTERNAL,
                              reply.value("failure", std::string()));
        return reply;
    }
};

Instance& instance_of(convcheck_plugin* p) { return *reinterpret_cast<Instance*>(p); }

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return guarded("exec backend", [&]() -> convcheck_error* {
        if (out == nullptr) return invalid_argument("create: out is NULL");
        const char* command = std::getenv("CONVCHECK_EXEC_COMMAND");
        if (command == nullptr || *command == '\0')
            return make_error("the exec bridge runs the backend process that --backend exec:COMMAND or "
                              "python:FILE.py names (CONVCHECK_EXEC_COMMAND is not set)");
        if (g_control < 0)
            return make_error(g_keeper_error.empty() ? "the exec bridge was loaded without a command "
                                                       "(CONVCHECK_EXEC_COMMAND was not set when it was loaded)"
                                                     : g_keeper_error);
        // the options go to the backend process, which refuses a key it does not know
        const int num_threads = CONVCHECK_HAS_FIELD(args, convcheck_create_args, num_threads) ? args->num_threads : 0;
        const std::string options =
            CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options ? args->options : "";
        auto instance = std::make_unique<Instance>();
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
            return make_error(std::string("exec backend: cannot make a socket: ") + std::strerror(errno));
        instance->socket = pair[0];
        const bool sent = send_descriptor(g_control, pair[1]);
        close(pair[1]);
        if (!sent) return make_error("exec backend: the keeper process is gone");
        const json hello = instance->request({{"keeper", "start"}, {"command", command}, {"options", options}, {"num_threads", num_threads}});
        instance->claims = hello["hello"]["claims"];
        *out = reinterpret_cast<convcheck_plugin*>(instance.release());
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete &instance_of(plugin); }

convcheck_error* describe(convcheck_plugin* plugin, convcheck_plugin_info* info) {
    return guarded("exec backend", [&]() -> convcheck_error* {
        Instance& in = instance_of(plugin);
        convcheck_plugin_info mine{};
        mine.struct_size = sizeof(mine);
        read_claims(in.claims, &mine, &in.name, &in.version);  // a bad claim: invalid_argument, naming it
        mine.name = in.name.c_str();
        mine.version = in.version.c_str();
        return fill_info(info, mine);
    });
}

// What the protocol (1.1) cannot carry, declined before the backend is asked: an extension other than one
// quantization extension (post-ops, scales), integer tensors without it, float tensors other than these.
std::string beyond_protocol(const convcheck_conv_desc& d) {
    const bool quantized = quantization_of(d) != nullptr;
    if (d.next != nullptr)
        for (const convcheck_extension* x = d.next; x != nullptr; x = x->next)
            if (x->tag != CONVCHECK_EXTENSION_QUANTIZATION)
                return "the exec protocol (version 1.1) carries the quantization extension only, not the descriptor "
                       "extension of tag " + std::to_string(x->tag) + (x->tag == CONVCHECK_EXTENSION_POST_OPS ? " (post-ops)" : "");
    if (const convcheck_quantization* q = quantization_of(d);
        q != nullptr && q->header.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_quantization, dst_scales) &&
        q->dst_scale_count > 1)
        return "the exec protocol (version 1.1) carries one dst scale (dst_scale), not one per output channel (ABI 1.9)";
    for (const std::int32_t t : {d.src_dtype, d.weights_dtype, d.bias_dtype, d.dst_dtype}) {
        const bool real = t == CONVCHECK_F32 || t == CONVCHECK_F16 || t == CONVCHECK_BF16 || t == CONVCHECK_F64;
        const bool integer = t == CONVCHECK_U8 || t == CONVCHECK_S8 || t == CONVCHECK_S32;
        if (!real && !(integer && quantized))
            return "the exec protocol (version 1.1) carries f32, f16, bf16 and f64 tensors, and u8, s8 and s32 ones "
                   "of a quantized case, not " + convcheck_exec::dtype_name(t);
    }
    return "";
}

std::string reply_type(const json& reply) { return reply.value("type", std::string()); }

convcheck_error* conv_query(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out) {
    return guarded("exec backend", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, nullptr)) return e;
        if (const std::string why = beyond_protocol(*desc); !why.empty()) return unsupported(out, why);
        const convcheck_quantization* q = quantization_of(*desc);
        if (q != nullptr && zero_points_outside_types(*desc, *q) &&
            !claims_zero_points_outside_types(instance_of(plugin).claims))
            return unsupported(out, "a zero point outside its tensor's type (oneDNN's s32 zero points): the backend "
                                    "does not claim \"zero_points_outside_types\" (docs/exec-protocol.md)");
        const json reply = instance_of(plugin).request({{"type", "query"}, {"descriptor", descriptor_json(*desc)}});
        const std::string type = reply_type(reply);
        if (type == "supported") return supported(out);
        if (type == "declined") return unsupported(out, reply.value("reason", std::string("(no reason given)")));
        if (type == "error") return make_error("exec backend: " + reply.value("message", std::string("(no message)")));
        return make_error("exec backend: its reply to \"query\" is neither supported, declined nor error: " +
                          reply.dump().substr(0, 200));
    });
}

// A POSIX shared-memory object for one case's tensors, unlinked and unmapped when it goes.
struct SharedTensors {
    std::string name;
    void* base = MAP_FAILED;
    std::uint64_t size = 0;
    explicit SharedTensors(std::uint64_t bytes) : size(bytes == 0 ? 1 : bytes) {
        static std::atomic<int> counter{0};
        name = "/convcheck-exec-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
        const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
        if (fd < 0) throw PluginError(CONVCHECK_ERROR_INTERNAL, "shm_open " + name + ": " + std::strerror(errno));
        if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
            const int e = errno;
            close(fd), shm_unlink(name.c_str());
            throw PluginError(e == ENOSPC || e == ENOMEM ? CONVCHECK_ERROR_OUT_OF_MEMORY : CONVCHECK_ERROR_INTERNAL,
                              "cannot size the shared memory " + name + ": " + std::strerror(e));
        }
        base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (base == MAP_FAILED) {
            shm_unlink(name.c_str());
            throw PluginError(CONVCHECK_ERROR_INTERNAL, "cannot map " + name + ": " + std::strerror(errno));
        }
    }
    ~SharedTensors() {
        if (base != MAP_FAILED) munmap(base, size);
        shm_unlink(name.c_str());
    }
    char* at(std::uint64_t offset) const { return static_cast<char*>(base) + offset; }
};

// One case's tensors through shared memory: a "conv" message with the descriptor, the reply checked, the outputs
// copied back.
convcheck_error* execute_tensors(convcheck_plugin* plugin, const json& descriptor, const std::vector<Tensor>& tensors,
                                 std::uint64_t bytes, const convcheck_conv_args* args) {
    for (const Tensor& t : tensors)
        if ((t.input == nullptr && t.output == nullptr))
            return invalid_argument("conv_args: the buffer of " + t.name + " is NULL");
    SharedTensors shared(bytes);
    json inputs = json::object(), outputs = json::object();
    for (const Tensor& t : tensors) {
        // an output starts as the runner's buffer (its "never written" pattern): what the backend leaves
        // unwritten comes back as it was
        std::memcpy(shared.at(t.offset), t.input ? t.input : t.output, t.bytes);
        (t.input ? inputs : outputs)[t.name] = tensor_json(t);
    }
    const json reply = instance_of(plugin).request(
        {{"type", "conv"}, {"descriptor", descriptor},
         {"shm", {{"name", shared.name}, {"path", "/dev/shm" + shared.name}, {"bytes", shared.size}}},
         {"inputs", inputs}, {"outputs", outputs}});
    const std::string type = reply_type(reply);
    if (type == "declined")
        return make_error("exec backend: it declined the case at conv, after its query accepted it: " +
                              reply.value("reason", std::string("(no reason given)")),
                          CONVCHECK_ERROR_UNIMPLEMENTED);
    if (type == "error") {
        const std::string code = reply.value("code", std::string());
        return make_error("exec backend: " + reply.value("message", std::string("(no message)")),
                          code == "out_of_memory" ? CONVCHECK_ERROR_OUT_OF_MEMORY : CONVCHECK_ERROR_INTERNAL);
    }
    if (type != "done")
        return make_error("exec backend: its reply to \"conv\" is neither done, declined nor error: " +
                          reply.dump().substr(0, 200));
    if (const std::string why = check_outputs(reply, tensors); !why.empty())
        return make_error("exec backend: " + why);
    for (const Tensor& t : tensors)
        if (t.output) std::memcpy(t.output, shared.at(t.offset), t.bytes);
    if (reply.contains("implementation") && reply["implementation"].is_string())
        write_implementation(args, reply["implementation"].get<std::string>());
    return nullptr;
}

convcheck_error* conv_execute(convcheck_plugin* plugin, const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    return guarded("exec backend", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, nullptr)) return e;
        if (!CONVCHECK_HAS_FIELD(args, convcheck_conv_args, dst)) return invalid_argument("conv_args: NULL or too small");
        if (const std::string why = beyond_protocol(*desc); !why.empty())
            return make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
        std::uint64_t bytes = 0;
        const std::vector<Tensor> tensors = case_tensors(*desc, args, &bytes);
        return execute_tensors(plugin, descriptor_json(*desc), tensors, bytes, args);
    });
}

// Transposed convolution (protocol 1.1): its own descriptor ("operation": "conv_transposed"), the same messages.
std::string beyond_protocol(const convcheck_conv_transposed_desc& d) {
    if (d.next != nullptr) return "the exec protocol (version 1.1) carries no extension of a transposed convolution";
    if (d.dtype != CONVCHECK_F32 && d.dtype != CONVCHECK_F16 && d.dtype != CONVCHECK_BF16 && d.dtype != CONVCHECK_F64)
        return "the exec protocol (version 1.1) carries f32, f16, bf16 and f64 transposed convolutions, not " +
               convcheck_exec::dtype_name(d.dtype);
    return "";
}

convcheck_error* conv_transposed_query(convcheck_plugin* plugin, const convcheck_conv_transposed_desc* desc,
                                       convcheck_support* out) {
    return guarded("exec backend", [&]() -> convcheck_error* {
        if (!CONVCHECK_HAS_FIELD(desc, convcheck_conv_transposed_desc, filter_format))
            return invalid_argument("conv_transposed_desc: NULL or too small");
        if (const std::string why = beyond_protocol(*desc); !why.empty()) return unsupported(out, why);
        const json reply =
            instance_of(plugin).request({{"type", "query"}, {"descriptor", transposed_descriptor_json(*desc)}});
        const std::string type = reply_type(reply);
        if (type == "supported") return supported(out);
        if (type == "declined") return unsupported(out, reply.value("reason", std::string("(no reason given)")));
        if (type == "error") return make_error("exec backend: " + reply.value("message", std::string("(no message)")));
        return make_error("exec backend: its reply to \"query\" is neither supported, declined nor error: " +
                          reply.dump().substr(0, 200));
    });
}

convcheck_error* conv_transposed_execute(convcheck_plugin* plugin, const convcheck_conv_transposed_desc* desc,
                                         const convcheck_conv_args* args) {
    return guarded("exec backend", [&]() -> convcheck_error* {
        if (!CONVCHECK_HAS_FIELD(desc, convcheck_conv_transposed_desc, filter_format))
            return invalid_argument("conv_transposed_desc: NULL or too small");
        if (!CONVCHECK_HAS_FIELD(args, convcheck_conv_args, dst)) return invalid_argument("conv_args: NULL or too small");
        if (const std::string why = beyond_protocol(*desc); !why.empty())
            return make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
        std::uint64_t bytes = 0;
        const std::vector<Tensor> tensors = transposed_tensors(*desc, args, &bytes);
        return execute_tensors(plugin, transposed_descriptor_json(*desc), tensors, bytes, args);
    });
}

const convcheck_api api = [] {
    convcheck_api a = basic_api(create, destroy, describe);
    a.conv_query = conv_query;
    a.conv_execute = conv_execute;
    a.conv_transposed_query = conv_transposed_query;
    a.conv_transposed_execute = conv_transposed_execute;
    return a;
}();

}  // namespace

// In the runner's process, when it loads the plugin for an exec backend (CONVCHECK_EXEC_COMMAND set): the keeper,
// once per process (a process that loads it for several commands, a test, shares the keeper; each child names its
// command).
extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) {
    const char* command = std::getenv("CONVCHECK_EXEC_COMMAND");
    if (g_control < 0 && g_keeper_error.empty() && command != nullptr && *command != '\0')
        g_control = start_keeper(&g_keeper_error);
    return &api;
}
