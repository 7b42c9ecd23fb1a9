// The memory limit of a case (docs/runner.md, "Memory"): one number, `--memory-limit`, bounds all a
// case may cost — what the runner holds for it (its tensors, the shared buffers, the reference's
// work) plus the plugin child's own memory. The runner refuses a case whose own part does not fit
// (case_memory.hpp); the child may use what is left, and is killed when it uses more.
//
// How the child's part is enforced depends on what the machine and the build offer, and the run
// record says which (memory_enforcement().name()):
// - rss_poll: the parent, which waits for the child anyway, reads the child's private resident
//   memory (/proc/<pid>/statm: resident minus shared, less what it inherited at fork) every 2 ms
//   at most and kills it past its budget. It counts pages actually used, so it works in sanitizer
//   builds too, whose shadow memory reserves terabytes of address space that is never touched.
// - rlimit_data: a backstop in the child: RLIMIT_DATA at what the child inherited plus its budget
//   and a headroom, so an allocation far past the budget fails at once even when the parent cannot
//   poll (stopped with Ctrl-Z, descheduled). Not in ASan/TSan builds: their shadow mappings count
//   as data and would make every allocation fail. (RLIMIT_AS breaks them the same way.)
// A cgroup v2 memory.max would be exact, but needs a delegated, writable cgroup with the memory
// controller, which neither this machine nor a plain CI container offers; it is not used.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace convcheck::runner {

// "2G", "512M", "1.5GiB", "64KiB", "1073741824" (bytes): binary units K, M, G, T (with or without
// "iB"/"B"). Throws std::invalid_argument naming `option`, the value and the rule (a positive,
// finite size of at most 2^62 bytes).
std::int64_t parse_memory_size(const std::string& text, const std::string& option);
// "11.5 GiB", "512 MiB", "300 KiB", "17 bytes".
std::string memory_text(std::int64_t bytes);

// MemAvailable of /proc/meminfo (else free physical pages), in bytes; 0 when unknown.
std::int64_t available_memory_bytes();
// The default --memory-limit: half of the memory available when first asked (cached for the
// process), so a case can never take more than half of what the machine had free; at least 256 MiB.
std::int64_t default_memory_limit();

struct MemoryEnforcement {
    bool rss_poll = false;     // the parent can read a child's memory (/proc/<pid>/statm)
    bool rlimit_data = false;  // the child sets RLIMIT_DATA (not in sanitizer builds)
    // "rss_poll+rlimit_data", "rss_poll", "rlimit_data" or "none".
    std::string name() const;
};
// What this process can use (decided once).
const MemoryEnforcement& memory_enforcement();

// Private resident memory (resident minus file-backed and shared pages) of a process, in bytes;
// -1 when it cannot be read. `pid` 0 reads this process.
std::int64_t private_resident_bytes(pid_t pid);

// This process's resident memory (VmRSS) and its high-water mark (VmHWM), in bytes (/proc/self/status);
// -1 when unreadable. reset_peak_resident() sets the high-water mark to the current resident memory
// (writes 5 to /proc/self/clear_refs, Linux 4.0+), so that VmHWM then measures the peak of what follows;
// false when it could not.
struct ResidentMemory {
    std::int64_t current = -1, peak = -1;
};
ResidentMemory self_resident_memory();
bool reset_peak_resident();

// Reads the private resident memory of one child, keeping /proc/<pid>/statm open between reads.
class ChildMemory {
public:
    explicit ChildMemory(pid_t pid);
    ChildMemory(const ChildMemory&) = delete;
    ChildMemory& operator=(const ChildMemory&) = delete;
    ~ChildMemory();
    // -1 when unreadable (no /proc, or the child is gone).
    std::int64_t private_resident() const;

private:
    int fd_ = -1;
};

// In a freshly forked child: sets RLIMIT_DATA to the data it inherited plus `own_budget` and a
// headroom (a quarter of the budget, at least 256 MiB). Uses no heap. False when it could not.
bool limit_child_data(std::int64_t own_budget);

}  // namespace convcheck::runner
