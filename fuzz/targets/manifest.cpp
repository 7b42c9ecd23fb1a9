// Fuzz target: the golden-vector manifest loader (formats/manifest). Properties: any text either
// loads or throws ManifestError (never a JSON library exception, a crash or UB); what loads has
// plain file names only and round-trips through to_json.
#include <cstdint>
#include <string>

#include "fuzz_input.hpp"
#include "convcheck/formats/manifest.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace v = convcheck::vectors;
    const std::string text(reinterpret_cast<const char*>(data), size);
    v::VectorSet set;
    try {
        set = v::parse_manifest(text, "/nonexistent");
    } catch (const v::ManifestError&) {
        return 0;
    }
    for (const auto& c : set.cases)
        for (const auto& a : c.arrays)
            if (a.file.find('/') != std::string::npos || a.file.find("..") != std::string::npos)
                convcheck::fuzz::property_failed("manifest", "accepted a file name outside the set folder: " + a.file);
    const std::string printed = v::to_json(set);
    const v::VectorSet again = v::parse_manifest(printed, "/nonexistent");
    if (v::to_json(again) != printed) convcheck::fuzz::property_failed("manifest", "to_json/parse round trip differs");
    return 0;
}
