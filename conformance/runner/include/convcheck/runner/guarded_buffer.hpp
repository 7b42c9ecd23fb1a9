// Shared memory for the buffers a plugin child sees (isolation.hpp): each sits between two PROT_NONE
// guard pages, flush against the one after it, so a write (or read) past its end faults at once;
// the padding in front of it can hold a canary that the parent checks afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace convcheck::runner {

// `bytes` bytes of shared memory between two guard pages, every byte zero. Zero bytes gives an empty buffer
// (data() == nullptr). A buffer may take a mapping a case's tensors left (keep_when_released): its pages then zeroed
// by the runner, not faulted in and zeroed anew by the kernel.
class GuardedBuffer {
public:
    // A new buffer's pages: mapped in at once (map_in; the runner fills each buffer whole), or left untouched, costing
    // no memory until written (a sampled case's tensors of GiBs, held through a query the backend may decline).
    enum class Pages { mapped_in, untouched };
    GuardedBuffer() = default;
    explicit GuardedBuffer(std::size_t bytes, Pages pages = Pages::mapped_in);
    GuardedBuffer(GuardedBuffer&& other) noexcept;
    GuardedBuffer& operator=(GuardedBuffer&& other) noexcept;
    GuardedBuffer(const GuardedBuffer&) = delete;
    GuardedBuffer& operator=(const GuardedBuffer&) = delete;
    ~GuardedBuffer();

    void* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }

    // Where an address lies relative to this buffer.
    enum class Where { outside, guard_before, front_padding, inside, guard_after };
    Where locate(std::uintptr_t address) const;
    // Byte offset of `address` from the start of data (negative before it).
    std::int64_t offset_of(std::uintptr_t address) const;
    // Maps the data pages read-only (in the child, for inputs).
    void protect_read_only() const;
    // Maps every data page into this process's page table at once (readable, or writable too), where a plugin
    // child would otherwise take a fault on each page it first touches; the contents are unchanged. False where
    // the kernel cannot (MADV_POPULATE_*, Linux 5.14): the pages then fault in on first touch as before.
    bool map_in(bool writable) const;
    // One byte for each page the data spans, from the page that holds its first byte: bit 0 set where the page holds
    // memory (mincore: for shared memory, a page allocated by whichever process touched it), without touching any.
    // Empty for an empty buffer, or where mincore fails.
    std::vector<unsigned char> residency() const;
    // Fills the front padding with the canary; true when it is intact.
    void arm_canary() const;
    bool canary_intact() const;

    // When this buffer goes, its mapping (1 MiB or more) is kept for a later buffer of half its size to its size,
    // up to 1 GiB of them (an eighth of the machine's memory where that is less): for a case's tensors, which live
    // until the case ends, so that a kept mapping never adds to a case's own peak.
    void keep_when_released() { keep_ = true; }
    // The mappings kept for later buffers, in bytes (tests).
    static std::size_t kept_bytes();

private:
    void release();
    std::byte* base_ = nullptr;  // guard, data pages, guard
    std::size_t mapped_ = 0, page_ = 0, data_pages_ = 0;
    // the whole mapping: a kept one can hold more data pages than this buffer uses; those before base_ are guards too
    std::byte* mapping_ = nullptr;
    std::size_t capacity_pages_ = 0;
    bool keep_ = false;
    std::byte* data_ = nullptr;
    std::size_t bytes_ = 0;
};

// One buffer the plugin sees, with the name reports use.
struct NamedBuffer {
    std::string name;  // "src", "weights", "bias", "dst", "theta"
    const GuardedBuffer* buffer = nullptr;
    bool input = true;
};

// What a faulting address hit, e.g. "write past the end of the output dst (byte 96 of 96)", or
// "at address 0x0" when it is in none of the buffers.
std::string describe_fault(std::uint64_t address, const std::vector<NamedBuffer>& buffers);

}  // namespace convcheck::runner
