// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0), so that golden vectors
// are plain arrays that numpy and any other tool can open.
//
// The format (numpy/lib/format.py): the magic "\x93NUMPY", one byte major and one byte minor
// version, a little-endian header length (2 bytes in 1.0, 4 bytes in 2.0/3.0), then an ASCII
// (3.0: UTF-8) Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a newline, then the raw data: C order, or Fortran order (the first index
// varying fastest) when 'fortran_order' is True, as numpy writes a transposed array.
//
// Only what golden vectors need is accepted: little-endian f2, f4, f8, u2 (bf16 bit patterns, since
// numpy has no bfloat16) and i8, in either order; a Fortran-order file is rearranged into C order on
// reading (Array::data is always C order; the writer writes C order). Everything else is refused with an NpyError naming the
// field, the value and the rule. The reader never trusts a size: the header length, every dimension,
// the element count and the byte size are checked against the file size and a limit before any
// allocation, so a hostile file cannot make it allocate without bound, overflow or crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace convcheck::npy {

// Element types of a .npy file, by their numpy `descr` ("<f4", ...).
enum class ElementType : int { f16 = 0, f32 = 1, f64 = 2, u16 = 3, i64 = 4, u8 = 5, i8 = 6, i32 = 7 };

// "<f2", "<f4", "<f8", "<u2", "<i8", "|u1", "|i1", "<i4".
std::string_view descr(ElementType type);
int size_of(ElementType type);

// A malformed or unsupported file: what() is "npy: <field> = <value>: <rule>".
class NpyError : public std::runtime_error {
public:
    NpyError(std::string field, std::string value, std::string rule);
    const std::string& field() const { return field_; }

private:
    std::string field_;
};

struct Array {
    ElementType type = ElementType::f32;
    std::vector<std::int64_t> shape;  // C order, outermost first; () is a scalar (one element)
    std::vector<std::byte> data;      // little-endian elements in C order, exactly elements() * size_of(type) bytes

    std::int64_t elements() const;
    // Element i widened to double (i64 exactly when |v| <= 2^53; u16 as its integer value).
    double get(std::int64_t i) const;
};

// Refusals that protect the reader from hostile sizes.
struct Limits {
    std::int64_t max_header_bytes = 65536;
    std::int64_t max_data_bytes = std::int64_t(1) << 30;  // 1 GiB
    int max_rank = 32;                                   // numpy's NPY_MAXDIMS
};

// Parses a whole .npy file held in memory. Throws NpyError.
Array parse(std::span<const std::byte> file, const Limits& limits = {});
// Reads and parses a file; the file size is checked against the limits before reading.
Array read_file(const std::filesystem::path& path, const Limits& limits = {});

// The .npy bytes of `array` (format 1.0, or 2.0 when the header does not fit 1.0), header padded so
// that the data starts at a multiple of 64 bytes, as numpy writes it. Throws NpyError when the
// data size does not match the shape.
std::vector<std::byte> serialize(const Array& array);
void write_file(const std::filesystem::path& path, const Array& array);

// Helpers to build arrays from typed values.
Array from_f64(const std::vector<double>& values, std::vector<std::int64_t> shape);
Array from_i64(const std::vector<std::int64_t>& values, std::vector<std::int64_t> shape);
// Raw little-endian elements of `type` (e.g. a buffer of f16 or bf16 bits) with the given shape.
Array from_bytes(ElementType type, const void* data, std::vector<std::int64_t> shape);

}  // namespace convcheck::npy
