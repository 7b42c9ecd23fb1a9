// Fortran-ordered .npy files (fortran_order: True, what numpy writes for a transposed array) are read
// as the same array in C order: checked on a hand-built file and on files numpy itself writes, ranks 1
// to 5 and every element type the reader supports, against the C-order file of the same array.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "convcheck/formats/npy.hpp"

namespace convcheck::npy {
namespace {

namespace fs = std::filesystem;

TEST(NpyFortran, HandBuiltTwoByThreeIsTransposedToCOrder) {
    // The 2x3 array [[0, 1, 2], [3, 4, 5]] stored column by column: 0 3 1 4 2 5.
    std::string dict = "{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3), }";
    dict.append((10 + dict.size() + 1 + 63) / 64 * 64 - (10 + dict.size() + 1), ' ');
    dict += '\n';
    std::string file("\x93NUMPY\x01\x00", 8);
    file += char(dict.size());
    file += char(0);
    file += dict;
    for (std::int64_t v : {0, 3, 1, 4, 2, 5}) file.append(reinterpret_cast<const char*>(&v), 8);
    std::vector<std::byte> bytes(file.size());
    std::memcpy(bytes.data(), file.data(), file.size());
    const Array a = parse(bytes);
    ASSERT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
    for (std::int64_t i = 0; i < 6; ++i) EXPECT_EQ(a.get(i), static_cast<double>(i)) << "element " << i;
}

// numpy writes, for each element type and shape: <name>.c.npy (the array, C order) and <name>.f.npy
// (np.asfortranarray of it, saved by np.save; where that array is also C-contiguous - rank 1, unit or
// empty dims - np.save would write C order, so numpy's own write_array_header_1_0 writes the header
// with fortran_order True before the Fortran-order bytes). names.txt lists the cases.
constexpr const char* kWriter = R"PY(
import sys, numpy as np
out = sys.argv[1]
rng = np.random.default_rng(7)
shapes = [(5,), (2, 3), (3, 1, 4), (2, 3, 4, 5), (2, 1, 3, 2, 3), (3, 0, 2), (1, 1, 1)]
types = {"f2": np.float16, "f4": np.float32, "f8": np.float64, "u2": np.uint16, "i8": np.int64}
names = []
for code, t in types.items():
    for shape in shapes:
        n = int(np.prod(shape))
        if code in ("u2", "i8"):
            a = rng.integers(0, 60000, size=n).astype(t).reshape(shape)
        else:
            a = rng.standard_normal(n).astype(t).reshape(shape)
        name = f"{code}_" + "x".join(map(str, shape))
        np.save(f"{out}/{name}.c.npy", a)
        f = np.asfortranarray(a)
        if f.flags.c_contiguous:  # rank 1, unit or empty dims: np.save would say C order; say Fortran
            with open(f"{out}/{name}.f.npy", "wb") as fh:
                np.lib.format.write_array_header_1_0(
                    fh, {"descr": np.lib.format.dtype_to_descr(a.dtype), "fortran_order": True, "shape": shape})
                fh.write(a.tobytes(order="F"))
        else:
            np.save(f"{out}/{name}.f.npy", f)
        names.append(name)
with open(f"{out}/names.txt", "w") as fh:
    fh.write("\n".join(names) + "\n")
)PY";

std::string header_of(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(128, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return head;
}

TEST(NpyFortran, FilesWrittenByNumpyReadAsTheirCOrderTwins) {
    char tmpl[] = "/tmp/convcheck-npy-fortran-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const fs::path dir = tmpl;
    const fs::path script = dir / "write.py";
    std::ofstream(script) << kWriter;
    const std::string command = "/usr/bin/python3 " + script.string() + " " + dir.string();
    ASSERT_EQ(std::system(command.c_str()), 0) << command;

    std::ifstream names_file(dir / "names.txt");
    int checked = 0, fortran_headers = 0;
    for (std::string name; std::getline(names_file, name);) {
        const Array c = read_file(dir / (name + ".c.npy"));
        const Array f = read_file(dir / (name + ".f.npy"));
        EXPECT_EQ(f.type, c.type) << name;
        EXPECT_EQ(f.shape, c.shape) << name;
        EXPECT_TRUE(f.data == c.data) << name << ": the Fortran-order file does not read as the C-order array";
        // the test is only worth something if numpy really wrote a Fortran-order header
        fortran_headers += header_of(dir / (name + ".f.npy")).find("'fortran_order': True") != std::string::npos;
        ++checked;
    }
    EXPECT_EQ(checked, 5 * 7);
    EXPECT_EQ(fortran_headers, checked);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace convcheck::npy
