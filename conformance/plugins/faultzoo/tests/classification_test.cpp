// The runner survives every fault of the zoo and records each as the right status with the right
// reason, and the run goes on (each case is checked after the previous one crashed or hanged).
#include <gtest/gtest.h>

#include <utility>

#include "convcheck/runner/results.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

const char* kCase = "conv:n=1,c=2,o=3,in=6x5,k=3x3,pb=1x1,pe=1x1,bias=1";

struct Expected {
    const char* fault;
    Status status;
    Kind kind;
    const char* reason_part;
    bool leak_check = false;
};

class FaultZoo : public ::testing::TestWithParam<Expected> {};

TEST_P(FaultZoo, IsClassified) {
    const Expected x = GetParam();
    auto session = open_backend("faultzoo", {std::string("fault=") + x.fault}, 0, "none", 10.0);
    CheckSettings settings;
    settings.timeout_s = 1.0;
    settings.leak_check = x.leak_check;
    for (const Case& c : expand("zoo", {SuiteEntry(kCase, "bep")}, 1, "")) {
        const CaseResult r = check_case(session->backend, c, settings);
        EXPECT_EQ(to_string(r.status), std::string(to_string(x.status)))
            << "fault " << x.fault << ", reason: " << r.reason << "\n  reproducer: " << r.reproducer;
        EXPECT_EQ(to_string(r.kind), std::string(to_string(x.kind)))
            << "fault " << x.fault << ", reason: " << r.reason << "\n  reproducer: " << r.reproducer;
        EXPECT_NE(r.reason.find(x.reason_part), std::string::npos)
            << "fault " << x.fault << ": reason '" << r.reason << "' lacks '" << x.reason_part
            << "'\n  reproducer: " << r.reproducer;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Faults, FaultZoo,
    ::testing::Values(Expected{"none", Status::passed, Kind::none, ""},
                      Expected{"segfault", Status::crashed, Kind::crash, "SIGSEGV in execute"},
                      Expected{"abort", Status::crashed, Kind::crash, "SIGABRT"},
                      Expected{"endless_loop", Status::hanged, Kind::hang, "no result after 1 s (in execute)"},
                      Expected{"write_past_output", Status::crashed, Kind::crash, "write past the end of the output dst"},
                      Expected{"write_before_output", Status::crashed, Kind::crash, "before the start of"},
                      Expected{"write_into_input", Status::crashed, Kind::crash, "write into the input src"},
                      Expected{"exception", Status::crashed, Kind::crash, "a C++ exception escaped the plugin in execute"},
                      Expected{"exit", Status::crashed, Kind::crash, "called exit(7)"},
                      Expected{"unimplemented", Status::failed, Kind::plugin_error,
                               "execute (unimplemented): faultzoo: this backend cannot run"},
                      Expected{"out_of_memory_error", Status::crashed, Kind::out_of_memory,
                               "the plugin returned CONVCHECK_ERROR_OUT_OF_MEMORY: execute (out_of_memory): faultzoo"},
                      Expected{"one_shot_differs", Status::failed, Kind::paths_differ,
                               "the one-shot conv_execute and the plan's conv_plan_execute disagree on 1 of 90 outputs"},
                      Expected{"leak", Status::passed, Kind::none, "", false},
                      Expected{"none", Status::passed, Kind::none, "", true}),
    [](const auto& info) { return std::string(info.param.fault) + (info.param.leak_check ? "_leak_check" : ""); });

// NaN output is a wrong answer, not a crash; in bound and exact mode it is named as NaN.
TEST(FaultZooNan, NanOutputFailsNamingNan) {
    auto session = open_backend("faultzoo", {"fault=nan_output"}, 0, "none", 10.0);
    for (const Case& c : expand("zoo", {SuiteEntry(kCase, "be")}, 1, "")) {
        const CaseResult r = check_case(session->backend, c, CheckSettings{});
        EXPECT_EQ(r.status, Status::failed) << r.reproducer;
        EXPECT_STREQ(to_string(r.kind), "nan") << r.reason << "\n  reproducer: " << r.reproducer;
        EXPECT_NE(r.reason.find("NaN in 90 outputs where the reference is finite"), std::string::npos)
            << r.reason << "\n  reproducer: " << r.reproducer;
    }
}

TEST(FaultZooLeak, LeakIsFoundOnlyWhenChecked) {
    auto session = open_backend("faultzoo", {"fault=leak"}, 0, "none", 10.0);
    CheckSettings settings;
    settings.leak_check = true;
    const Case c = expand("zoo", {SuiteEntry(kCase)}, 1, "").front();
    const CaseResult r = check_case(session->backend, c, settings);
    EXPECT_EQ(r.status, Status::failed) << r.reproducer;
    EXPECT_STREQ(to_string(r.kind), "leak") << r.reason;
    // 1 MiB per execute (two per cycle: the plan's and the one-shot's), plus the allocator's own bookkeeping
    ASSERT_EQ(r.reason.rfind("leak: ", 0), 0u) << r.reason;
    const long long bytes = std::stoll(r.reason.substr(6));
    EXPECT_GE(bytes, 2 << 20) << r.reason;
    EXPECT_LT(bytes, (2 << 20) + 65536) << r.reason;
}

// ABI 1.2: the code of an error the plugin returned is recorded with the case, and written in its
// record; a plugin's error with the out-of-memory code is out of memory.
TEST(FaultZooErrorCode, TheCaseRecordNamesTheCode) {
    for (const auto& [fault, code] : {std::pair{"unimplemented", "unimplemented"}, std::pair{"out_of_memory_error", "out_of_memory"},
                                      std::pair{"none", ""}}) {
        auto session = open_backend("faultzoo", {std::string("fault=") + fault}, 0, "none", 10.0);
        const CaseResult r = check_case(session->backend, expand("zoo", {SuiteEntry(kCase)}, 1, "").front(), CheckSettings{});
        EXPECT_EQ(r.error_code, code) << fault << ": " << r.reason;
        const nlohmann::json record = case_record(r, "faultzoo");
        if (*code) EXPECT_EQ(record.value("error_code", ""), code) << record.dump();
        else EXPECT_FALSE(record.contains("error_code")) << record.dump();
        // the faultzoo plugin has a plan: what it reports is recorded when the case ran to the end
        EXPECT_EQ(record.contains("workspace_bytes"), *code == '\0') << record.dump();
    }
}

// --leak-check holds in every mode, probe mode's several executions included (issue 19: probe mode
// never looked at the leak check's measurement).
TEST(FaultZooLeak, LeakIsFoundInEveryMode) {
    auto session = open_backend("faultzoo", {"fault=leak"}, 0, "none", 10.0);
    CheckSettings settings;
    settings.leak_check = true;
    for (const Case& c : expand("zoo", {SuiteEntry(kCase, "bepsr")}, 1, "")) {
        const CaseResult r = check_case(session->backend, c, settings);
        EXPECT_STREQ(to_string(r.kind), "leak") << accuracy::to_string(c.mode) << ": " << r.reason << "\n  " << r.reproducer;
        EXPECT_EQ(r.status, Status::failed) << accuracy::to_string(c.mode) << ": " << r.reproducer;
    }
}

TEST(FaultZooLoad, WrongAbiVersionIsRefused) {
    try {
        open_backend("faultzoo_wrong_abi", {}, 0, "none", 10.0);
        FAIL() << "a plugin of ABI major 99 was accepted";
    } catch (const PluginError& e) {
        EXPECT_NE(std::string(e.what()).find("was built for ABI 99.0"), std::string::npos) << e.what();
    }
}

TEST(FaultZooLoad, MissingEntryPointIsRefused) {
    try {
        open_backend("faultzoo_no_entry", {}, 0, "none", 10.0);
        FAIL() << "a library without convcheck_get_api was accepted";
    } catch (const PluginError& e) {
        EXPECT_NE(std::string(e.what()).find("does not export the entry point convcheck_get_api"), std::string::npos)
            << e.what();
    }
}

TEST(FaultZooLoad, HangInCreateFailsNegotiation) {
    try {
        open_backend("faultzoo", {"fault=hang_in_create"}, 0, "none", 1.0);
        FAIL() << "a plugin whose create never returns was negotiated";
    } catch (const PluginError& e) {
        EXPECT_NE(std::string(e.what()).find("no result after 1 s (in create)"), std::string::npos) << e.what();
    }
}

TEST(FaultZooLoad, UnknownOptionFailsNegotiation) {
    EXPECT_THROW(open_backend("faultzoo", {"fault=nonsense"}, 0, "none", 10.0), PluginError);
}

}  // namespace
