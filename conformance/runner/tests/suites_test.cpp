// Case sources: every built-in suite expands to valid cases with stable ids and seeds; shards
// partition a suite whatever their count; JSON and benchdnn case files read as documented; the
// shrinker's candidates are valid and smaller.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "convcheck/runner/shard.hpp"
#include "convcheck/runner/shrink.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
}

TEST(Suites, BuiltinSuitesExpandToValidCasesWithStableSeeds) {
    for (const SuiteInfo& s : builtin_suites()) {
        const auto a = load_cases(s.name, 7, ""), b = load_cases(s.name, 7, "");
        ASSERT_FALSE(a.empty()) << s.name;
        ASSERT_EQ(a.size(), b.size());
        std::set<std::string> ids;
        for (std::size_t i = 0; i < a.size(); ++i) {
            EXPECT_TRUE(ids.insert(a[i].id).second) << a[i].id;
            EXPECT_EQ(a[i].seed, b[i].seed) << a[i].id;
            EXPECT_EQ(a[i].descriptor(), b[i].descriptor()) << a[i].id;
            if (a[i].op == Op::conv && a[i].mode == accuracy::Mode::invalid) {
                EXPECT_THROW(validate(a[i].conv), ConvError) << a[i].descriptor();  // the invalid suite's point
            } else if (a[i].op == Op::conv) {
                EXPECT_NO_THROW(validate(a[i].conv)) << a[i].descriptor();
            }
        }
        EXPECT_NE(load_cases(s.name, 8, "").front().seed, a.front().seed) << "the run seed must change the data";
    }
}

TEST(Suites, SmokeCoversEveryFeature) {
    bool rank[4] = {}, groups = false, depthwise = false, dilation = false, stride = false, asymmetric = false, transposed = false,
         negative = false, bias = false, nxc = false, xio = false, dtype[9] = {}, mode[3] = {}, cc = false,
         backward_data = false, backward_weights_bias = false;
    for (const Case& c : load_cases("smoke", 1, "")) {
        mode[static_cast<int>(c.mode)] = true;
        if (c.op == Op::cc) {
            cc = true;
            continue;
        }
        if (c.op == Op::conv_transposed) {
            transposed = true;
            continue;
        }
        const auto& d = c.conv;
        backward_data |= c.op == Op::conv_bwd_data;
        backward_weights_bias |= c.op == Op::conv_bwd_weights && d.has_bias;
        rank[d.rank] = true;
        groups |= d.groups > 1;
        depthwise |= d.groups > 1 && d.groups == d.in_channels;
        bias |= d.has_bias;
        nxc |= d.data_format == DataFormat::nxc;
        xio |= d.filter_format == FilterFormat::xio;
        dtype[static_cast<int>(d.dtype)] = true;
        for (int a = 0; a < d.rank; ++a) {
            dilation |= d.dilations[a] > 1;
            stride |= d.strides[a] > 1;
            asymmetric |= d.pads_begin[a] != d.pads_end[a];
            negative |= d.pads_begin[a] < 0 || d.pads_end[a] < 0;
        }
    }
    EXPECT_TRUE(rank[1] && rank[2] && rank[3]);
    EXPECT_TRUE(groups && depthwise && dilation && stride && asymmetric && negative && bias && nxc && xio && cc);
    EXPECT_TRUE(dtype[0] && dtype[1] && dtype[2]);
    EXPECT_TRUE(dtype[static_cast<int>(DataType::f8_e4m3)] && dtype[static_cast<int>(DataType::f8_e5m2)]);
    EXPECT_TRUE(mode[0] && mode[1] && mode[2]);
    EXPECT_TRUE(backward_data && backward_weights_bias);  // both backward passes (docs/passes.md)
    EXPECT_TRUE(transposed);                               // transposed convolution (docs/transposed.md)
}

TEST(Suites, ShardsPartitionTheSuiteForAnyCount) {
    const auto all = load_cases("smoke", 3, "");
    for (std::int64_t n : {1, 2, 3, 7}) {
        std::vector<std::string> seen;
        for (std::int64_t i = 0; i < n; ++i) {
            const Shard s = shard_from(std::to_string(i) + "/" + std::to_string(n));
            for (std::size_t k = 0; k < all.size(); ++k)
                if (s.contains(static_cast<std::int64_t>(k))) seen.push_back(all[k].id);
        }
        std::sort(seen.begin(), seen.end());
        ASSERT_EQ(seen.size(), all.size()) << n << " shards";
        for (std::size_t k = 0; k < all.size(); ++k) EXPECT_EQ(seen[k], all[k].id);
    }
    EXPECT_THROW(shard_from("3/3"), std::invalid_argument);
    EXPECT_THROW(shard_from("1"), std::invalid_argument);
    EXPECT_THROW(shard_from("a/2"), std::invalid_argument);
}

