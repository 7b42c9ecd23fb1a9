// The .npy reader and writer: round trips, files as numpy writes them, and hostile headers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "convcheck/formats/npy.hpp"
#include "convcheck/formats/sha256.hpp"

namespace convcheck::npy {
namespace {

std::vector<std::byte> bytes_of(const std::string& s) {
    std::vector<std::byte> b(s.size());
    if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());  // memcpy(nullptr, ..., 0) is UB
    return b;
}

// A version-1.0 file with this header dict (padded as numpy pads it) and `data_bytes` zero bytes.
std::vector<std::byte> file_with_header(std::string dict, std::size_t data_bytes, int major = 1) {
    const std::size_t prefix = major == 1 ? 10 : 12;
    std::size_t total = prefix + dict.size() + 1;
    dict.append((total + 63) / 64 * 64 - total, ' ');
    dict += '\n';
    std::string s = std::string("\x93NUMPY", 6) + char(major) + char(0);
    const std::uint32_t len = static_cast<std::uint32_t>(dict.size());
    for (std::size_t i = 0; i < prefix - 8; ++i) s += char((len >> (8 * i)) & 0xff);
    s += dict;
    s.append(data_bytes, '\0');
    return bytes_of(s);
}

void expect_refused(const std::vector<std::byte>& file, const std::string& field, const std::string& fragment) {
    try {
        parse(file);
        ADD_FAILURE() << "accepted a file that breaks '" << fragment << "'";
    } catch (const NpyError& e) {
        EXPECT_EQ(e.field(), field) << e.what();
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(Npy, RoundTripsEveryElementType) {
    const std::vector<double> values{1.5, -2.0, 0.0, 3.25, 1e300, -0.0};
    Array a = from_f64(values, {2, 3});
    Array b = parse(serialize(a));
    EXPECT_EQ(b.type, ElementType::f64);
    EXPECT_EQ(b.shape, (std::vector<std::int64_t>{2, 3}));
    for (int i = 0; i < 6; ++i) EXPECT_EQ(b.get(i), values[i]) << "element " << i;

    const std::vector<std::int64_t> ints{-5, 0, std::int64_t(1) << 52};
    Array c = parse(serialize(from_i64(ints, {3})));
    EXPECT_EQ(c.get(2), std::ldexp(1.0, 52));

    const std::uint16_t halves[] = {0x3c00, 0xc000, 0x0001};  // 1, -2, smallest f16 subnormal
    Array h = parse(serialize(from_bytes(ElementType::f16, halves, {3})));
    EXPECT_EQ(h.get(0), 1.0);
    EXPECT_EQ(h.get(1), -2.0);
    EXPECT_EQ(h.get(2), std::ldexp(1.0, -24));
    Array u = parse(serialize(from_bytes(ElementType::u16, halves, {1, 3})));
    EXPECT_EQ(u.get(1), double(0xc000));

    // the quantized cases' integers (offline runs): u8, s8 and s32, with numpy's descrs
    const std::uint8_t bytes[] = {0, 255, 128};
    Array u8 = parse(serialize(from_bytes(ElementType::u8, bytes, {3})));
    EXPECT_EQ(descr(u8.type), "|u1");
    EXPECT_EQ(u8.get(1), 255.0);
    Array s8 = parse(serialize(from_bytes(ElementType::i8, bytes, {3})));
    EXPECT_EQ(descr(s8.type), "|i1");
    EXPECT_EQ(s8.get(1), -1.0);
    EXPECT_EQ(s8.get(2), -128.0);
    const std::int32_t words[] = {-2147483647 - 1, 2147483647};
    Array s32 = parse(serialize(from_bytes(ElementType::i32, words, {2})));
    EXPECT_EQ(descr(s32.type), "<i4");
    EXPECT_EQ(s32.get(0), -2147483648.0);
    EXPECT_EQ(s32.get(1), 2147483647.0);
}

TEST(Npy, ScalarAndEmptyShapes) {
    const double one = 1.0;
    Array s = parse(serialize(from_bytes(ElementType::f64, &one, {})));
    EXPECT_TRUE(s.shape.empty());
    EXPECT_EQ(s.elements(), 1);
    Array e = parse(serialize(from_bytes(ElementType::f32, nullptr, {0, 4})));
    EXPECT_EQ(e.elements(), 0);
}

TEST(Npy, DataStartsAtA64ByteBoundaryAsNumpyWritesIt) {
    const auto bytes = serialize(from_f64({1.0, 2.0}, {2}));
    EXPECT_EQ((bytes.size() - 16) % 64, 0u);
    // numpy 1.24's header for np.array([1.0, 2.0]): checked byte for byte.
    const std::string header(reinterpret_cast<const char*>(bytes.data()) + 10, 118);
    EXPECT_EQ(header.substr(0, 60), "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }   ");
    EXPECT_EQ(header.back(), '\n');
}

TEST(Npy, AcceptsWhatNumpyWrites) {
    // Header text exactly as numpy.save writes for np.zeros((2, 3), '<f4') and a version 2.0 file.
    Array a = parse(file_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24));
    EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
    Array b = parse(file_with_header("{\"descr\": \"<i8\", \"fortran_order\": False, \"shape\": (4,)}", 32, 2));
    EXPECT_EQ(b.elements(), 4);
    // Python 2's long suffix, still found in old files.
    Array c = parse(file_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (1L, 2L), }", 16));
    EXPECT_EQ(c.elements(), 2);
}

TEST(Npy, RefusesBadMagicVersionAndTruncation) {
    expect_refused(bytes_of("hello"), "magic", "\\x93NUMPY");
    auto f = file_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4);
    f[6] = std::byte(4);
    expect_refused(f, "version", "1.0, 2.0 or 3.0");
    auto g = file_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4);
    g.resize(40);
    expect_refused(g, "header_len", "bytes left");
    auto h = file_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 8);
    expect_refused(h, "shape", "holds 8 data bytes");
}

