// The peak resident memory a call adds (peak_memory.hpp).
#include "peak_memory.hpp"

#include <malloc.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace convcheck::bench {

namespace {

// A "Name:   123 kB" field of /proc/self/status, in bytes.
std::optional<std::int64_t> status_bytes(const std::string& name) {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind(name + ":", 0) == 0) {
            std::istringstream in(line.substr(name.size() + 1));
            std::int64_t kib = -1;
            std::string unit;
            if (in >> kib >> unit && unit == "kB" && kib >= 0) return kib * 1024;
        }
    return std::nullopt;
}

}  // namespace

PeakMemory peak_added_resident_bytes(const std::function<void()>& call) {
    PeakMemory m;
    malloc_trim(0);
    {
        std::ofstream clear("/proc/self/clear_refs");
        clear << "5";
        clear.flush();
        if (!clear) m.why_not = "cannot write 5 to /proc/self/clear_refs (the high-water mark cannot be reset)";
    }
    const auto before = status_bytes("VmRSS"), mark = status_bytes("VmHWM");
    if (m.why_not.empty() && (!before || !mark)) m.why_not = "no VmRSS/VmHWM in /proc/self/status";
    // after a reset the mark is the resident set (a page or two of counter lag aside)
    if (m.why_not.empty() && *mark > *before + (std::int64_t(1) << 20))
        m.why_not = "VmHWM did not follow the reset through /proc/self/clear_refs";
    call();
    if (!m.why_not.empty()) return m;
    const auto peak = status_bytes("VmHWM");
    if (!peak) {
        m.why_not = "no VmHWM in /proc/self/status";
        return m;
    }
    m.bytes = *peak > *before ? *peak - *before : 0;
    return m;
}

}  // namespace convcheck::bench
