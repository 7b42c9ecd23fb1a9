// convcheck_vectors: writes a golden-vector set from its spec, or validates a plugin against sets.
//   convcheck_vectors generate <spec.json> <out_dir>
//   convcheck_vectors check --plugin <libplugin.so> [--plugin-option key=value,...] <set_dir>...
// vectors/tools/regenerate.py runs `generate` for every set, verifies the result with the
// independent references, and shows what changed before replacing the stored sets.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "check_plugin.hpp"
#include "generate.hpp"

int main(int argc, char** argv) {
    const std::string command = argc > 1 ? argv[1] : "";
    try {
        if (command == "generate" && argc == 4) {
            const auto set = convcheck::vectors::generate_set(argv[2], argv[3]);
            std::printf("%s: %zu cases written to %s\n", set.name.c_str(), set.cases.size(), argv[3]);
            return 0;
        }
        if (command == "check" && argc >= 5 && std::string(argv[2]) == "--plugin") {
            int first_set = 4;
            std::string options;
            if (argc >= 7 && std::string(argv[4]) == "--plugin-option") options = argv[5], first_set = 6;
            std::vector<std::filesystem::path> sets(argv + first_set, argv + argc);
            const auto r = convcheck::vectors::check_plugin(argv[3], options, sets, stdout);
            std::printf("total: %d passed, %d failed, %d unsupported, %d not applicable, %d skipped\n", r.passed, r.failed,
                        r.unsupported, r.not_applicable, r.skipped);
            return r.failed == 0 && r.passed > 0 ? 0 : 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "convcheck_vectors: %s\n", e.what());
        return 2;
    }
    std::fprintf(stderr,
                 "usage: %s generate <spec.json> <out_dir>\n"
                 "       %s check --plugin <libplugin.so> [--plugin-option key=value,...] <set_dir>...\n",
                 argv[0], argv[0]);
    return 2;
}
