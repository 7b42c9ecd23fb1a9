// An offline run's manifest (docs/offline.md): DIR/manifest.json, written by `convcheck export`, read by
// `convcheck judge`. It names the run (suite, seed, mode filter, the backend's claims, the declarations file) and
// every case of it: its descriptor in every dialect it has, its data seed, accuracy mode and pass, and for an
// exported case the input files it has and the output files the device writes (names, dtypes, shapes); a case
// export does not carry is listed with the reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "convcheck/runner/case.hpp"
#include "convcheck/runner/plugin_loader.hpp"

namespace convcheck::runner {

inline constexpr const char* kOfflineFormat = "convcheck-offline";
inline constexpr int kOfflineFormatVersion = 1;

// The claims an offline backend makes, in the exec protocol's words (docs/exec-protocol.md: "name", "dtypes",
// ...), read into what a negotiated plugin would say. Throws std::invalid_argument naming the claim.
PluginInfo offline_info(const nlohmann::json& claims);
// The claims of export without --claims: every dtype, rank, format and pass the exec protocol names, f32 accumulation.
nlohmann::json default_offline_claims();

// A case's manifest entry without its files: case (the file stem), id, name, seed, mode, fill, pass, descriptor
// (the exec protocol's descriptor object, with its canonical string), dialects (every framework's spelling).
nlohmann::json offline_case_entry(const Case& c);

struct OfflineCaseEntry {
    std::string id, descriptor, mode;
    std::uint64_t seed = 0;
    bool exported = false;
};

struct OfflineManifest {
    std::string suite, mode_filter, expectations, expectations_checksum, suite_checksum;
    std::uint64_t seed = 1;
    nlohmann::json claims, selection;
    std::vector<OfflineCaseEntry> cases;
};

// Reads DIR/manifest.json. Throws std::invalid_argument naming the field, its value and the rule (exit code 2).
OfflineManifest read_offline_manifest(const std::filesystem::path& dir);

}  // namespace convcheck::runner
