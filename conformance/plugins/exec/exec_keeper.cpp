#include "exec_keeper.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "exec_lines.hpp"

namespace convcheck_exec {

namespace {

using nlohmann::json;

std::string signal_name(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// A line quoted in a message: at most 120 characters, control characters as '?'.
std::string quote_line(const std::string& text) {
    std::string q = text.substr(0, 120);
    for (char& c : q)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    return "'" + q + (text.size() > 120 ? "...'" : "'");
}

// The backend process: its pipes, what it said at the handshake, its stderr's last line.
struct Backend {
    pid_t pid = -1;
    int in = -1, out = -1, err = -1;
    std::string out_buffer, err_buffer, last_err_line;
    std::string command;  // what it runs
    std::string options;  // the instance options it was started with
    int num_threads = 0;
    json hello;
};

Backend g_backend;

void close_fd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

// Kills the backend's process group and reaps it; returns how it ended ("" when none ran).
std::string stop_backend(bool kill_it) {
    Backend& b = g_backend;
    std::string how;
    if (b.pid > 0) {
        int status = 0;
        bool ended = false;
        // a backend that closed its stdout ends at once; one that closed it and lives on gets 2 s, then is killed
        for (int i = 0; !kill_it && !ended && i < 200; ++i) {
            ended = waitpid(b.pid, &status, WNOHANG) == b.pid;
            if (!ended) usleep(10'000);
        }
        const bool killed_here = !ended;
        if (!ended) {
            kill(-b.pid, SIGKILL), kill(b.pid, SIGKILL);
            while (waitpid(b.pid, &status, 0) < 0 && errno == EINTR) {}
        }
        if (killed_here && !kill_it) how = "closed its stdout and lived on; killed";
        else if (WIFSIGNALED(status)) how = "was killed by " + signal_name(WTERMSIG(status));
        else if (WIFEXITED(status)) how = "exited with status " + std::to_string(WEXITSTATUS(status));
        kill(-b.pid, SIGKILL);  // anything it started in its group goes with it
    }
    close_fd(b.in), close_fd(b.out), close_fd(b.err);
    const std::string last = b.last_err_line;
    b = Backend{};
    if (!how.empty() && !last.empty()) how += "; its last line on stderr: " + quote_line(last);
    return how;
}

void on_term(int) {
    if (g_backend.pid > 0) kill(-g_backend.pid, SIGKILL), kill(g_backend.pid, SIGKILL);
    _exit(0);
}

// The backend's stderr goes on to the runner's, and its last line is kept for a death's reason.
void drain_stderr() {
    Backend& b = g_backend;
    if (b.err < 0) return;
    if (!read_available(b.err, b.err_buffer)) {
        if (!b.err_buffer.empty()) b.last_err_line = b.err_buffer;
        if (!b.err_buffer.empty()) std::fprintf(stderr, "%s\n", b.err_buffer.c_str());
        b.err_buffer.clear();
        close_fd(b.err);
        return;
    }
    std::string line;
    while (take_line(b.err_buffer, &line)) {
        std::fprintf(stderr, "%s\n", line.c_str());
        if (!line.empty()) b.last_err_line = line;
    }
    std::fflush(stderr);
}

bool spawn_backend(const std::string& command, std::string* why) {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        *why = std::string("cannot make the backend's pipes: ") + std::strerror(errno);
        return false;
    }
    const pid_t keeper = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        *why = std::string("cannot fork the backend: ") + std::strerror(errno);
        return false;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);  // the backend never outlives its keeper
        if (getppid() != keeper) _exit(127);
        dup2(in[0], 0), dup2(out[1], 1), dup2(err[1], 2);
        signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        const std::string line = "exec " + command;
        execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    setpgid(pid, pid);
    close(in[0]), close(out[1]), close(err[1]);
    Backend& b = g_backend;
    b.pid = pid, b.in = in[1], b.out = out[0], b.err = err[0];
    return true;
}

enum class Event { client_line, client_closed, backend_line, backend_died };

// Waits for the next thing that matters: a line from the client (the case's child), the client going away, and,
// with a backend running, a line from it or its end. The backend's stderr is forwarded meanwhile.
Event next_event(int client, std::string& client_buffer, std::string* line) {
    Backend& b = g_backend;
    while (true) {
        if (take_line(client_buffer, line)) return Event::client_line;
        if (b.pid > 0 && take_line(b.out_buffer, line)) return Event::backend_line;
        pollfd fds[3] = {{client, POLLIN, 0}, {b.out, POLLIN, 0}, {b.err, POLLIN, 0}};
        if (poll(fds, 3, -1) < 0) {
            if (errno == EINTR) continue;
            return Event::client_closed;
        }
        if (fds[2].revents) drain_stderr();
        if (fds[1].revents && !read_available(b.out, b.out_buffer)) {
            close_fd(b.out);
            return Event::backend_died;
        }
        if (fds[0].revents && !read_available(client, client_buffer)) return Event::client_closed;
    }
}

json failure(const std::string& text) { return json{{"keeper", "failure"}, {"failure", text}}; }
// The backend process ended while it had the case: a crash of the case (CONVCHECK_ERROR_CRASHED).
json crash(const std::string& text) { return json{{"keeper", "failure"}, {"failure", text}, {"crashed", true}}; }

// The backend ended or misbehaved: its end, as the reason of the request in flight. What it wrote on stderr
// before it ended is read first (for at most a second: something it started may hold the pipe open).
std::string died(const std::string& when) {
    for (int i = 0; i < 100 && g_backend.err >= 0; ++i) {
        pollfd p{g_backend.err, POLLIN, 0};
        if (poll(&p, 1, 10) > 0) drain_stderr();
    }
    const std::string how = stop_backend(false);
    return "the backend process ended " + when + " (it " + (how.empty() ? "closed its stdout" : how) +
           "); it is started anew for the next case";
}

// Checks a reply line: a JSON object with a string "type". Empty: fine; else why not.
std::string malformed(const std::string& line, json* parsed) {
    try {
        *parsed = json::parse(line);
    } catch (const std::exception&) {
        return "the backend wrote a line that is not JSON: " + quote_line(line);
    }
    if (!parsed->is_object() || !parsed->contains("type") || !(*parsed)["type"].is_string())
        return "the backend wrote a JSON line that is not an object with a \"type\": " + quote_line(line);
    return "";
}

// The handshake, with the backend just started. Empty: it speaks our version; else the failure.
std::string handshake(int client, std::string& client_buffer, bool* client_gone) {
    Backend& b = g_backend;
    json options = json::object();
    for (std::size_t start = 0; start < b.options.size();) {
        std::size_t end = b.options.find(',', start);
        if (end == std::string::npos) end = b.options.size();
        const std::string item = b.options.substr(start, end - start);
        const std::size_t eq = item.find('=');
        if (!item.empty()) options[item.substr(0, eq)] = eq == std::string::npos ? "" : item.substr(eq + 1);
        start = end + 1;
    }
    const json hello = {{"type", "hello"}, {"protocol", kProtocolVersion}, {"minor", kProtocolMinor}, {"options", options},
                        {"num_threads", b.num_threads}};
    if (!write_line(b.in, hello.dump())) return died("before the handshake");
    std::string line;
    switch (next_event(client, client_buffer, &line)) {
        case Event::backend_line: break;
        case Event::backend_died: return died("during the handshake");
        case Event::client_closed: *client_gone = true; stop_backend(true); return "the case's process went away";
        case Event::client_line: stop_backend(true); return "the bridge sent a line during the handshake";
    }
    json reply;
    if (std::string why = malformed(line, &reply); !why.empty()) {
        stop_backend(true);
        return why + " (at the handshake)";
    }
    if (reply["type"] == "error") {
        const std::string message = reply.value("message", std::string("(no message)"));
        stop_backend(true);
        return "the backend failed its handshake: " + message;
    }
    if (!reply.contains("protocol") || !reply["protocol"].is_number_integer()) {
        stop_backend(true);
        return "the backend's handshake names no protocol version (an integer \"protocol\"): " + quote_line(line);
    }
    if (reply["protocol"].get<long long>() != kProtocolVersion) {
        stop_backend(true);
        return "the backend speaks exec protocol " + std::to_string(reply["protocol"].get<long long>()) +
               "; this runner speaks protocol " + std::to_string(kProtocolVersion) + " (docs/exec-protocol.md)";
    }
    if (reply["type"] != "hello" || !reply.contains("claims") || !reply["claims"].is_object()) {
        stop_backend(true);
        return "the backend's handshake is not {\"type\": \"hello\", \"protocol\": 1, \"claims\": {...}}: " +
               quote_line(line);
    }
    b.hello = reply;
    return "";
}

// {"keeper": "start", "command": "...", "options": "...", "num_threads": N}: the backend running this command
// with these options (one started for other ones is stopped first).
json start(const json& request, int client, std::string& client_buffer, bool* client_gone) {
    const std::string command = request.value("command", std::string());
    const std::string options = request.value("options", std::string());
    const int num_threads = request.value("num_threads", 0);
    Backend& b = g_backend;
    if (b.pid > 0 && (b.command != command || b.options != options || b.num_threads != num_threads)) stop_backend(true);
    if (b.pid <= 0) {
        std::string why;
        if (!spawn_backend(command, &why)) return failure(why);
        g_backend.command = command;
        g_backend.options = options;
        g_backend.num_threads = num_threads;
        why = handshake(client, client_buffer, client_gone);
        if (!why.empty()) return failure(why);
    }
    return json{{"keeper", "ok"}, {"hello", g_backend.hello}};
}

// One case's child, until it closes its socket.
void serve(int client) {
    std::string client_buffer, line;
    while (true) {
        const Event e = next_event(client, client_buffer, &line);
        if (e == Event::client_closed) return;
        if (e == Event::backend_died) {  // between requests: noted, started anew at the next
            stop_backend(false);
            continue;
        }
        if (e == Event::backend_line) {  // unasked: the stream is out of step
            std::fprintf(stderr, "convcheck: exec backend: a line nobody asked for: %s; restarting it\n",
                         quote_line(line).c_str());
            stop_backend(true);
            continue;
        }
        json request;
        try {
            request = json::parse(line);
        } catch (const std::exception&) {
            request = json::object();
        }
        bool client_gone = false;
        if (request.value("keeper", std::string()) == "start") {
            const json reply = start(request, client, client_buffer, &client_gone);
            if (client_gone || !write_line(client, reply.dump())) return;
            continue;
        }
        // the case's shared memory: unlinked here if the case's process is killed before it can
        const std::string shm = request.contains("shm") && request["shm"].is_object()
                                    ? request["shm"].value("name", std::string()) : std::string();
        json reply;
        if (g_backend.pid <= 0) {
            reply = failure("no backend process is running (the bridge sent a request before \"start\")");
        } else if (!write_line(g_backend.in, line)) {
            reply = crash(died("before it read the request"));
        } else {
            std::string answer;
            switch (next_event(client, client_buffer, &answer)) {
                case Event::backend_line: {
                    json parsed;
                    const std::string why = malformed(answer, &parsed);
                    if (!why.empty()) {
                        stop_backend(true);
                        reply = failure(why + "; it is killed and started anew for the next case");
                    } else {
                        if (!write_line(client, answer)) return;
                        continue;
                    }
                    break;
                }
                case Event::backend_died: reply = crash(died("during the case")); break;
                case Event::client_closed:  // the runner killed the case (its time or memory limit)
                    stop_backend(true);
                    if (shm.rfind("/convcheck-exec-", 0) == 0) shm_unlink(shm.c_str());
                    return;
                case Event::client_line:
                    stop_backend(true);
                    reply = failure("the bridge sent a second request before the reply to the first");
                    break;
            }
        }
        if (!write_line(client, reply.dump())) return;
    }
}

[[noreturn]] void keeper_main(int control) {
    prctl(PR_SET_NAME, "convcheck-exec");
    signal(SIGINT, SIG_IGN);   // Ctrl-C is the runner's to handle; the keeper ends when the runner does
    signal(SIGPIPE, SIG_IGN);  // a write to a dead backend or child is an error value, not a signal
    signal(SIGTERM, on_term);
    signal(SIGALRM, SIG_IGN);
    while (true) {
        const int client = receive_descriptor(control);
        if (client < 0) break;  // the runner and every child closed the control socket
        serve(client);
        close(client);
    }
    stop_backend(true);
    _exit(0);
}

}  // namespace

int start_keeper(std::string* why) {
    int control[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, control) != 0) {
        *why = std::string("cannot make the keeper's socket: ") + std::strerror(errno);
        return -1;
    }
    std::fflush(nullptr);
    const pid_t runner = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        *why = std::string("cannot fork the keeper: ") + std::strerror(errno);
        close(control[0]), close(control[1]);
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);  // the runner died: the keeper takes its backend with it
        if (getppid() != runner) _exit(0);
        close(control[0]);
        keeper_main(control[1]);
    }
    close(control[1]);
    return control[0];
}

}  // namespace convcheck_exec
