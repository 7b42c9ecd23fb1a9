#include "convcheck/runner/guarded_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace convcheck::runner {

namespace {
constexpr unsigned char kCanary = 0xA5;
std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

// Mappings kept from one case to the next. Every case maps its tensors anew, and a fresh page of shared memory costs
// a fault and the kernel's zeroing, in the runner and again in the child (4 KiB pages: 0.6 s per GiB on a 2-core
// VM, and 0.68 M faults in the runner over benchdnn's shapes_resnet_50); a kept mapping's pages are resident and
// mapped, and zeroing them takes 0.05 s per GiB. Kept: the mappings of buffers marked keep_when_released, of at
// least kSmallestKept bytes, up to kept_limit() in all; a buffer takes the smallest kept mapping that holds it and
// wastes at most half of it.
struct Kept {
    std::byte* mapping;
    std::size_t capacity_pages;  // data pages between its two guards
};
constexpr std::size_t kSmallestKept = std::size_t{1} << 20;
std::mutex g_kept_mutex;
std::vector<Kept> g_kept;
std::size_t g_kept_bytes = 0;

std::size_t mapping_bytes(std::size_t capacity_pages) { return (capacity_pages + 2) * page_size(); }

// 1 GiB, or an eighth of the machine's memory where that is less
std::size_t kept_limit() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const std::size_t eighth = pages > 0 ? static_cast<std::size_t>(pages) / 8 * page_size() : 0;
    return std::min<std::size_t>(std::size_t{1} << 30, eighth);
}

// The smallest kept mapping of data_pages to 2 x data_pages data pages, taken out of the list; none: {nullptr, 0}.
Kept take_kept(std::size_t data_pages) {
    std::lock_guard<std::mutex> lock(g_kept_mutex);
    std::size_t best = g_kept.size();
    for (std::size_t i = 0; i < g_kept.size(); ++i) {
        const std::size_t c = g_kept[i].capacity_pages;
        if (c >= data_pages && c <= 2 * data_pages && (best == g_kept.size() || c < g_kept[best].capacity_pages))
            best = i;
    }
    if (best == g_kept.size()) return {nullptr, 0};
    const Kept k = g_kept[best];
    g_kept.erase(g_kept.begin() + static_cast<std::ptrdiff_t>(best));
    g_kept_bytes -= mapping_bytes(k.capacity_pages);
    return k;
}

// Keeps the mapping when the limit allows; false: the caller unmaps it.
bool keep(Kept k) {
    const std::size_t bytes = mapping_bytes(k.capacity_pages);
    if (bytes < kSmallestKept) return false;
    std::lock_guard<std::mutex> lock(g_kept_mutex);
    if (g_kept_bytes + bytes > kept_limit()) return false;
    g_kept.push_back(k);
    g_kept_bytes += bytes;
    return true;
}
}  // namespace

