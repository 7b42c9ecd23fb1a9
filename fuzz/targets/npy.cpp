// Fuzz target: the .npy reader (formats/npy). Properties: any bytes either parse or throw NpyError
// (never a crash, UB, or an allocation larger than the input: the reader allocates only the data it
// was given); what parses re-serializes and parses back to the same type, shape and data.
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_input.hpp"
#include "convcheck/formats/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace npy = convcheck::npy;
    std::vector<std::byte> bytes(size);
    if (size) std::memcpy(bytes.data(), data, size);
    npy::Limits limits;
    limits.max_data_bytes = 1 << 20;  // a fuzzed file is small; the limit itself is under test
    npy::Array a;
    try {
        a = npy::parse(bytes, limits);
    } catch (const npy::NpyError&) {
        return 0;
    }
    if (static_cast<std::int64_t>(a.data.size()) != a.elements() * npy::size_of(a.type))
        convcheck::fuzz::property_failed("npy", "data size does not match the shape");
    if (a.data.size() > size) convcheck::fuzz::property_failed("npy", "more data than the file holds");
    const npy::Array b = npy::parse(npy::serialize(a), limits);
    if (b.type != a.type || b.shape != a.shape || b.data != a.data)
        convcheck::fuzz::property_failed("npy", "serialize/parse round trip differs");
    for (std::int64_t i = 0; i < a.elements() && i < 64; ++i) (void)a.get(i);
    return 0;
}
