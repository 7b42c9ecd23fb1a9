#include "convcheck/runner/progress.hpp"

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace convcheck::runner {

namespace {

// The line as the last update left it; the signal handler reads it, so it is plain fixed-size data
// and `g_ready` is cleared while the main code rewrites it.
struct Line {
    char prefix[256];  // "[####....] 21/69  failing 1  smoke/0021 "
    char suffix[768];  // "  conv:n=1,..."
    bool running = false;  // a case is in progress: show its elapsed time
    timespec started{};
    int width = 80;
};
Line g_line;
volatile sig_atomic_t g_ready = 0;
struct sigaction g_previous_alarm {};

// Appends at most what fits; no heap, no locale (a signal handler calls it).
void append(char* out, std::size_t& n, std::size_t capacity, const char* text) {
    while (*text && n + 1 < capacity) out[n++] = *text++;
    out[n] = '\0';
}

void append_seconds(char* out, std::size_t& n, std::size_t capacity, long long seconds) {
    char digits[24];
    int k = 0;
    do {
        digits[k++] = static_cast<char>('0' + seconds % 10);
        seconds /= 10;
    } while (seconds > 0 && k < 20);
    char text[32];
    int t = 0;
    while (k > 0) text[t++] = digits[--k];
    text[t++] = ' ';
    text[t++] = 's';
    text[t] = '\0';
    append(out, n, capacity, text);
}

// Async-signal-safe: fixed buffers, clock_gettime and write only.
void draw() {
    if (!g_ready) return;
    const int saved_errno = errno;
    char visible[1100];
    std::size_t n = 0;
    append(visible, n, sizeof(visible), g_line.prefix);
    if (g_line.running) {
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now);
        append_seconds(visible, n, sizeof(visible), static_cast<long long>(now.tv_sec - g_line.started.tv_sec) -
                                                        (now.tv_nsec < g_line.started.tv_nsec ? 1 : 0));
    }
    append(visible, n, sizeof(visible), g_line.suffix);
    const std::size_t fits = static_cast<std::size_t>(std::max(g_line.width - 1, 10));
    if (n > fits) n = fits;  // one terminal row: the descriptor's tail is cut, never the time
    char out[1200];
    std::size_t m = 0;
    out[m++] = '\r';
    std::memcpy(out + m, visible, n);
    m += n;
    std::memcpy(out + m, "\x1b[K", 3);  // erase the rest of the previous line
    m += 3;
    [[maybe_unused]] const ssize_t written = write(2, out, m);
    errno = saved_errno;
}

void on_alarm(int) { draw(); }

int terminal_width() {
    winsize ws{};
    return ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

}  // namespace

Progress::Progress(const std::vector<Case>& cases, bool enabled) : enabled_(enabled) {
    if (!enabled_) return;
    for (const Case& c : cases) {
        labels_.push_back(c.id);
        descriptors_.push_back(c.descriptor());
    }
    g_line.width = terminal_width();
    struct sigaction sa{};
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;  // a redraw must not make the runner's own calls fail with EINTR
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &g_previous_alarm);
    itimerval every_second{{1, 0}, {1, 0}};
    setitimer(ITIMER_REAL, &every_second, nullptr);
    update(0, {});
}

Progress::~Progress() { finish(); }

void Progress::update(std::int64_t done, const std::map<std::string, std::int64_t>& counts) {
    if (!enabled_ || finished_) return;
    const auto total = static_cast<std::int64_t>(labels_.size());
    std::int64_t failing = 0;
    for (Status s : kAllStatuses)
        if (is_failure(s) && counts.count(to_string(s))) failing += counts.at(to_string(s));
    const int width = 30;
    const int filled = total > 0 ? static_cast<int>(width * std::min(done, total) / total) : width;
    g_ready = 0;
    const bool running = done < total;
    std::snprintf(g_line.prefix, sizeof(g_line.prefix), "[%s%s] %lld/%lld  failing %lld%s%s%s",
                  std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                  static_cast<long long>(done), static_cast<long long>(total), static_cast<long long>(failing),
                  running ? "  " : "", running ? labels_[done].c_str() : "", running ? " " : "");
    std::snprintf(g_line.suffix, sizeof(g_line.suffix), "%s%s", running ? "  " : "",
                  running ? descriptors_[done].c_str() : "");
    g_line.running = running;
    clock_gettime(CLOCK_MONOTONIC, &g_line.started);
    g_ready = 1;
    draw();
}

void Progress::finish() {
    if (!enabled_ || finished_) return;
    finished_ = true;
    itimerval off{};
    setitimer(ITIMER_REAL, &off, nullptr);
    sigaction(SIGALRM, &g_previous_alarm, nullptr);
    g_ready = 0;
    [[maybe_unused]] const ssize_t written = write(2, "\r\x1b[K", 4);
}

}  // namespace convcheck::runner
