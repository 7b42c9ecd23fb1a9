#!/usr/bin/python3
"""ctest backend_test_survives_a_crashing_plugin: convcheck_backend_test calls every plugin in a child
process (harness.hpp), so a plugin that crashes fails the test in progress and the program goes on:
it runs every selected test, reports the failed ones, and exits 1 (never dies of the plugin's signal).

    isolation_check.py <convcheck_backend_test> <libconvcheck_plugin_faultzoo.so>

The fault zoo computes with the reference and misbehaves on demand (--backend-option fault=<name>):
  none      the control: every selected test passes (exit 0)
  segfault  a store through NULL in every execute: the executing tests fail naming SIGSEGV, the
            tests that only query or describe still pass, and the summary is printed
  abort     abort() in every execute: the same with SIGABRT
"""
import re
import subprocess
import sys

# A few of each kind: tests that execute (table cases, the core case, the plan) and tests that only
# query or describe (which pass whatever execute does).
# (The fault zoo is a test tool, not an ABI-complete backend: it takes f64, backward passes and
# extensions, so the Declines* tests are not among them.)
QUERYING = ("Abi.DescribeWritesNoFieldBeyondTheCallersStructSize", "Abi.ADescriptorShorterThanAbi10IsAnErrorValue",
            "Abi.AShortDescriptorIsAnInvalidArgumentError", "Abi12.FieldsPastTheStructSizeAreTheirDefaults")
FILTER = ":".join(("conv2d_plain.f32_*", "conv1d_crops.f32_*", "Abi.RunsItsCoreCaseAndNamesTheImplementation",
                   "Abi.APlanExecutesTwiceWithTheOneShotOutputs") + QUERYING)


def run(program, plugin, fault):
    p = subprocess.run([program, plugin, "--backend-option", "fault=" + fault, "--gtest_filter=" + FILTER],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", timeout=600)
    return p.returncode, p.stdout


def summary(output):
    ran = re.search(r"^\[==========\] (\d+) tests? from \d+ test suites? ran", output, re.M)
    passed = re.search(r"^\[  PASSED  \] (\d+) test", output, re.M)
    failed = re.findall(r"^\[  FAILED  \] ([\w./]+)(?:,| \()", output, re.M)
    return (int(ran.group(1)) if ran else None, int(passed.group(1)) if passed else 0, sorted(set(failed)))


def main():
    program, plugin = sys.argv[1], sys.argv[2]
    problems = []
    code, out = run(program, plugin, "none")
    ran, passed, failed = summary(out)
    if code != 0 or failed or not ran or passed != ran:
        problems.append(f"fault=none: exit {code}, {ran} ran, {passed} passed, failed {failed}: the control must pass\n{out}")
    total = ran
    for fault, signal in (("segfault", "SIGSEGV"), ("abort", "SIGABRT")):
        code, out = run(program, plugin, fault)
        ran, passed, failed = summary(out)
        where = f"fault={fault}"
        if code < 0:
            problems.append(f"{where}: the test program died of signal {-code}: a plugin call ran in its own process")
        elif code != 1:
            problems.append(f"{where}: exit {code}, want 1 (failed tests)")
        if ran != total:
            problems.append(f"{where}: {ran} tests ran, want all {total} selected: the program stopped early")
        executing = [t for t in failed if t not in QUERYING]
        if len(executing) < 3:
            problems.append(f"{where}: failed {failed}: want every executing test failed, not one")
        if any(t in QUERYING for t in failed):
            problems.append(f"{where}: a test that only queries or describes failed: {failed}")
        if not passed:
            problems.append(f"{where}: no test passed after the first crash")
        if f"crashed (crash): {signal} in" not in out:
            problems.append(f"{where}: no failure names {signal} in the plugin's child")
        print(f"{where}: exit {code}, {ran} ran, {passed} passed, {len(failed)} failed")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("backend_test survives crashing plugins")


if __name__ == "__main__":
    main()
