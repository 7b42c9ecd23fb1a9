// The manifest loader: a well-formed manifest round-trips; a hostile or damaged one is refused
// with a message naming the case and field; a tampered array fails its checksum.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "convcheck/formats/case_data.hpp"
#include "convcheck/formats/cc_case_data.hpp"
#include "convcheck/formats/gradient_case_data.hpp"
#include "convcheck/formats/manifest.hpp"

namespace convcheck::vectors {
namespace {

const std::string kHash(64, 'a');

std::string manifest_with(const std::string& case_json) {
    return R"({"format": "convcheck-vectors", "format_version": 1, "set": "t", "cases": [)" + case_json + "]}";
}

std::string a_case(const std::string& name = "c1", const std::string& file = "c1.src.npy",
                   const std::string& extra = "") {
    return R"({"name": ")" + name + R"(", "descriptor": "c=1,o=1,in=3,k=1", "dtype": "f32", "seed": 1,
      "fill": "exact", "comparison": "bitwise", "provenance": {"generated_by": "test", "verified_by": ["x"]},)" +
           extra + R"( "arrays": {
        "src": {"file": ")" + file + R"(", "dtype": "f32", "shape": [1, 1, 3], "sha256": ")" + kHash + R"("},
        "weights": {"file": "w.npy", "dtype": "f32", "shape": [1, 1, 1], "sha256": ")" + kHash + R"("},
        "dst": {"file": "d.npy", "dtype": "f32", "shape": [1, 1, 3], "sha256": ")" + kHash + R"("}}})";
}

void expect_refused(const std::string& text, const std::string& fragment) {
    try {
        parse_manifest(text, ".");
        ADD_FAILURE() << "accepted a manifest that breaks '" << fragment << "'";
    } catch (const ManifestError& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(Manifest, ParsesAndRoundTrips) {
    const VectorSet set = parse_manifest(manifest_with(a_case()), "/somewhere");
    ASSERT_EQ(set.cases.size(), 1u);
    const VectorCase& c = set.cases[0];
    EXPECT_EQ(c.name, "c1");
    EXPECT_EQ(c.seed, 1u);
    ASSERT_NE(c.array("src"), nullptr);
    EXPECT_EQ(c.array("src")->shape, (std::vector<std::int64_t>{1, 1, 3}));
    EXPECT_EQ(c.verified_by, std::vector<std::string>{"x"});
    const VectorSet again = parse_manifest(to_json(set), "/somewhere");
    EXPECT_EQ(to_json(again), to_json(set));
}

TEST(Manifest, RefusesHostileAndMalformedManifests) {
    expect_refused("not json", "not valid JSON");
    expect_refused("[]", "must be a JSON object");
    expect_refused(R"({"format": "x", "format_version": 1, "set": "t", "cases": []})", "format");
    expect_refused(R"({"format": "convcheck-vectors", "format_version": 2, "set": "t", "cases": []})", "format_version");
    expect_refused(manifest_with(a_case("c1", "../../etc/passwd")), "plain file name");
    expect_refused(manifest_with(a_case("c1", "/abs.npy")), "plain file name");
    expect_refused(manifest_with(a_case("../up")), "plain name");
    expect_refused(manifest_with(a_case() + "," + a_case("c1", "other.npy")), "appears twice");
    expect_refused(manifest_with(a_case("c1") + "," + a_case("c2")), "used by two arrays");
    expect_refused(manifest_with(a_case("c1", "c1.src.npy", R"("expect_error": {"attribute": "k"},)")), "no arrays");
    std::string bad_hash = a_case();
    bad_hash.replace(bad_hash.find(kHash), 64, std::string(64, 'G'));
    expect_refused(manifest_with(bad_hash), "sha256");
    std::string bad_shape = a_case();
    bad_shape.replace(bad_shape.find("[1, 1, 3]"), 9, "[1, -1, 3]");
    expect_refused(manifest_with(bad_shape), ">= 0");
    std::string bad_seed = a_case();
    bad_seed.replace(bad_seed.find("\"seed\": 1"), 9, "\"seed\": \"1\"");
    expect_refused(manifest_with(bad_seed), "seed");
    std::string missing_dst = a_case();
    missing_dst.replace(missing_dst.find("\"dst\""), 5, "\"terms\"");
    expect_refused(manifest_with(missing_dst), "arrays.dst");
}

class StoredSetCopy : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("convcheck-manifest-test-" + std::to_string(::getpid()));
        std::filesystem::remove_all(dir_);
        std::filesystem::copy(std::filesystem::path(CONVCHECK_VECTOR_SETS_DIR) / "seeds", dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::filesystem::path dir_;
};

TEST_F(StoredSetCopy, LoadsEveryStoredCase) {
    const VectorSet set = load_vector_set(dir_);
    ASSERT_FALSE(set.cases.empty());
    for (const auto& c : set.cases) {
        const CaseData data = load_case_data(set, c);
        EXPECT_EQ(data.src.elements(), data.descriptor.src_elements()) << c.name;
    }
}

TEST_F(StoredSetCopy, DetectsATamperedArray) {
    const VectorSet set = load_vector_set(dir_);
    const VectorCase& c = set.cases[0];
    const auto path = dir_ / c.array("dst")->file;
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-1, std::ios::end);
        f.put('\x7f');
    }
    try {
        load_case_data(set, c);
        ADD_FAILURE() << "a changed dst byte went unnoticed";
    } catch (const ManifestError& e) {
        EXPECT_NE(std::string(e.what()).find("sha256"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(c.name), std::string::npos) << e.what();
    }
}

TEST_F(StoredSetCopy, DetectsAShapeThatDisagreesWithTheDescriptor) {
    VectorSet set = load_vector_set(dir_);
    VectorCase c = set.cases[0];
    c.descriptor.replace(c.descriptor.find("n=1"), 3, "n=2");  // the stored arrays hold one batch
    try {
        load_case_data(set, c);
        ADD_FAILURE() << "accepted arrays of the wrong shape";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("shape"), std::string::npos) << e.what();
    }
}