GuardedBuffer::GuardedBuffer(std::size_t bytes, Pages pages) : bytes_(bytes) {
    if (bytes == 0) return;
    page_ = page_size();
    data_pages_ = (bytes + page_ - 1) / page_;
    const Kept kept = take_kept(data_pages_);
    if (kept.mapping != nullptr) {
        mapping_ = kept.mapping;
        capacity_pages_ = kept.capacity_pages;
        // the data pages flush against the last guard; the unused ones before them become guards too, their memory
        // handed back (the buffer holds no more than its own pages)
        base_ = mapping_ + (capacity_pages_ - data_pages_) * page_;
        madvise(mapping_ + page_, (capacity_pages_ - data_pages_) * page_, MADV_REMOVE);
        mprotect(mapping_ + page_, (capacity_pages_ - data_pages_) * page_, PROT_NONE);
        // what a fresh mapping holds: zeros, written here, or (untouched) the pages handed back, zero when next touched
        const bool handed_back =
            pages == Pages::untouched && madvise(base_ + page_, data_pages_ * page_, MADV_REMOVE) == 0;
        if (!handed_back) {
            map_in(true);
            std::memset(base_ + page_, 0, data_pages_ * page_);
        }
    } else {
        capacity_pages_ = data_pages_;
        void* p = mmap(nullptr, mapping_bytes(capacity_pages_), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                       -1, 0);
        if (p == MAP_FAILED) throw std::runtime_error("cannot map " + std::to_string(bytes) + " bytes of shared memory");
        mapping_ = base_ = static_cast<std::byte*>(p);
        mprotect(base_, page_, PROT_NONE);
        mprotect(base_ + (data_pages_ + 1) * page_, page_, PROT_NONE);
        // the runner fills every buffer whole: its pages mapped in at once, not a fault each (with map_in in the
        // plugin child too, isolation.cpp, benchdnn's shapes_resnet_50 took 0.08 M page faults, not 0.86 M)
        if (pages == Pages::mapped_in) map_in(true);
    }
    mapped_ = (data_pages_ + 2) * page_;
    // flush against the guard page after it: the first byte past the end faults
    data_ = base_ + page_ + data_pages_ * page_ - bytes;
}

GuardedBuffer::GuardedBuffer(GuardedBuffer&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)), mapped_(std::exchange(o.mapped_, 0)), page_(o.page_),
      data_pages_(o.data_pages_), mapping_(std::exchange(o.mapping_, nullptr)),
      capacity_pages_(std::exchange(o.capacity_pages_, 0)), keep_(std::exchange(o.keep_, false)),
      data_(std::exchange(o.data_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)) {}

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& o) noexcept {
    if (this != &o) {
        release();
        base_ = std::exchange(o.base_, nullptr);
        mapped_ = std::exchange(o.mapped_, 0);
        page_ = o.page_;
        data_pages_ = o.data_pages_;
        mapping_ = std::exchange(o.mapping_, nullptr);
        capacity_pages_ = std::exchange(o.capacity_pages_, 0);
        keep_ = std::exchange(o.keep_, false);
        data_ = std::exchange(o.data_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
}

GuardedBuffer::~GuardedBuffer() { release(); }

void GuardedBuffer::release() {
    if (!mapping_) return;
    // kept with every data page writable again (this runner's view: a child's read-only view went with it)
    const bool kept = keep_ && mprotect(mapping_ + page_, capacity_pages_ * page_, PROT_READ | PROT_WRITE) == 0 &&
                      keep({mapping_, capacity_pages_});
    if (!kept) munmap(mapping_, mapping_bytes(capacity_pages_));
    mapping_ = base_ = nullptr;
}

std::size_t GuardedBuffer::kept_bytes() {
    std::lock_guard<std::mutex> lock(g_kept_mutex);
    return g_kept_bytes;
}

GuardedBuffer::Where GuardedBuffer::locate(std::uintptr_t a) const {
    if (!base_) return Where::outside;
    const auto base = reinterpret_cast<std::uintptr_t>(base_);
    const auto data = reinterpret_cast<std::uintptr_t>(data_);
    // a kept mapping's unused pages before the buffer are guards as well
    if (a < reinterpret_cast<std::uintptr_t>(mapping_) || a >= base + mapped_) return Where::outside;
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

bool GuardedBuffer::map_in(bool writable) const {
    return base_ && madvise(base_ + page_, data_pages_ * page_, writable ? MADV_POPULATE_WRITE : MADV_POPULATE_READ) == 0;
}

std::vector<unsigned char> GuardedBuffer::residency() const {
    if (!data_) return {};
    // mincore wants a page-aligned start: the first page of the data may begin before it
    const auto begin = reinterpret_cast<std::uintptr_t>(data_) / page_ * page_;
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(data_) + bytes_;
    std::vector<unsigned char> resident((end - begin + page_ - 1) / page_);
    if (mincore(reinterpret_cast<void*>(begin), end - begin, resident.data()) != 0) return {};
    return resident;
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
