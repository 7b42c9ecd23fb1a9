// The workspace the runner gives a plan's conv_plan_execute (ABI 1.2: convcheck_conv_args.workspace):
// the plan's reported workspace_bytes, 64-byte aligned, ending where a guard page begins (after the
// bytes rounded up to 64; the at most 63 bytes of slack between hold a canary checked afterwards),
// so that a plan that writes past what it reported is caught: a fault in the guard page, or a
// changed canary. Made in the child after conv_plan_describe, untouched until the plugin writes
// (fresh pages read zero), so that how far it wrote can be read afterwards: the high-water mark,
// the last nonzero byte (a lower bound: a plugin's trailing zeros do not count). Pages the plugin
// never touched are never made resident, so a reported size far beyond what is used costs nothing.
#pragma once

#include <cstdint>
#include <string>

#include "convcheck/runner/guarded_buffer.hpp"

namespace convcheck::runner {

class RunnerWorkspace {
public:
    // Throws std::runtime_error when the bytes cannot be mapped.
    explicit RunnerWorkspace(std::uint64_t bytes);
    void* data() const { return buffer_.data(); }
    std::uint64_t bytes() const { return bytes_; }
    // One past the last nonzero byte the plugin left in [0, bytes): the high-water mark.
    std::uint64_t high_water() const;
    // The first byte of the slack after `bytes` that changed, or -1 when the canary is intact.
    std::int64_t first_write_past_end() const;

private:
    GuardedBuffer buffer_;
    std::uint64_t bytes_ = 0;
};

// The text for a fault at `address` given the workspace's address and reported size (as the child
// reports them), e.g. "write past the end of the runner's workspace (byte 4096; the plan reported
// workspace_bytes 4000)", or "" when the address is not next to it.
std::string describe_workspace_fault(std::uint64_t address, std::uint64_t workspace, std::uint64_t bytes);

}  // namespace convcheck::runner
