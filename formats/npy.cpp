#include "convcheck/formats/npy.hpp"

#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>

#include "convcheck/core/dtype.hpp"

namespace convcheck::npy {

static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian host");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

struct TypeInfo {
    ElementType type;
    const char* descr;
    int size;
};
constexpr TypeInfo kTypes[] = {
    {ElementType::f16, "<f2", 2}, {ElementType::f32, "<f4", 4}, {ElementType::f64, "<f8", 8},
    {ElementType::u16, "<u2", 2}, {ElementType::i64, "<i8", 8}, {ElementType::u8, "|u1", 1},
    {ElementType::i8, "|i1", 1},  {ElementType::i32, "<i4", 4},
};

// Printable excerpt of untrusted text for an error message.
std::string excerpt(std::string_view text) {
    std::string s;
    for (char c : text.substr(0, 40)) s += (c >= 0x20 && c < 0x7f) ? c : '?';
    if (text.size() > 40) s += "...";
    return s;
}

// The header is a Python dict literal. This is a small recursive-descent reader of exactly the
// subset numpy writes: string keys; values that are strings, True/False, or tuples of integers.
class HeaderReader {
public:
    explicit HeaderReader(std::string_view text) : text_(text) {}

    struct Value {
        enum Kind { string, boolean, tuple } kind = string;
        std::string text;
        bool flag = false;
        std::vector<std::int64_t> items;
    };