// A stored array the case's pass does not read (a theta beside a convolution, a src beside a backward-data
// case) is refused naming it, not read as nothing.
TEST(StoredSets, AStrayArrayIsRefused) {
    const auto with_stray = [](VectorCase c, const char* role) {
        ArrayEntry stray = c.arrays.front();
        stray.role = role;
        c.arrays.push_back(stray);
        return c;
    };
    const auto expect_refused = [](const auto& load, const std::string& fragment) {
        try {
            load();
            ADD_FAILURE() << "accepted a stray array; want a refusal naming '" << fragment << "'";
        } catch (const ManifestError& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    const VectorSet seeds = load_vector_set(std::filesystem::path(CONVCHECK_VECTOR_SETS_DIR) / "seeds");
    const VectorCase forward = with_stray(seeds.cases.front(), "theta");
    expect_refused([&] { load_case_data(seeds, forward); }, "arrays.theta: the layer");
    const VectorSet backward = load_vector_set(std::filesystem::path(CONVCHECK_VECTOR_SETS_DIR) / "backward");
    for (const VectorCase& c : backward.cases) {
        const bool data_pass = c.descriptor.find("dir=bwd_d") != std::string::npos;
        const VectorCase stray = with_stray(c, data_pass ? "src" : "weights");
        expect_refused([&] { load_backward_case_data(backward, stray); }, data_pass ? "arrays.src" : "arrays.weights");
    }
}

// The stored CC forward cases through the runner's loader: each loads; one without an array its layer needs
// (theta of kernel=net, bias of bias=1) or with one it has not (a bias of bias=0) is refused naming the array,
// where it would have reached the backend as a null buffer or been read as nothing.
TEST(StoredCcSet, EveryCaseLoadsAndAMissingOrStrayArrayIsRefused) {
    const VectorSet set = load_vector_set(std::filesystem::path(CONVCHECK_VECTOR_SETS_DIR) / "cc");
    const VectorCase *net_bias = nullptr, *no_bias = nullptr;
    for (const VectorCase& c : set.cases) {
        const CcCaseData data = load_cc_case_data(set, c);
        EXPECT_EQ(data.src.elements(), data.descriptor.src_elements()) << c.name;
        if (data.descriptor.kernel == CcKernel::internal_net && data.descriptor.has_bias) net_bias = &c;
        if (!data.descriptor.has_bias) no_bias = &c;
    }
    ASSERT_TRUE(net_bias && no_bias);
    const auto expect_refused = [&](const VectorCase& c, const std::string& fragment) {
        try {
            load_cc_case_data(set, c);
            ADD_FAILURE() << c.name << ": accepted, want a refusal naming '" << fragment << "'";
        } catch (const ManifestError& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    for (const char* role : {"theta", "bias"}) {
        VectorCase missing = *net_bias;
        std::erase_if(missing.arrays, [&](const ArrayEntry& e) { return e.role == role; });
        expect_refused(missing, std::string("arrays.") + role + ": the array is missing");
    }
    VectorCase stray = *no_bias;
    ArrayEntry bias = *stray.array("src");
    bias.role = "bias";
    stray.arrays.push_back(bias);
    expect_refused(stray, "arrays.bias: the layer");
}

}  // namespace
}  // namespace convcheck::vectors
