// convcheck_vectors: writes a golden-vector set from its spec.
//   convcheck_vectors generate <spec.json> <out_dir>
// vectors/tools/regenerate.py runs it for every set, verifies the result with the independent
// references, and shows what changed before replacing the stored sets.
#include <cstdio>
#include <exception>
#include <string>

#include "generate.hpp"

int main(int argc, char** argv) {
    if (argc != 4 || std::string(argv[1]) != "generate") {
        std::fprintf(stderr, "usage: %s generate <spec.json> <out_dir>\n", argv[0]);
        return 2;
    }
    try {
        const auto set = convcheck::vectors::generate_set(argv[2], argv[3]);
        std::printf("%s: %zu cases written to %s\n", set.name.c_str(), set.cases.size(), argv[3]);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
