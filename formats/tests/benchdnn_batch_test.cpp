// benchdnn batch files read as benchdnn's conv driver reads them (formats/include/convcheck/formats/benchdnn_driver.hpp): every test
// case benchdnn would run, in its order, either mapped exactly or skipped with its reason; `--batch=`
// followed in benchdnn's search order; cycles refused. The committed files under data/benchdnn/ cover
// every option (options), the resolution order (resolve/), a cycle (cycle/) and issue 18's reproducer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "convcheck/formats/benchdnn_batch.hpp"
#include "convcheck/formats/benchdnn_driver.hpp"

using namespace convcheck;

namespace {

const std::filesystem::path kData = CONVCHECK_BENCHDNN_TEST_DATA;

// What one case must be: a canonical descriptor (run) or a skip whose reason starts with `skip`.
struct Want {
    const char* name;
    const char* run;   // canonical descriptor, or nullptr
    const char* skip;  // the start of the skip reason, or nullptr
};

std::string describe(const BenchdnnCase& c) {
    return c.source + " `" + c.input + "` -> " + (c.descriptor ? to_string(*c.descriptor) : "skip: " + c.skip_reason);
}

void expect_cases(const std::vector<BenchdnnCase>& got, const std::vector<Want>& want) {
    ASSERT_EQ(got.size(), want.size()) << [&] {
        std::string all;
        for (const auto& c : got) all += describe(c) + "\n";
        return all;
    }();
    for (std::size_t i = 0; i < want.size(); ++i) {
        SCOPED_TRACE("case " + std::to_string(i) + ": " + describe(got[i]));
        EXPECT_EQ(got[i].name, want[i].name);
        if (want[i].run) {
            ASSERT_TRUE(got[i].descriptor.has_value());
            EXPECT_EQ(to_string(*got[i].descriptor), to_string(parse_descriptor(want[i].run)));
            EXPECT_EQ(got[i].skip_reason, "");
        } else {
            EXPECT_FALSE(got[i].descriptor.has_value());
            EXPECT_TRUE(got[i].skip_reason.starts_with(want[i].skip)) << "want a reason starting `" << want[i].skip << "`";
        }
    }
}

// ic4ih5oc4kh3 with benchdnn's defaults (mb 2, FWD_B: bias, f32, any tags -> ncx/oix)
#define P "n=2,c=4,o=4,in=5x5,k=3x3"

TEST(BenchdnnBatch, TheIssueReproducerIsSkippedForItsPostOpNeverRunAsForward) {
    expect_cases(read_benchdnn_batch((kData / "reproducer").string()), {{"x", nullptr, "--attr-post-ops"}});
}

BenchdnnReadOptions v3_7_1() {
    BenchdnnReadOptions options;
    options.version = BenchdnnVersion::v3_7_1;
    return options;
}

// data/benchdnn/options is v3.7.1's grammar: its FWD_B cases on bf16 and f16 have a bias of that type there
TEST(BenchdnnBatch, EveryOptionIsMappedExactlyOrSkippedWithItsReason) {
    const auto cases = read_benchdnn_batch((kData / "options").string(), v3_7_1());
    const char* lists = "c=4,o=4,in=5x5,k=3x3,pb=1,pe=1";
    auto with = [](const char* base, const char* extra) {
        std::string both = base;
        return both.append(",").append(extra);
    };
    const std::vector<std::string> l = {with(lists, "n=1,bias=1"),           with(lists, "n=2,bias=1"),
                                        with(lists, "n=1,bias=1,dt=bf16"),   with(lists, "n=2,bias=1,dt=bf16"),
                                        with(lists, "n=1,bias=0"),           with(lists, "n=2,bias=0"),
                                        with(lists, "n=1,bias=0,dt=bf16"),   with(lists, "n=2,bias=0,dt=bf16")};
    expect_cases(cases, {
        {"x", nullptr, "--attr-post-ops"},
        // 2. dir x dt x mb, mb fastest
        {"lists", l[0].c_str(), nullptr}, {"lists", l[1].c_str(), nullptr}, {"lists", l[2].c_str(), nullptr},
        {"lists", l[3].c_str(), nullptr}, {"lists", l[4].c_str(), nullptr}, {"lists", l[5].c_str(), nullptr},
        {"lists", l[6].c_str(), nullptr}, {"lists", l[7].c_str(), nullptr},
        // 3. --dir
        {"dir", P ",bias=0", nullptr}, {"dir", P ",bias=0,dir=bwd_d", nullptr}, {"dir", P ",bias=0,dir=bwd_w", nullptr},
        {"dir", P ",bias=1,dir=bwd_w", nullptr}, {"dir", nullptr, "--dir=BWD_DW: backward data and weights in one call"},
        {"dir", P ",bias=1", nullptr},
        // 4. --dt
        {"dt", P ",bias=1,dt=f16", nullptr}, {"dt", P ",bias=1,dt=bf16", nullptr},
        {"dt", P ",bias=1,dt=bf16:bf16:f32", nullptr},
        {"dt", nullptr, ""},  // an int8 FWD_B line: a qconv: case with bdt=f32, no float one (benchdnn_int8_test)
        {"dt", P ",bias=1,dt=f8_e5m2", nullptr},  // fp8 (docs/fp8.md); v3.7.1's bias: the weights' type
        {"dt", P ",bias=1,dt=f64", nullptr},  // f64, its bias f64 too (docs/accuracy.md, f64 cases)
         {"dt", nullptr, "--dt: 4-bit"}, {"dt", nullptr, "--dt: needs one data type or three"},
        {"dt", nullptr, "--dt: a data type benchdnn does not know"},
        // 5. --cfg
        {"cfg", P ",bias=1,dt=f16", nullptr}, {"cfg", P ",bias=1,dt=bf16", nullptr}, {"cfg", nullptr, ""} /* int8: qconv:, bdt=f32 */,
        {"cfg", P ",bias=1", nullptr}, {"cfg", nullptr, "--cfg: a configuration"},
        {"cfg_and_dt", nullptr, "--cfg with --dt"},
        // 6. tags
        {"stag", P ",bias=1,data=nxc", nullptr}, {"stag", P ",bias=1", nullptr}, {"stag", P ",bias=1,data=nxc", nullptr},
        {"stag", nullptr, "--stag: a blocked layout"}, {"stag", P ",bias=1", nullptr},
        {"stag_dtag_differ", P ",bias=1,ss=100x1x20x4", nullptr},  // nhwc as memory strides over ncx
        {"wtag", P ",bias=1,wei=xio", nullptr}, {"wtag", P ",bias=1", nullptr}, {"wtag", P ",bias=1", nullptr},
        {"wtag", P ",bias=1,ws=36x1x12x4", nullptr}, {"wtag", nullptr, "--wtag: a blocked layout"},  // ohwi: strides
        {"wtag", nullptr, "--wtag: a tag for another rank"}, {"wtag", P ",bias=1,wei=xio", nullptr},
        {"wtag_grouped", "n=2,c=4,o=4,g=2,in=5x5,k=3x3,bias=1,wei=xio", nullptr},
        {"wtag_grouped", "n=2,c=4,o=4,g=2,in=5x5,k=3x3,bias=1", nullptr},
        {"wtag_grouped", nullptr, "--wtag: a tag for another rank"},
        {"wtag_grouped", "n=2,c=4,o=4,g=2,in=5x5,k=3x3,bias=1,wei=xio", nullptr},
        {"tags_3d", "n=2,c=4,o=4,in=5x5x5,k=3x3x3,bias=1,data=nxc", nullptr},
        // 7. --mb
        {"mb", "n=3,c=4,o=4,in=5x5,k=3x3,bias=1", nullptr}, {"mb", "n=7,c=4,o=4,in=5x5,k=3x3,bias=1", nullptr},
        // 8. --alg
        {"alg", P ",bias=1", nullptr}, {"alg", P ",bias=1", nullptr}, {"alg", nullptr, "--alg=wino"},
        // 9. attributes, strides, threading context
        {"post_ops", P ",bias=1", nullptr}, {"post_ops", P ",bias=1,po=sum", nullptr},
        {"scales", P ",bias=1,ssc=0.5", nullptr}, {"zero_points", nullptr, "--attr-zero-points"},
        {"fpmath", P ",bias=1", nullptr}, {"fpmath", nullptr, "--attr-acc-mode"}, {"fpmath", P ",bias=1,fpmath=bf16", nullptr},
        {"fpmath", nullptr, "--attr-acc-mode"},
        {"fpmath_modes", P ",bias=1,fpmath=tf32", nullptr},  // APPLY_TO_INT: no integer primitive here
        {"fpmath_modes", nullptr, "--attr-fpmath=f16: f32 inputs rounded to f16 also leave f32's exponent range"},
        {"fpmath_modes", nullptr, "--attr-fpmath=any: any lower precision"},
        {"fpmath_modes", nullptr, "--attr-fpmath=bf16:maybe: APPLY_TO_INT is true or false"},
        {"dropout", nullptr, "--attr-dropout"}, {"rounding", nullptr, "--attr-rounding-mode"},
        {"strides", P ",bias=1", nullptr}, {"strides", nullptr, "--strides/--stag/--wtag/--dtag: ss (src strides)=1x1x1x1: stride 1 (1) is within"},
        {"strides_given", P ",bias=1,ss=200x1x40x8,ds=72x1x24x8", nullptr},
        {"strides_and_tag", nullptr, "--strides with a tag for src: benchdnn refuses both"},
        {"strides_rank", nullptr, "--strides: src's have 3 values for a tensor of 4 dims"},
        {"wtag_grouped_plain", "n=2,c=4,o=4,g=2,in=5x5,k=3x3,bias=1,ws=18x1x6x2", nullptr},
        {"wtag_grouped_plain", nullptr, "--wtag/--strides: grouped weights whose groups and output channels"},
        {"ctx", nullptr, "--ctx-init/--ctx-exe"},
        // 10. implementation filters and global settings change nothing convcheck checks
        {"impl", P ",bias=1", nullptr},
        // 11. --match: kh3 matches both setups, kh1 none; a miss on the first setup drops the rest
        {"match_kh3", P ",bias=1", nullptr}, {"match_kh3", P ",bias=0", nullptr},
        {"match_impl", P ",bias=0", nullptr},  // benchdnn prints the filter without quotes
        {"match_undecided", nullptr, "--match: benchdnn filters on its full problem line"},
        // 12. a global option that changes nothing convcheck checks
        {"global", P ",bias=1", nullptr},
        // 13. after an unknown option benchdnn has exited
        {"after_unknown", nullptr, "after --no-such-option=1"},
    });
}

TEST(BenchdnnBatch, ResolvesBatchFilesInBenchdnnsOrderAndSharesTheOptions) {
    BenchdnnReadOptions options = v3_7_1();  // its FWD_B f16 cases have an f16 bias there
    options.inputs_dir = (kData / "inputs").string();
    // --dt=f16 (main) and --mb=3 (inner/first) stay in force in every file read after them, as in benchdnn
    expect_cases(read_benchdnn_batch((kData / "resolve" / "main").string(), options),
                 {{"first", "n=3,c=4,o=4,in=5x5,k=3x3,bias=1,dt=f16", nullptr},
                  {"outer", "n=3,c=4,o=4,in=5x5,k=3x3,bias=1,dt=f16", nullptr},
                  {"from_inputs", "n=3,c=2,o=2,in=5x5,k=1x1,bias=1,dt=f16", nullptr}});
    // without the inputs folder the last file is not found, and the error names every place tried
    try {
        read_benchdnn_batch((kData / "resolve" / "main").string());
        ADD_FAILURE() << "found from_inputs without an inputs folder";
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "benchdnn --batch");
        EXPECT_EQ(e.value(), "from_inputs");
        EXPECT_NE(e.rule().find((kData / "resolve").string() + "/from_inputs"), std::string::npos) << e.what();
    }
}

