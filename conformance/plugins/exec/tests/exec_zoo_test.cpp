// The exec fault zoo: a backend process that dies, hangs, raises, writes garbage, returns the wrong shape or dtype,
// or speaks another protocol version gets a named failure, and the next case runs on a backend process started
// anew (docs/exec-protocol.md). The backends: zoo_backend.py (the Python SDK) and raw_backend.py (the protocol by
// hand).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "convcheck/runner/results.hpp"
#include "convcheck/runner/session.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

const std::string kZoo = std::string(CONVCHECK_EXEC_TESTS_DIR) + "/zoo_backend.py";
const std::string kRaw = std::string(CONVCHECK_EXEC_TESTS_DIR) + "/raw_backend.py";

// Three cases: the fault strikes the first (once=), the other two must pass on the restarted process.
std::vector<Case> three_cases() {
    return expand("zoo", {SuiteEntry("conv:n=1,c=2,o=3,in=6x5,k=3x3,pb=1x1,pe=1x1,bias=1"),
                          SuiteEntry("conv:n=2,c=4,o=4,g=2,in=7,k=3,s=2"),
                          SuiteEntry("conv:n=1,c=3,o=2,in=5x5,k=2x2,d=2x2")},
                  1, "");
}

std::string once_file(const std::string& fault) {
    const std::string path = testing::TempDir() + "exec_zoo_once_" + fault + "_" + std::to_string(getpid());
    std::filesystem::remove(path);
    return path;
}

struct Expected {
    const char* fault;
    Status status;
    Kind kind;
    const char* reason_part;
};

class ExecZoo : public ::testing::TestWithParam<Expected> {};

TEST_P(ExecZoo, IsNamedAndTheRunGoesOn) {
    const Expected x = GetParam();
    const std::string once = once_file(x.fault);
    auto session = open_backend("python:" + kZoo, {std::string("fault=") + x.fault, "once=" + once}, 0, "none", 20.0);
    CheckSettings settings;
    settings.timeout_s = 5.0;  // the hang's; every other case takes well under a second
    std::vector<CaseResult> results;
    for (const Case& c : three_cases()) results.push_back(check_case(session->backend, c, settings));
    const CaseResult& r = results[0];
    EXPECT_STREQ(to_string(r.status), to_string(x.status)) << x.fault << ": " << r.reason << "\n  " << r.reproducer;
    EXPECT_STREQ(to_string(r.kind), to_string(x.kind)) << x.fault << ": " << r.reason << "\n  " << r.reproducer;
    EXPECT_NE(r.reason.find(x.reason_part), std::string::npos)
        << x.fault << ": reason '" << r.reason << "' lacks '" << x.reason_part << "'\n  " << r.reproducer;
    for (std::size_t i = 1; i < results.size(); ++i)
        EXPECT_EQ(results[i].status, Status::passed)
            << x.fault << ", case " << i << " after the fault: " << results[i].reason << "\n  " << results[i].reproducer;
    // the implementation names the backend's pid: one process for the cases after the fault
    EXPECT_EQ(results[1].implementation, results[2].implementation);
    std::filesystem::remove(once);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, ExecZoo,
    ::testing::Values(
        Expected{"none", Status::passed, Kind::none, ""},
        Expected{"segfault", Status::crashed, Kind::crash,
                 "the backend process ended during the case (it was killed by SIGSEGV)"},
        Expected{"exit", Status::crashed, Kind::crash,
                 "the backend process ended during the case (it exited with status 3; its last line on stderr: 'zoo: giving up on conv:"},
        Expected{"hang", Status::hanged, Kind::hang, "no result after 5 s (in execute)"},
        Expected{"raise", Status::failed, Kind::plugin_error,
                 "ZeroDivisionError: division by zero (at zoo_backend.py:"},
        Expected{"wrong_shape", Status::failed, Kind::plugin_error,
                 "it returned dst of shape [1,3,5,5] where the case's dst is [1,3,6,5] (ncx)"},
        Expected{"wrong_dtype", Status::failed, Kind::plugin_error,
                 "it returned dst as f64 where the case's dst is f32"},
        Expected{"decline", Status::unsupported, Kind::declined, "the zoo declines the case (fault=decline)"}),
    [](const auto& info) { return std::string(info.param.fault); });