TEST(Npy, RefusesUnsupportedTypesAndLayouts) {
    expect_refused(file_with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", 4), "descr",
                   "unsupported element type");
    expect_refused(file_with_header("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", 1), "descr",
                   "unsupported");
    // Fortran order is read (npy_fortran_test.cpp); a vector is the same bytes in either order.
    EXPECT_EQ(parse(file_with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 4), }", 16)).elements(), 4);
    expect_refused(file_with_header("{'descr': '<f4', 'shape': (1,), }", 4), "fortran_order", "must have");
    expect_refused(file_with_header("{'descr': '<f4', 'fortran_order': 'yes', 'shape': (1,), }", 4), "fortran_order",
                   "True or False");
    expect_refused(file_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", 4),
                   "header", "expected");
    expect_refused(file_with_header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 4),
                   "header", "twice");
}

TEST(Npy, HostileSizesAreRefusedBeforeAnyAllocation) {
    // 2^62 elements: the byte size overflows 64 bits.
    expect_refused(file_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 0),
                   "shape", "exceeds the limit");
    // A dimension beyond int64.
    expect_refused(file_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0),
                   "shape", "64 bits");
    expect_refused(file_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", 0), "shape", ">= 0");
    // A product that wraps to a small number in 64-bit arithmetic: 2^32 * 2^32 * 8.
    expect_refused(file_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 0),
                   "shape", "exceeds the limit");
    // A version 2.0 header length of 4 GiB in a tiny file.
    auto f = file_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4, 2);
    f[8] = f[9] = f[10] = f[11] = std::byte(0xff);
    expect_refused(f, "header_len", "exceeds the limit");
    Limits small;
    small.max_data_bytes = 16;
    EXPECT_THROW(parse(serialize(from_f64(std::vector<double>(3), {3})), small), NpyError);
}

TEST(Sha256, MatchesTheFipsExamples) {
    EXPECT_EQ(convcheck::vectors::sha256_hex(bytes_of("")),
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(convcheck::vectors::sha256_hex(bytes_of("abc")),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(convcheck::vectors::sha256_hex(bytes_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    // 1,000,000 x 'a' crosses many blocks.
    EXPECT_EQ(convcheck::vectors::sha256_hex(bytes_of(std::string(1000000, 'a'))),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace convcheck::npy