TEST(Suites, JsonCaseFilesAndResultsFilesRead) {
    const auto array = write_temp("cases.json", R"([{"descriptor": "c=2,o=2,in=5,k=3", "modes": "be", "name": "x"},
        {"descriptor": "cc:cin=1,cout=1,in=4x4,scale=1/2", "mode": "probe", "seed": 9}])");
    const auto cases = load_cases(array, 1, "");
    ASSERT_EQ(cases.size(), 3u);
    EXPECT_EQ(cases[0].mode, accuracy::Mode::bound);
    EXPECT_EQ(cases[1].mode, accuracy::Mode::exact);
    EXPECT_EQ(cases[2].op, Op::cc);
    EXPECT_EQ(cases[2].seed, 9u);
    EXPECT_EQ(cases[0].name, "x");
    const auto lines = write_temp("results.jsonl", R"({"record": "run", "backend": "x"}
{"record": "case", "descriptor": "conv:c=1,o=1,in=3,k=1", "mode": "exact", "seed": 5}
{"record": "summary"})");
    const auto rerun = load_cases(lines, 1, "");
    ASSERT_EQ(rerun.size(), 1u);
    EXPECT_EQ(rerun[0].seed, 5u);
    EXPECT_EQ(rerun[0].mode, accuracy::Mode::exact);
    EXPECT_THROW(load_cases(write_temp("bad.json", R"([{"name": "no descriptor"}])"), 1, ""), std::invalid_argument);
}

// A case file's values of the wrong kind are refused with the key, the value and the rule, never
// converted (a seed of 7.7e96 converted to an integer was undefined behaviour: fuzz/corpus/case_files/).
TEST(Suites, JsonCaseFileValuesOfTheWrongKindNameKeyValueAndRule) {
    const struct {
        const char* entry;
        const char* expected;
    } bad[] = {
        {R"({"descriptor": "c=1,o=1,in=3,k=1", "seed": 7.7e96})", R"("seed" is 7.7e+96: must be an integer in [0, 2^64))"},
        {R"({"descriptor": "c=1,o=1,in=3,k=1", "seed": -3})", R"("seed" is -3: must be an integer)"},
        {R"({"descriptor": "c=1,o=1,in=3,k=1", "mode": ""})", R"("mode" is "": must be "exact", "bound", "probe", "stress", "precision", "invalid" or "sampled")"},
        {R"({"descriptor": "c=1,o=1,in=3,k=1", "mode": 4})", R"("mode" is 4: must be)"},
        {R"({"descriptor": "c=1,o=1,in=3,k=1", "modes": ["b"]})", R"("modes" is ["b"]: must be a string of mode letters)"},
    };
    for (const auto& b : bad) {
        try {
            suite_entries_from_text("mine.json", std::string("[") + b.entry + "]");
            ADD_FAILURE() << b.entry << ": must be refused";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(b.expected), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("mine.json: case 0"), std::string::npos) << e.what();
        }
    }
}