TEST(BenchdnnBatch, AFileAsGivenComesFirst) {
    // an absolute --batch= path is opened as given
    const auto cases = read_benchdnn_batch_text("--batch=" + (kData / "resolve" / "shapes_twice").string(), "text");
    expect_cases(cases, {{"outer", P ",bias=1", nullptr}});
}

TEST(BenchdnnBatch, ACycleIsRefusedNamingTheChain) {
    try {
        read_benchdnn_batch((kData / "cycle" / "a").string());
        ADD_FAILURE() << "a --batch cycle was followed";
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "benchdnn --batch") << e.what();
        EXPECT_NE(e.rule().find("a cycle: "), std::string::npos) << e.what();
        EXPECT_NE(e.rule().find("b -> a"), std::string::npos) << e.what();
    }
}

TEST(BenchdnnBatch, LocatorRemembersFoldersAsWrittenOnlyOnce) {
    BenchdnnLocator locator;
    locator.remember_folder_of("x/y/file");
    locator.remember_folder_of("x/file");  // "x/y" starts with "x": benchdnn does not add "x"
    locator.remember_folder_of("file");
    EXPECT_EQ(locator.search_paths(), (std::vector<std::string>{"x/y", "."}));
    EXPECT_EQ(posix_dirname("a/b"), "a");
    EXPECT_EQ(posix_dirname("b"), ".");
    EXPECT_EQ(posix_dirname("/b"), "/");
    EXPECT_EQ(posix_dirname("a/b/"), "a");
}

