#include "convcheck/runner/workspace.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace convcheck::runner {

namespace {
constexpr unsigned char kSlackCanary = 0x5A;
std::uint64_t rounded(std::uint64_t bytes) { return (bytes + 63) / 64 * 64; }
std::uint64_t page_size() { return static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)); }
}  // namespace

RunnerWorkspace::RunnerWorkspace(std::uint64_t bytes) : buffer_(rounded(bytes)), bytes_(bytes) {
    auto* p = static_cast<unsigned char*>(buffer_.data());
    std::memset(p + bytes_, kSlackCanary, rounded(bytes_) - bytes_);
}

std::uint64_t RunnerWorkspace::high_water() const {
    if (bytes_ == 0) return 0;
    const auto* p = static_cast<const unsigned char*>(buffer_.data());
    const std::uint64_t page = page_size();
    // the pages from the one holding the first byte (GuardedBuffer::residency)
    const auto begin = reinterpret_cast<std::uintptr_t>(p) / page * page;
    const std::uint64_t end = reinterpret_cast<std::uintptr_t>(p) + bytes_;
    const std::uint64_t pages = (end - begin + page - 1) / page;
    const std::vector<unsigned char> resident = buffer_.residency();
    const bool known = resident.size() == pages;
    for (std::uint64_t k = pages; k-- > 0;) {
        if (known && !(resident[k] & 1)) continue;  // never touched: zero
        const std::uint64_t from = std::max<std::uint64_t>(begin + k * page, reinterpret_cast<std::uintptr_t>(p));
        const std::uint64_t to = std::min<std::uint64_t>(begin + (k + 1) * page, end);
        for (std::uint64_t a = to; a-- > from;)
            if (*reinterpret_cast<const unsigned char*>(a) != 0) return a - reinterpret_cast<std::uintptr_t>(p) + 1;
    }
    return 0;
}

std::int64_t RunnerWorkspace::first_write_past_end() const {
    const auto* p = static_cast<const unsigned char*>(buffer_.data());
    for (std::uint64_t i = bytes_; i < rounded(bytes_); ++i)
        if (p[i] != kSlackCanary) return static_cast<std::int64_t>(i);
    return -1;
}

std::string describe_workspace_fault(std::uint64_t address, std::uint64_t workspace, std::uint64_t bytes) {
    if (workspace == 0) return "";
    const std::uint64_t page = page_size(), end = workspace + rounded(bytes);
    const std::string reported = "; the plan reported workspace_bytes " + std::to_string(bytes) + ")";
    if (address >= workspace + bytes && address < end + page)
        return "write past the end of the runner's workspace (byte " + std::to_string(address - workspace) + reported;
    if (address < workspace && address + 2 * page >= workspace)
        return "access before the start of the runner's workspace (byte -" + std::to_string(workspace - address) +
               reported;
    return "";
}

}  // namespace convcheck::runner
