// Turns a fuzzer's bytes into bounded values for the structured targets (the differential fuzzer,
// the CC grid, the ABI checks). Works the same under libFuzzer and the g++ replay driver, so a
// corpus file means the same problem in both. When the bytes run out every read returns the low
// end of its range: short inputs are small problems.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace convcheck::fuzz {

class FuzzInput {
public:
    FuzzInput(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

    // An integer in [lo, hi] (hi - lo < 2^32) from the next 1, 2 or 4 bytes.
    std::int64_t integer(std::int64_t lo, std::int64_t hi) {
        const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
        const int bytes = span <= 0x100 ? 1 : span <= 0x10000 ? 2 : 4;
        std::uint64_t v = 0;
        for (int i = 0; i < bytes; ++i) v = (v << 8) | next();
        return lo + static_cast<std::int64_t>(v % span);
    }
    bool flag() { return next() & 1; }
    std::uint64_t u64() {
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v = (v << 8) | next();
        return v;
    }
    // The rest of the input as text.
    std::string rest() {
        std::string s(reinterpret_cast<const char*>(data_ + pos_), size_ - pos_);
        pos_ = size_;
        return s;
    }
    std::size_t remaining() const { return size_ - pos_; }

private:
    std::uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

// A fuzz target's verdict on a property: prints the reproducer and aborts (a libFuzzer crash,
// a ctest failure in replay).
[[noreturn]] void property_failed(const std::string& target, const std::string& what);

}  // namespace convcheck::fuzz