TEST(BenchdnnBatch, TokensCommentsAndContinuations) {
    const auto tokens = tokenize_benchdnn("# comment\n--reset --dir=FWD_B # trailing\nic16ih7\\\noc16kh3 n\"a#b\"\n");
    ASSERT_EQ(tokens.size(), 4u);
    EXPECT_EQ(tokens[0].text, "--reset");
    EXPECT_EQ(tokens[1].line, 2);
    EXPECT_EQ(tokens[2].text, "ic16ih7oc16kh3");
    EXPECT_EQ(tokens[2].line, 3);
    EXPECT_EQ(tokens[3].text, "n\"a#b\"");  // a `#` inside a token is not a comment
}

TEST(BenchdnnBatch, BadProblemsNameFileAndLine) {
    try {
        read_benchdnn_batch_text("ic16ih7oc16kh3\n\nic16ih7oc16\n", "shapes_x");
        ADD_FAILURE() << "accepted a problem without kh";
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "shapes_x:3: kh") << e.what();
    }
    EXPECT_THROW(read_benchdnn_batch((kData / "missing").string()), ConvError);
}

// current oneDNN's --bia-dt: which directions have a bias and of which type, and the --match line that carries it
TEST(BenchdnnBatch, BiasDataTypeOfCurrentOneDnn) {
    expect_cases(read_benchdnn_batch((kData / "bia_dt").string()), {
        // 1. f32: dir x bia_dt
        {"f32", P ",bias=1", nullptr}, {"f32", P ",bias=1", nullptr},
        {"f32", P ",bias=1", nullptr}, {"f32", P ",bias=0", nullptr},
        {"f32", P ",bias=1", nullptr}, {"f32", P ",bias=0", nullptr},
        {"f32", P ",bias=0,dir=bwd_d", nullptr}, {"f32", P ",bias=0,dir=bwd_d", nullptr},
        {"f32", P ",bias=1,dir=bwd_w", nullptr}, {"f32", P ",bias=0,dir=bwd_w", nullptr},
        {"f32", P ",bias=1,dir=bwd_w", nullptr}, {"f32", P ",bias=1,dir=bwd_w", nullptr},
        // 2. bf16
        // FWD_B and BWD_WB: benchdnn's f32 bias on bf16 data (mixed-dtypes.md)
        {"bf16", P ",bias=1,dt=bf16,bdt=f32", nullptr}, {"bf16", P ",bias=1,dt=bf16", nullptr},
        {"bf16", P ",bias=1,dt=bf16,dir=bwd_w", nullptr}, {"bf16", P ",bias=1,dt=bf16,bdt=f32,dir=bwd_w", nullptr},
        // 3. names
        {"names", P ",bias=1,dt=f16,bdt=f32", nullptr}, {"names", P ",bias=1,dt=f16", nullptr},
        {"names", nullptr, "--bia-dt: a data type benchdnn does not know"},
        {"reset", P ",bias=0,dt=f16", nullptr},
        // 4. --match: the FWD_D line with --bia-dt=f16 only; a miss drops the problem's other setups
        {"match_start", P ",bias=1,dt=f16", nullptr},
        {"match_bwd_w", P ",bias=1,dt=bf16,dir=bwd_w", nullptr},
    });
}