// Without a fault, one backend process serves every case (the handshake once); a crash starts a new one.
TEST(ExecZooProcess, OneProcessForTheRunAndANewOneAfterACrash) {
    auto none = open_backend("python:" + kZoo, {"fault=none"}, 0, "none", 20.0);
    std::vector<std::string> pids;
    for (const Case& c : three_cases()) pids.push_back(check_case(none->backend, c, CheckSettings{}).implementation);
    EXPECT_EQ(pids[0], pids[1]);
    EXPECT_EQ(pids[1], pids[2]);
    EXPECT_EQ(pids[0].rfind("zoo pid ", 0), 0u) << pids[0];
    const std::string once = once_file("restart");
    auto crash = open_backend("python:" + kZoo, {"fault=segfault", "once=" + once}, 0, "none", 20.0);
    std::vector<CaseResult> r;
    for (const Case& c : three_cases()) r.push_back(check_case(crash->backend, c, CheckSettings{}));
    EXPECT_EQ(r[0].status, Status::crashed) << r[0].reason;
    EXPECT_NE(r[1].implementation, pids[0]) << "the options changed: a new process";
    EXPECT_EQ(r[1].implementation, r[2].implementation);
    std::filesystem::remove(once);
}

// The protocol written by hand: what the keeper and the bridge check on every line.
TEST(ExecZooRaw, GarbageAndMalformedRepliesAreNamed) {
    for (const auto& [mode, part] :
         {std::pair{"garbage", "the backend wrote a line that is not JSON: 'this is not json'"},
          std::pair{"no_type", "the backend wrote a JSON line that is not an object with a \"type\""},
          std::pair{"silent_exit", "the backend process ended during the case (it exited with status 0)"},
          std::pair{"missing", "its \"done\" reply lacks the output dst"}}) {
        auto session = open_backend("exec:/usr/bin/python3 " + kRaw + " " + mode, {}, 0, "none", 20.0);
        for (const Case& c : three_cases()) {
            const CaseResult r = check_case(session->backend, c, CheckSettings{});
            // a backend that ends during the case crashed it (CONVCHECK_ERROR_CRASHED); the others are its errors
            const bool ended = std::string(mode) == "silent_exit";
            EXPECT_EQ(r.status, ended ? Status::crashed : Status::failed) << mode << ": " << r.reason;
            EXPECT_STREQ(to_string(r.kind), ended ? "crash" : "plugin_error") << mode << ": " << r.reason;
            EXPECT_NE(r.reason.find(part), std::string::npos) << mode << ": '" << r.reason << "' lacks '" << part << "'";
        }
    }
}

TEST(ExecZooRaw, AnotherProtocolVersionIsRefusedByName) {
    try {
        open_backend("exec:/usr/bin/python3 " + kRaw + " version2", {}, 0, "none", 20.0);
        FAIL() << "a backend speaking protocol 2 was accepted";
    } catch (const PluginError& e) {
        EXPECT_NE(std::string(e.what()).find("the backend speaks exec protocol 2; this runner speaks protocol 1"),
                  std::string::npos)
            << e.what();
    }
}

TEST(ExecZooRaw, ACommandThatIsNotThereIsNamed) {
    try {
        open_backend("exec:/nonexistent/backend --flag", {}, 0, "none", 20.0);
        FAIL() << "a missing command was accepted";
    } catch (const PluginError& e) {
        EXPECT_NE(std::string(e.what()).find("exited with status 127"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("not found"), std::string::npos) << e.what();
    }
}

}  // namespace
