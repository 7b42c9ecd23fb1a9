// The runner's large blocks that a fork does not copy (parent_only_memory.hpp). perf of `convcheck run --backend
// optimized --suite models` (two jobs, 2 cores): a seventh of all CPU time was forks and the page faults after them
// (the runner re-faulting, and copying, the pages of its retained heap that it wrote while another job's child
// lived: 700,000 faults in a 5.4 s run); with the blocks here it takes 4.3-4.7 s instead of 5.3-5.7 s.
//
// Each block is its own mapping, of a size rounded up to a class (2 MiB steps to 8 MiB, then four classes a
// doubling: at most a quarter more than asked), aligned to 2 MiB for huge pages. A freed block is kept, hidden
// from forks, for the next block of its class, up to kKeptBytes of them; past that it is unmapped. The blocks'
// records are a fixed table (no allocation here: this code serves operator new), read without the lock only in a
// child, which has nothing of its own here.
#include "convcheck/runner/parent_only_memory.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <mutex>

namespace convcheck::runner::parent_only_memory {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kPage = 4096;
// Free blocks kept for reuse, at most: a case's largest arrays (conv1 of ResNet-50 at batch 50: 321 MB each).
constexpr std::size_t kKeptBytes = std::size_t{2} << 30;
// Blocks larger than this are left to malloc (which then says whether the memory exists).
constexpr std::size_t kLargestBlock = std::size_t{1} << 46;
constexpr int kRecords = 1024;

enum class State : unsigned char { unused, live, kept };

struct Record {
    std::atomic<std::uintptr_t> address{0};  // 0 while unused
    std::size_t bytes = 0;
    std::uint64_t owner = 0;  // the thread that allocated it while live
    State state = State::unused;
    bool shown = false;  // copied to the next child of its owner (show_to_child)
};

Record g_records[kRecords];
std::mutex g_mutex;
std::size_t g_kept = 0;
// Every block lies in [g_low, g_high): a pointer outside is malloc's, told apart without the lock.
std::atomic<std::uintptr_t> g_low{UINTPTR_MAX}, g_high{0};
std::atomic<bool> g_child{false};
std::atomic<std::uint64_t> g_next_owner{1};

thread_local int t_scopes = 0;
thread_local std::uint64_t t_owner = 0;

std::uint64_t this_thread_owner() {
    if (t_owner == 0) t_owner = g_next_owner.fetch_add(1);
    return t_owner;
}

// In a forked child (any fork, the runner's own or a library's) this process allocates nothing here and frees
// nothing of the parent's.
void mark_child() { g_child.store(true); }
[[maybe_unused]] const int g_registered = pthread_atfork(nullptr, nullptr, mark_child);

// The class of a request: 2 MiB steps up to 8 MiB, then quarter doublings (10, 12, 14, 16, 20, 24 ... MiB).
std::size_t block_size(std::size_t bytes) {
    const std::size_t step =
        bytes <= 4 * kHugePage ? kHugePage : std::size_t{1} << (std::bit_width(bytes - 1) - 3);
    return (bytes + step - 1) / step * step;
}

// A fresh mapping of `bytes` (a multiple of 2 MiB) at a 2 MiB boundary, hidden from forks; nullptr if none.
void* map_block(std::size_t bytes) {
    void* any = mmap(nullptr, bytes + kHugePage - kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (any == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<std::uintptr_t>(any);
    const std::uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > start) munmap(any, aligned - start);
    if (const std::uintptr_t end = start + bytes + kHugePage - kPage; end > aligned + bytes)
        munmap(reinterpret_cast<void*>(aligned + bytes), end - (aligned + bytes));
    void* block = reinterpret_cast<void*>(aligned);
    if (madvise(block, bytes, MADV_DONTFORK) != 0) {
        munmap(block, bytes);
        return nullptr;
    }
    madvise(block, bytes, MADV_HUGEPAGE);  // where the kernel has none, 4 KiB pages
    return block;
}

Record* find(std::uintptr_t address) {
    for (Record& r : g_records)
        if (r.address.load(std::memory_order_relaxed) == address) return &r;
    return nullptr;
}

}  // namespace

ParentOnlyScope::ParentOnlyScope() { ++t_scopes; }
ParentOnlyScope::~ParentOnlyScope() { --t_scopes; }

void* allocate(std::size_t bytes, std::size_t alignment) {
    if (t_scopes == 0 || bytes < kSmallestBlock || bytes > kLargestBlock || alignment > kPage || g_child.load())
        return nullptr;
    const std::size_t size = block_size(bytes);
    const std::uint64_t owner = this_thread_owner();
    const std::lock_guard lock(g_mutex);
    Record* unused = nullptr;
    for (Record& r : g_records) {
        if (r.state == State::kept && r.bytes == size) {
            r.state = State::live;
            r.owner = owner;
            g_kept -= size;
            return reinterpret_cast<void*>(r.address.load(std::memory_order_relaxed));
        }
        if (r.state == State::unused && unused == nullptr) unused = &r;
    }
    if (unused == nullptr) return nullptr;  // the table is full: malloc serves it
    void* block = map_block(size);
    if (block == nullptr) return nullptr;
    const auto address = reinterpret_cast<std::uintptr_t>(block);
    unused->bytes = size;
    unused->owner = owner;
    unused->state = State::live;
    unused->shown = false;
    unused->address.store(address);
    if (address < g_low.load()) g_low.store(address);
    if (address + size > g_high.load()) g_high.store(address + size);
    return block;
}

bool release(void* p) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    if (address < g_low.load() || address >= g_high.load()) return false;
    if (g_child.load()) return find(address) != nullptr;  // the parent's: not this process's to free
    const std::lock_guard lock(g_mutex);
    Record* r = find(address);
    if (r == nullptr || r->state != State::live) return false;
    if (r->shown) {
        madvise(p, r->bytes, MADV_DONTFORK);
        r->shown = false;
    }
    if (g_kept + r->bytes > kKeptBytes) {
        munmap(p, r->bytes);
        r->address.store(0);
        r->state = State::unused;
        return true;
    }
    r->state = State::kept;
    g_kept += r->bytes;
    return true;
}

namespace {

// This thread's live blocks copied to its next child (shown) or hidden from it again.
void set_shown(bool shown) {
    if (t_owner == 0) return;  // this thread never allocated here
    const std::lock_guard lock(g_mutex);
    for (Record& r : g_records)
        if (r.state == State::live && r.owner == t_owner && r.shown != shown &&
            madvise(reinterpret_cast<void*>(r.address.load(std::memory_order_relaxed)), r.bytes,
                    shown ? MADV_DOFORK : MADV_DONTFORK) == 0)
            r.shown = shown;
}

}  // namespace

void show_to_child() { set_shown(true); }
void hide_after_fork() { set_shown(false); }

bool is_block(const void* p) {
    const std::lock_guard lock(g_mutex);
    const Record* r = find(reinterpret_cast<std::uintptr_t>(p));
    return r != nullptr && r->state == State::live;
}

std::size_t kept_bytes() {
    const std::lock_guard lock(g_mutex);
    return g_kept;
}

}  // namespace convcheck::runner::parent_only_memory
