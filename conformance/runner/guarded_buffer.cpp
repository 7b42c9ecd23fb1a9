#include "convcheck/runner/guarded_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace convcheck::runner {

namespace {
constexpr unsigned char kCanary = 0xA5;
std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
}  // namespace

GuardedBuffer::GuardedBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    page_ = page_size();
    data_pages_ = (bytes + page_ - 1) / page_;
    mapped_ = (data_pages_ + 2) * page_;
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("cannot map " + std::to_string(bytes) + " bytes of shared memory");
    base_ = static_cast<std::byte*>(p);
    mprotect(base_, page_, PROT_NONE);
    mprotect(base_ + (data_pages_ + 1) * page_, page_, PROT_NONE);
    // flush against the guard page after it: the first byte past the end faults
    data_ = base_ + page_ + data_pages_ * page_ - bytes;
}

GuardedBuffer::GuardedBuffer(GuardedBuffer&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)), mapped_(std::exchange(o.mapped_, 0)), page_(o.page_),
      data_pages_(o.data_pages_), data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& o) noexcept {
    if (this != &o) {
        release();
        base_ = std::exchange(o.base_, nullptr);
        mapped_ = std::exchange(o.mapped_, 0);
        page_ = o.page_;
        data_pages_ = o.data_pages_;
        data_ = std::exchange(o.data_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
}

GuardedBuffer::~GuardedBuffer() { release(); }

void GuardedBuffer::release() {
    if (base_) munmap(base_, mapped_);
    base_ = nullptr;
}

GuardedBuffer::Where GuardedBuffer::locate(std::uintptr_t a) const {
    if (!base_) return Where::outside;
    const auto base = reinterpret_cast<std::uintptr_t>(base_);
    const auto data = reinterpret_cast<std::uintptr_t>(data_);
    if (a < base || a >= base + mapped_) return Where::outside;
    if (a < base + page_) return Where::guard_before;
    if (a < data) return Where::front_padding;
    if (a < data + bytes_) return Where::inside;
    return Where::guard_after;
}

std::int64_t GuardedBuffer::offset_of(std::uintptr_t a) const {
    return static_cast<std::int64_t>(a) - static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(data_));
}

void GuardedBuffer::protect_read_only() const {
    if (base_) mprotect(base_ + page_, data_pages_ * page_, PROT_READ);
}

void GuardedBuffer::arm_canary() const {
    if (base_) std::memset(base_ + page_, kCanary, static_cast<std::size_t>(data_ - (base_ + page_)));
}

bool GuardedBuffer::canary_intact() const {
    if (!base_) return true;
    for (const std::byte* p = base_ + page_; p < data_; ++p)
        if (static_cast<unsigned char>(*p) != kCanary) return false;
    return true;
}

std::string describe_fault(std::uint64_t address, const std::vector<NamedBuffer>& buffers) {
    for (const auto& b : buffers) {
        if (!b.buffer) continue;
        const auto a = static_cast<std::uintptr_t>(address);
        const std::int64_t off = b.buffer->offset_of(a);
        switch (b.buffer->locate(a)) {
            case GuardedBuffer::Where::guard_after:
                return (b.input ? "read past the end of " : "write past the end of the output ") + b.name + " (byte " +
                       std::to_string(off) + " of " + std::to_string(b.buffer->bytes()) + ")";
            case GuardedBuffer::Where::guard_before:
            case GuardedBuffer::Where::front_padding:
                return "access before the start of " + b.name + " (byte " + std::to_string(off) + ")";
            case GuardedBuffer::Where::inside:
                return b.input ? "write into the input " + b.name + " (byte " + std::to_string(off) +
                                     "; inputs are mapped read-only)"
                               : "fault inside " + b.name + " (byte " + std::to_string(off) + ")";
            case GuardedBuffer::Where::outside: break;
        }
    }
    char text[64];
    std::snprintf(text, sizeof(text), "at address 0x%llx", static_cast<unsigned long long>(address));
    return text;
}

}  // namespace convcheck::runner
