// SHA-256 (FIPS 180-4), for the checksums of golden-vector arrays. Small and dependency-free:
// the project takes no crypto library, and a checksum is all the manifest needs.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace convcheck::vectors {

// Lower-case hex digest of `bytes`, as Python's hashlib.sha256(b).hexdigest() prints it.
std::string sha256_hex(std::span<const std::byte> bytes);

}  // namespace convcheck::vectors