// A case list (.cases, the built-in lists' format) reads as the JSON case file does; a bad mode letter or
// fill is refused naming the file and line, never read as another mode.
TEST(Suites, CaseListsRead) {
    const auto path = write_temp("mine.cases", "# why\nc=2,o=2,in=5,k=3  be  x  # a comment\n"
                                               "c=4,o=4,in=6x7,k=3x3,pb=1x1,pe=1x1,dt=f16  e  ties  fill=ties  seed=9\n"
                                               "cc:cin=1,cout=1,in=4x4,scale=1/2  p  -\n");
    const auto cases = load_cases(path, 1, "");
    ASSERT_EQ(cases.size(), 4u);
    EXPECT_EQ(cases[0].mode, accuracy::Mode::bound);
    EXPECT_EQ(cases[1].mode, accuracy::Mode::exact);
    EXPECT_EQ(cases[0].name, "x");
    EXPECT_EQ(cases[2].fill, accuracy::Fill::ties);
    EXPECT_EQ(cases[2].seed, 9u);
    EXPECT_EQ(cases[3].op, Op::cc);
    EXPECT_EQ(cases[3].name, "");
    for (const auto& [text, words] : {std::pair{"c=1,o=1,in=3,k=1 e x fill=tie\n", "mine.cases:1: fill 'tie'"},
                                      std::pair{"\nc=1,o=1,in=3,k=1 q x\n", "mode"},
                                      std::pair{"c=1,o=1,in=3,k=1 b x dt=f16\n", "mine.cases:1: field 'dt=f16'"}}) {
        try {
            load_cases(write_temp("mine.cases", text), 1, "");
            ADD_FAILURE() << text << ": must be refused";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    }
}

// The built-in lists are the files conformance/data/suites/<name>.cases, built in: every file is a row of the one
// suite table, named by its stem, described by its first comment paragraph, with the file's entries.
TEST(Suites, BuiltinListsAreTheCaseListFiles) {
    const std::filesystem::path dir = std::filesystem::path(CONVCHECK_SOURCE_DIR) / "conformance/data/suites";
    const std::vector<SuiteInfo> table = builtin_suites();
    int lists = 0;
    for (const auto& file : std::filesystem::directory_iterator(dir)) {
        if (file.path().extension() != ".cases") continue;
        ++lists;
        const std::string name = file.path().stem().string();
        const auto row = std::find_if(table.begin(), table.end(), [&](const SuiteInfo& s) { return s.name == name; });
        ASSERT_NE(row, table.end()) << file.path() << " is no row of builtin_suites()";
        EXPECT_EQ(row->source, "conformance/data/suites/" + name + ".cases");
        std::ifstream in(file.path());
        std::string first_line;
        std::getline(in, first_line);
        EXPECT_EQ(row->description.rfind(first_line.substr(2), 0), 0u) << name << ": " << row->description;
        const auto from_file = file_suite_entries(file.path().string());
        const auto builtin = builtin_suite_entries(name);
        ASSERT_EQ(from_file.size(), builtin.size()) << name;
        for (std::size_t i = 0; i < builtin.size(); ++i) {
            EXPECT_EQ(from_file[i].descriptor, builtin[i].descriptor) << name << " " << i;
            EXPECT_EQ(from_file[i].modes, builtin[i].modes) << name << " " << i;
            EXPECT_EQ(from_file[i].name, builtin[i].name) << name << " " << i;
            EXPECT_EQ(from_file[i].fill, builtin[i].fill) << name << " " << i;
        }
    }
    EXPECT_GE(lists, 8);
}

// Every suite of the table has a name, a description of its own and a source; smoke comes first.
TEST(Suites, TheSuiteTableDescribesEverySuite) {
    const std::vector<SuiteInfo> table = builtin_suites();
    ASSERT_FALSE(table.empty());
    EXPECT_EQ(table.front().name, "smoke");
    std::set<std::string> names, descriptions;
    for (const SuiteInfo& s : table) {
        EXPECT_TRUE(names.insert(s.name).second) << s.name << " twice";
        EXPECT_GE(s.description.size(), 40u) << s.name << ": " << s.description;
        EXPECT_TRUE(descriptions.insert(s.description).second) << s.name;
        EXPECT_FALSE(s.source.empty()) << s.name;
        EXPECT_NO_THROW(builtin_suite_entries(s.name)) << s.name;
    }
    EXPECT_THROW(builtin_suite_entries("no_such_suite"), std::invalid_argument);
}

TEST(Suites, BenchdnnShapeFilesRead) {
    const auto path = write_temp("shapes_mine", "# ResNet-ish\nmb1ic3ih224oc64oh112kh7sh2ph3n\"conv1\"\ng32ic32ih112oc32oh112kh3ph1n\"dw\"\n");
    const auto cases = load_cases(path, 1, "");
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].descriptor(),
              "conv:n=1,c=3,o=64,g=1,in=224x224,k=7x7,s=2x2,d=1x1,pb=3x3,pe=2x2,bias=1,dt=f32,data=ncx,wei=oix");
    EXPECT_EQ(cases[0].name, "conv1");
    EXPECT_EQ(cases[1].conv.groups, 32);
}

TEST(Suites, UnknownSuiteNamesTheChoices) {
    try {
        load_cases("smok", 1, "");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("smoke, accuracy, backward, cc"), std::string::npos) << e.what();
    }
}

TEST(Shrink, CandidatesAreValidAndSmaller) {
    const ConvDescriptor d = parse_descriptor("n=2,c=6,o=4,g=2,in=9x8x7,k=3x3x3,s=2x1x1,d=1x2x1,pb=1x-1x2,pe=0x1x1,bias=1,dt=f16,data=nxc");
    const auto candidates = smaller_descriptors(d);
    EXPECT_GT(candidates.size(), 15u);
    for (const auto& c : candidates) {
        EXPECT_NO_THROW(validate(c)) << to_string(c);
        EXPECT_FALSE(c == d);
        EXPECT_LE(c.macs(), d.macs() * 2) << to_string(c);  // smaller in some attribute, never a blow-up
    }
}

}  // namespace