    std::map<std::string, Value> read_dict() {
        std::map<std::string, Value> dict;
        expect('{');
        while (true) {
            skip_space();
            if (peek() == '}') break;
            std::string key = read_string();
            skip_space();
            expect(':');
            skip_space();
            Value value = read_value();
            if (!dict.emplace(key, std::move(value)).second) throw NpyError("header", key, "the key appears twice");
            skip_space();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            skip_space();
            if (peek() != '}') fail("',' or '}' after a value");
        }
        ++pos_;
        skip_space();
        if (pos_ != text_.size()) fail("only spaces and a newline after the dict");
        return dict;
    }

private:
    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) ++pos_;
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw NpyError("header", excerpt(text_.substr(std::min(pos_, text_.size()))),
                       "expected " + what + " at offset " + std::to_string(pos_) + " of the header dict");
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("'") + c + "'");
        ++pos_;
    }
    std::string read_string() {
        const char quote = peek();
        if (quote != '\'' && quote != '"') fail("a quoted string");
        ++pos_;
        const std::size_t end = text_.find(quote, pos_);
        if (end == std::string_view::npos) fail("a closing quote");
        std::string s(text_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return s;
    }
    std::int64_t read_integer() {
        const char* first = text_.data() + pos_;
        const char* last = text_.data() + text_.size();
        std::int64_t v = 0;
        auto [ptr, ec] = std::from_chars(first, last, v);
        if (ec == std::errc::result_out_of_range)
            throw NpyError("shape", excerpt(text_.substr(pos_)), "a dimension does not fit in 64 bits");
        if (ec != std::errc() || ptr == first) fail("an integer");
        pos_ += static_cast<std::size_t>(ptr - first);
        if (peek() == 'L') ++pos_;  // Python 2 long suffix, as old numpy wrote it
        return v;
    }
    Value read_value() {
        Value v;
        const char c = peek();
        if (c == '\'' || c == '"') {
            v.text = read_string();
        } else if (text_.substr(pos_, 4) == "True") {
            v.kind = Value::boolean, v.flag = true, pos_ += 4;
        } else if (text_.substr(pos_, 5) == "False") {
            v.kind = Value::boolean, v.flag = false, pos_ += 5;
        } else if (c == '(') {
            v.kind = Value::tuple;
            ++pos_;
            skip_space();
            while (peek() != ')') {
                if (v.items.size() >= 64) throw NpyError("shape", "(...)", "more than 64 dimensions");
                v.items.push_back(read_integer());
                skip_space();
                if (peek() == ',') {
                    ++pos_;
                    skip_space();
                } else if (peek() != ')') {
                    fail("',' or ')' in the shape tuple");
                }
            }
            ++pos_;
        } else {
            fail("a string, True, False or a tuple");
        }
        return v;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

std::uint32_t read_le(const std::byte* p, int bytes) {
    std::uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | std::to_integer<std::uint32_t>(p[i]);
    return v;
}

// The data of a fortran_order file (the first index varies fastest: element (i0, i1, ...) is at
// i0 + d0*(i1 + d1*(i2 + ...))) rearranged into C order (the last index varies fastest), so that
// every reader of an Array sees one layout. Walks the C-order positions with an odometer over the
// indices and keeps the Fortran offset in step, one element copy each.
std::vector<std::byte> fortran_to_c_order(std::span<const std::byte> data, const std::vector<std::int64_t>& shape,
                                          int element_size) {
    std::vector<std::byte> out(data.size());
    if (data.empty()) return out;
    const std::size_t rank = shape.size();
    std::vector<std::int64_t> fortran_stride(rank, 1);  // in elements
    for (std::size_t a = 1; a < rank; ++a) fortran_stride[a] = fortran_stride[a - 1] * shape[a - 1];
    std::vector<std::int64_t> index(rank, 0);
    std::int64_t from = 0;
    const std::size_t size = static_cast<std::size_t>(element_size);
    for (std::size_t to = 0; to < out.size(); to += size) {
        std::memcpy(out.data() + to, data.data() + static_cast<std::size_t>(from) * size, size);
        for (std::size_t a = rank; a-- > 0;) {  // next C-order index: the last axis first
            if (++index[a] < shape[a]) {
                from += fortran_stride[a];
                break;
            }
            from -= (shape[a] - 1) * fortran_stride[a];
            index[a] = 0;
        }
    }
    return out;
}

}  // namespace

NpyError::NpyError(std::string field, std::string value, std::string rule)
    : std::runtime_error("npy: " + field + " = " + value + ": " + rule), field_(std::move(field)) {}

std::string_view descr(ElementType type) { return kTypes[static_cast<int>(type)].descr; }
int size_of(ElementType type) { return kTypes[static_cast<int>(type)].size; }

std::int64_t Array::elements() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

double Array::get(std::int64_t i) const {
    const std::byte* p = data.data() + i * size_of(type);
    switch (type) {
        case ElementType::f16: {
            std::uint16_t bits;
            std::memcpy(&bits, p, 2);
            return f16_to_f32(bits);
        }
        case ElementType::f32: {
            float v;
            std::memcpy(&v, p, 4);
            return v;
        }
        case ElementType::f64: {
            double v;
            std::memcpy(&v, p, 8);
            return v;
        }
        case ElementType::u16: {
            std::uint16_t v;
            std::memcpy(&v, p, 2);
            return v;
        }
        case ElementType::i64: {
            std::int64_t v;
            std::memcpy(&v, p, 8);
            return static_cast<double>(v);
        }
        case ElementType::u8: return static_cast<double>(std::to_integer<std::uint8_t>(*p));
        case ElementType::i8: return static_cast<double>(static_cast<std::int8_t>(std::to_integer<std::uint8_t>(*p)));
        case ElementType::i32: {
            std::int32_t v;
            std::memcpy(&v, p, 4);
            return static_cast<double>(v);
        }
    }
    return 0.0;
}

Array parse(std::span<const std::byte> file, const Limits& limits) {
    if (file.size() < kMagicSize + 4 || std::memcmp(file.data(), kMagic, kMagicSize) != 0)
        throw NpyError("magic", std::to_string(file.size()) + " bytes", "a .npy file starts with \\x93NUMPY");
    const int major = std::to_integer<int>(file[6]);
    const int minor = std::to_integer<int>(file[7]);
    if (major < 1 || major > 3 || minor != 0)
        throw NpyError("version", std::to_string(major) + "." + std::to_string(minor), "must be 1.0, 2.0 or 3.0");
    const int length_bytes = major == 1 ? 2 : 4;
    const std::size_t prefix = kMagicSize + 2 + length_bytes;
    if (file.size() < prefix) throw NpyError("header_len", "(truncated)", "the file ends inside the header length");
    const std::uint64_t header_len = read_le(file.data() + 8, length_bytes);
    if (header_len > static_cast<std::uint64_t>(limits.max_header_bytes))
        throw NpyError("header_len", std::to_string(header_len),
                       "exceeds the limit of " + std::to_string(limits.max_header_bytes) + " bytes");
    if (header_len > file.size() - prefix)
        throw NpyError("header_len", std::to_string(header_len),
                       "exceeds the " + std::to_string(file.size() - prefix) + " bytes left in the file");
    const std::string_view header(reinterpret_cast<const char*>(file.data() + prefix), header_len);
    for (char c : header)
        if (c == '\0') throw NpyError("header", excerpt(header), "contains a NUL byte");

    auto dict = HeaderReader(header).read_dict();
    for (const auto& [key, value] : dict)
        if (key != "descr" && key != "fortran_order" && key != "shape")
            throw NpyError("header", key, "unknown key (the keys are descr, fortran_order, shape)");
    for (const char* key : {"descr", "fortran_order", "shape"})
        if (!dict.count(key)) throw NpyError(key, "(missing)", "the header dict must have this key");

    Array array;
    const auto& d = dict["descr"];
    bool known = false;
    for (const auto& t : kTypes)
        if (d.kind == HeaderReader::Value::string && d.text == t.descr) array.type = t.type, known = true;
    if (!known)
        throw NpyError("descr", excerpt(d.text),
                       "unsupported element type (supported: little-endian <f2 <f4 <f8 <u2 <i8 <i4, and |u1 |i1)");
    const auto& fortran = dict["fortran_order"];
    if (fortran.kind != HeaderReader::Value::boolean)
        throw NpyError("fortran_order", excerpt(fortran.text), "must be True or False");
    const auto& shape = dict["shape"];
    if (shape.kind != HeaderReader::Value::tuple) throw NpyError("shape", excerpt(shape.text), "must be a tuple");
    if (static_cast<int>(shape.items.size()) > limits.max_rank)
        throw NpyError("shape", std::to_string(shape.items.size()) + " dimensions",
                       "more than the limit of " + std::to_string(limits.max_rank));
    // Element count and byte size, each step checked for overflow and against the limit.
    std::int64_t bytes = size_of(array.type);
    for (std::int64_t dim : shape.items) {
        if (dim < 0) throw NpyError("shape", std::to_string(dim), "a dimension must be >= 0");
        if (__builtin_mul_overflow(bytes, dim, &bytes) || bytes > limits.max_data_bytes)
            throw NpyError("shape", "(" + std::to_string(shape.items.size()) + " dimensions)",
                           "the data size exceeds the limit of " + std::to_string(limits.max_data_bytes) + " bytes");
    }
    const std::size_t data_offset = prefix + header_len;
    const std::size_t available = file.size() - data_offset;
    if (static_cast<std::uint64_t>(bytes) != available)
        throw NpyError("shape", "(" + std::to_string(bytes) + " data bytes)",
                       "the file holds " + std::to_string(available) + " data bytes after the header");
    array.shape = shape.items;
    const std::span<const std::byte> data = file.subspan(data_offset);
    if (fortran.flag) array.data = fortran_to_c_order(data, array.shape, size_of(array.type));
    else array.data.assign(data.begin(), data.end());
    return array;
}

Array read_file(const std::filesystem::path& path, const Limits& limits) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw NpyError("file", path.string(), "cannot be read: " + ec.message());
    const std::uint64_t limit =
        static_cast<std::uint64_t>(limits.max_header_bytes) + static_cast<std::uint64_t>(limits.max_data_bytes) + 16;
    if (size > limit)
        throw NpyError("file", path.string(), std::to_string(size) + " bytes exceeds the limit of " + std::to_string(limit));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw NpyError("file", path.string(), "cannot be opened");
    std::vector<std::byte> bytes(size);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
    if (!in) throw NpyError("file", path.string(), "short read");
    try {
        return parse(bytes, limits);
    } catch (const NpyError& e) {
        throw NpyError("file", path.string(), e.what());
    }
}

