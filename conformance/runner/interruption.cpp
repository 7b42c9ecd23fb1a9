#include "convcheck/runner/interruption.hpp"

#include "convcheck/runner/child_process.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

namespace convcheck::runner {

namespace {

volatile std::sig_atomic_t g_signal = 0;
struct sigaction g_previous_int, g_previous_term;

void say(const char* text) {
    std::size_t n = 0;
    while (text[n]) ++n;
    [[maybe_unused]] const ssize_t written = write(2, text, n);
}

// Kills the process group of every child of this thread: the isolated children of isolation.cpp are
// each their own group leader, so the case in progress ends now instead of at its time limit. Only
// async-signal-safe calls: open, read, close, kill.
void kill_children() {
    const int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;  // no /proc: the case in progress runs to its end or its time limit
    char text[4096];
    const ssize_t n = read(fd, text, sizeof(text) - 1);
    close(fd);
    long pid = 0;
    for (ssize_t i = 0; i <= n; ++i) {
        if (i < n && text[i] >= '0' && text[i] <= '9') {
            pid = pid * 10 + (text[i] - '0');
        } else if (pid > 0) {
            kill(static_cast<pid_t>(-pid), SIGKILL);
            kill(static_cast<pid_t>(pid), SIGKILL);
            pid = 0;
        }
    }
}

void on_signal(int sig) {
    g_signal = sig;
    child::cut_short_every_child();  // the children of the other jobs' threads (--jobs)
    kill_children();
    say(sig == SIGINT ? "\nconvcheck: interrupted (SIGINT): stopping, writing the results so far; interrupt again "
                        "to stop at once\n"
                      : "\nconvcheck: terminated (SIGTERM): stopping, writing the results so far\n");
}

}  // namespace

InterruptGuard::InterruptGuard() {
    g_signal = 0;
    child::cut_short_reset();
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;  // the second signal takes the default action: the process ends
    sigemptyset(&sa.sa_mask);
    // A signal ignored when convcheck started (a background job of a script, nohup) stays ignored.
    for (auto [sig, previous] : {std::pair{SIGINT, &g_previous_int}, std::pair{SIGTERM, &g_previous_term}}) {
        sigaction(sig, nullptr, previous);
        if (previous->sa_handler != SIG_IGN) sigaction(sig, &sa, nullptr);
    }
}

InterruptGuard::~InterruptGuard() {
    sigaction(SIGINT, &g_previous_int, nullptr);
    sigaction(SIGTERM, &g_previous_term, nullptr);
}

const volatile std::sig_atomic_t* InterruptGuard::flag() const { return &g_signal; }

int InterruptGuard::signal_number() const { return g_signal; }

void InterruptGuard::end_by_signal() const {
    if (!g_signal) return;
    const int sig = g_signal;
    std::fflush(nullptr);  // the summary printed to a file or pipe: the default action does not flush
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

}  // namespace convcheck::runner
