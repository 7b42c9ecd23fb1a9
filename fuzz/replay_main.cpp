// The replay driver: runs a fuzz target (LLVMFuzzerTestOneInput) over files, the way libFuzzer
// would run them, but built with the project compiler (g++) and without libFuzzer. ctest runs it
// over fuzz/corpus/<target>/ on every build, so every seed and every past crash stays a test.
//   fuzz_<target>_replay <file-or-directory>...
//   fuzz_<target>_replay --expect-failure <file>   (fuzz/open/: an input that still fails)
// --expect-failure runs the input in a child process and succeeds only if the child crashes or
// exits non-zero; once the input passes it fails, telling the owner to move it into the corpus.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<char> read_bytes(const std::filesystem::path& f) {
    std::ifstream in(f, std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

int expect_failure(const char* path) {
    const std::vector<char> bytes = read_bytes(path);
    std::fflush(stdout);
    const pid_t child = fork();
    if (child < 0) return 2;
    if (child == 0) {
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        std::printf("replay: %s no longer fails: the bug is fixed; move the input into fuzz/corpus/<target>/\n", path);
        return 1;
    }
    std::printf("replay: %s still fails (expected while the bug is open)\n", path);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--expect-failure") return expect_failure(argv[2]);
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path p(argv[i]);
        if (std::filesystem::is_directory(p)) {
            for (const auto& e : std::filesystem::recursive_directory_iterator(p))
                if (e.is_regular_file()) files.push_back(e.path());
        } else if (std::filesystem::is_regular_file(p)) {
            files.push_back(p);
        } else {
            std::fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
            return 2;
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        std::fprintf(stderr, "replay: no inputs (an empty corpus is a mistake)\n");
        return 2;
    }
    for (const auto& f : files) {
        const std::vector<char> bytes = read_bytes(f);
        // Print before running, so that the input that crashes is the last line printed.
        std::printf("replay: %s (%zu bytes)\n", f.string().c_str(), bytes.size());
        std::fflush(stdout);
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("replay: %zu inputs, no crash\n", files.size());
    return 0;
}