std::vector<std::byte> serialize(const Array& array) {
    std::int64_t bytes = size_of(array.type);
    for (auto d : array.shape) {
        if (d < 0 || __builtin_mul_overflow(bytes, d, &bytes))
            throw NpyError("shape", std::to_string(d), "dimensions must be >= 0 and the size fit in 64 bits");
    }
    if (static_cast<std::uint64_t>(bytes) != array.data.size())
        throw NpyError("data", std::to_string(array.data.size()) + " bytes",
                       "the shape needs " + std::to_string(bytes) + " bytes");
    std::string dict = "{'descr': '" + std::string(descr(array.type)) + "', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < array.shape.size(); ++i) dict += std::to_string(array.shape[i]) + ", ";
    if (array.shape.size() > 1) dict.resize(dict.size() - 2);
    else if (array.shape.size() == 1) dict.resize(dict.size() - 1);
    dict += "), }";
    const int major = dict.size() + 1 + 10 <= 65535 ? 1 : 2;
    const std::size_t prefix = kMagicSize + 2 + (major == 1 ? 2 : 4);
    std::size_t total = prefix + dict.size() + 1;
    const std::size_t padded = (total + 63) / 64 * 64;
    dict.append(padded - total, ' ');
    dict += '\n';
    std::vector<std::byte> out(prefix);
    std::memcpy(out.data(), kMagic, kMagicSize);
    out[6] = std::byte(major);
    out[7] = std::byte(0);
    const std::uint32_t len = static_cast<std::uint32_t>(dict.size());
    for (int i = 0; i < (major == 1 ? 2 : 4); ++i) out[8 + i] = std::byte((len >> (8 * i)) & 0xff);
    for (char c : dict) out.push_back(std::byte(c));
    out.insert(out.end(), array.data.begin(), array.data.end());
    return out;
}

void write_file(const std::filesystem::path& path, const Array& array) {
    const auto bytes = serialize(array);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw NpyError("file", path.string(), "cannot be written");
}

Array from_f64(const std::vector<double>& values, std::vector<std::int64_t> shape) {
    return from_bytes(ElementType::f64, values.data(), std::move(shape));
}

Array from_i64(const std::vector<std::int64_t>& values, std::vector<std::int64_t> shape) {
    return from_bytes(ElementType::i64, values.data(), std::move(shape));
}

Array from_bytes(ElementType type, const void* data, std::vector<std::int64_t> shape) {
    Array a;
    a.type = type;
    a.shape = std::move(shape);
    const auto* p = static_cast<const std::byte*>(data);
    a.data.assign(p, p + a.elements() * size_of(type));
    return a;
}

}  // namespace convcheck::npy