// v3.7.1 has no --bia-dt (benchdnn exits at it) and gives FWD_B the weights' data type
TEST(BenchdnnBatch, BiasDataTypeOfV371) {
    const auto cases = read_benchdnn_batch((kData / "bia_dt").string(), v3_7_1());
    // no --bia-dt list: one setup per --dir (6 + 4 + 1 + 1); the --match lines hold no --bia-dt, so they drop theirs
    ASSERT_EQ(cases.size(), 12u);
    for (const auto& c : cases)
        EXPECT_TRUE(c.skip_reason.starts_with("after --bia-dt=f32,undef (")) << describe(c);
    EXPECT_NE(cases[0].skip_reason.find("not an option of benchdnn's conv driver; benchdnn exits there"), std::string::npos);
    expect_cases(read_benchdnn_batch_text("--dir=FWD_B,BWD_WB,FWD_D --dt=bf16 ic4ih5oc4kh3", "text", v3_7_1()),
                 {{"", P ",bias=1,dt=bf16", nullptr}, {"", P ",bias=1,dt=bf16,dir=bwd_w", nullptr},
                  {"", P ",bias=0,dt=bf16", nullptr}});
    // the --match line starts with --conv and the global options that differ from their defaults
    expect_cases(read_benchdnn_batch_text("--allow-enum-tags-only=false --match=^--conv.--allow-enum-tags-only=false.ic4 "
                                          "ic4ih5oc4kh3",
                                          "text", v3_7_1()),
                 {{"", P ",bias=1", nullptr}});
    EXPECT_TRUE(read_benchdnn_batch_text("--allow-enum-tags-only=false --match=^--conv ic4ih5oc4kh3", "text").empty());
}

TEST(BenchdnnBatch, StartSkipsTheFirstCases) {
    expect_cases(read_benchdnn_batch_text("--start=1 --dir=FWD_B,FWD_D ic4ih5oc4kh3", "text"),
                 {{"", nullptr, "--start"}, {"", P ",bias=0", nullptr}});
}

}  // namespace
