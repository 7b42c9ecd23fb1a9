#include "convcheck/runner/memory_limit.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "convcheck/core/sanitizer_build.hpp"

namespace convcheck::runner {

namespace {

constexpr std::int64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
constexpr std::int64_t kMaxSize = std::int64_t{1} << 62;

// A number from a buffer without the heap (async-signal context after fork): the first decimal
// after `key` in text, or -1.
std::int64_t number_after(const char* text, const char* key) {
    const char* p = std::strstr(text, key);
    if (!p) return -1;
    p += std::strlen(key);
    while (*p == ' ' || *p == '\t') ++p;
    if (!std::isdigit(static_cast<unsigned char>(*p))) return -1;
    std::int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(*p))) v = v * 10 + (*p++ - '0');
    return v;
}

// Reads a small /proc file into buf (NUL-terminated) without the heap; false when unreadable.
bool read_small_file(int fd, char* buf, std::size_t capacity) {
    const ssize_t n = pread(fd, buf, capacity - 1, 0);
    if (n <= 0) return false;
    buf[n] = '\0';
    return true;
}

// statm: size resident shared text lib data dt, in pages.
std::int64_t private_resident_from_statm(int fd) {
    char buf[256];
    if (!read_small_file(fd, buf, sizeof(buf))) return -1;
    long long size = 0, resident = 0, shared = 0;
    if (std::sscanf(buf, "%lld %lld %lld", &size, &resident, &shared) != 3) return -1;
    return static_cast<std::int64_t>(resident - shared) * static_cast<std::int64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

std::int64_t parse_memory_size(const std::string& text, const std::string& option) {
    auto refuse = [&](const std::string& rule) -> std::invalid_argument {
        return std::invalid_argument(option + " '" + text + "': " + rule);
    };
    const char* begin = text.c_str();
    char* end = nullptr;
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
        throw refuse("must be a size such as 2G, 512M or 1073741824 (bytes): a positive number, then K, M, G or T");
    const double number = std::strtod(begin, &end);
    std::string unit(end);
    for (char& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    double scale = 0;
    if (unit.empty() || unit == "B") scale = 1;
    else if (unit == "K" || unit == "KB" || unit == "KIB") scale = kKiB;
    else if (unit == "M" || unit == "MB" || unit == "MIB") scale = kMiB;
    else if (unit == "G" || unit == "GB" || unit == "GIB") scale = kGiB;
    else if (unit == "T" || unit == "TB" || unit == "TIB") scale = static_cast<double>(kGiB) * 1024;
    else throw refuse("unknown unit '" + std::string(end) + "' (use K, M, G or T: binary units, 1G = 2^30 bytes)");
    const double bytes = number * scale;
    if (!std::isfinite(bytes) || bytes < 1) throw refuse("must be at least 1 byte");
    if (bytes > static_cast<double>(kMaxSize)) throw refuse("must be at most 2^62 bytes");
    return static_cast<std::int64_t>(bytes);
}

std::string memory_text(std::int64_t bytes) {
    char text[64];
    auto scaled = [&](double unit, const char* name) {
        std::snprintf(text, sizeof(text), "%.1f", static_cast<double>(bytes) / unit);
        std::string s = text;
        if (s.ends_with(".0")) s.resize(s.size() - 2);  // "2 GiB", not "2.0 GiB"
        return s + " " + name;
    };
    if (bytes >= kGiB) return scaled(static_cast<double>(kGiB), "GiB");
    if (bytes >= kMiB) return scaled(static_cast<double>(kMiB), "MiB");
    if (bytes >= kKiB) return scaled(static_cast<double>(kKiB), "KiB");
    return std::to_string(bytes) + " bytes";
}

std::int64_t available_memory_bytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    long long kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") return static_cast<std::int64_t>(kib) * kKiB;
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}

std::int64_t default_memory_limit() {
    static const std::int64_t limit = [] {
        const std::int64_t available = available_memory_bytes();
        return available > 0 ? std::max<std::int64_t>(available / 2, 256 * kMiB) : 4 * kGiB;
    }();
    return limit;
}

std::string MemoryEnforcement::name() const {
    if (rss_poll && rlimit_data) return "rss_poll+rlimit_data";
    if (rss_poll) return "rss_poll";
    if (rlimit_data) return "rlimit_data";
    return "none";
}

const MemoryEnforcement& memory_enforcement() {
    static const MemoryEnforcement e = [] {
        MemoryEnforcement m;
        m.rss_poll = private_resident_bytes(0) >= 0;
#ifndef CONVCHECK_SANITIZER_BUILD
        struct rlimit current{};
        m.rlimit_data = getrlimit(RLIMIT_DATA, &current) == 0;
#endif
        return m;
    }();
    return e;
}

std::int64_t private_resident_bytes(pid_t pid) {
    // no heap for this process's own (a freshly forked child measures itself)
    const std::string path = pid == 0 ? std::string() : "/proc/" + std::to_string(pid) + "/statm";
    const int fd = open(pid == 0 ? "/proc/self/statm" : path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    const std::int64_t bytes = private_resident_from_statm(fd);
    close(fd);
    return bytes;
}

ResidentMemory self_resident_memory() {
    ResidentMemory m;
    const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return m;
    char status[4096];
    const bool read = read_small_file(fd, status, sizeof(status));
    close(fd);
    if (!read) return m;
    const std::int64_t rss = number_after(status, "VmRSS:"), hwm = number_after(status, "VmHWM:");
    m.current = rss < 0 ? -1 : rss * kKiB;
    m.peak = hwm < 0 ? -1 : hwm * kKiB;
    return m;
}

bool reset_peak_resident() {
    const int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool written = write(fd, "5", 1) == 1;
    close(fd);
    return written;
}

ChildMemory::ChildMemory(pid_t pid) {
    const std::string path = "/proc/" + std::to_string(pid) + "/statm";
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

ChildMemory::~ChildMemory() {
    if (fd_ >= 0) close(fd_);
}

std::int64_t ChildMemory::private_resident() const { return fd_ < 0 ? -1 : private_resident_from_statm(fd_); }

bool limit_child_data(std::int64_t own_budget) {
    const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char status[4096];
    const bool read = read_small_file(fd, status, sizeof(status));
    close(fd);
    const std::int64_t data_kib = read ? number_after(status, "VmData:") : -1;
    if (data_kib < 0) return false;
    const std::int64_t headroom = std::max<std::int64_t>(own_budget / 4, 256 * kMiB);
    struct rlimit limit{};
    if (getrlimit(RLIMIT_DATA, &limit) != 0) return false;
    const double wanted = static_cast<double>(data_kib) * kKiB + static_cast<double>(own_budget) + headroom;
    if (wanted >= static_cast<double>(kMaxSize)) return true;  // nothing to bound
    const auto bytes = static_cast<rlim_t>(wanted);
    if (limit.rlim_cur != RLIM_INFINITY && bytes > limit.rlim_cur) return true;  // already bounded tighter
    limit.rlim_cur = bytes;
    return setrlimit(RLIMIT_DATA, &limit) == 0;
}

}  // namespace convcheck::runner
