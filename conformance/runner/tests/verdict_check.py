"""A green run must mean it passed (issue 15): the runner's verdict, options and artefacts, end to end
through the `convcheck` command (ctest conformance_verdict_<check>).

usage: verdict_check.py <check> <convcheck> <plugin dir>
Each check is one observation of the issue; each failed on the runner before the fix:
  coverage        a backend that declines every case passes (exit 0); --min-coverage and backends.json
                  floors; the terminal names executed / declined / total and the decline reasons
  empty_suite     an empty, [] or {"cases": []} case file runs 0 cases and exits 0
  hostile         one invalid UTF-8 byte in a plugin's message makes the JUnit file not well-formed
  numbers         --timeout nan, --seed -1, overflowing or fractional numbers are accepted or wrapped
  load_failure    a plugin that fails to load or negotiate (exit 3) leaves no --json / --junit
  merge           merge joins shards of different runs (--mode, --backend-option, --threads ...)
  stopped         --fail-fast and interrupted runs do not say how many cases did not run
  paths           --json and --junit naming one file, or merge writing over its input, are accepted
  quiet           --quiet prints nothing, not even the verdict
  unchecked       a case the contract could not check (zeros, f16 accumulation declared, 2,304 terms) was a
                  passed JSON record, a clean JUnit pass and exit code 0; now status unchecked everywhere, exit 1
                  unless --allow-unchecked, and merge judges the same way
  reproducer      a stored vector's failure printed `--case ... --seed N`, which runs drawn data, not the stored
                  one; now `--suite <set> --case-name <set>/<case>`, which fails the same way run as printed;
                  --case-name naming no case, or given with --case, is refused (exit 2)
"""
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from cli_run import clean_env, records, run_convcheck

check, convcheck, plugin_dir = sys.argv[1], sys.argv[2], sys.argv[3]
tmp = tempfile.mkdtemp(prefix=f"convcheck_verdict_{check}_")
faultzoo = os.path.join(plugin_dir, "libconvcheck_plugin_faultzoo.so")
wrong_abi = os.path.join(plugin_dir, "libconvcheck_plugin_faultzoo_wrong_abi.so")
abi_1_0 = os.path.join(plugin_dir, "libconvcheck_plugin_abi_1_0.so")
mutants = os.path.join(plugin_dir, "libconvcheck_plugin_mutants.so")
accuracy_mutants = os.path.join(plugin_dir, "libconvcheck_plugin_accuracy_mutants.so")
cc_vectors = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "vectors", "sets", "cc")


def run(args, expect):
    return run_convcheck(convcheck, args, expect)


def path(name):
    return os.path.join(tmp, name)


def junit(file):
    """Parsed by a real XML parser (ElementTree's expat), and by xmllint when it is installed."""
    if os.path.exists("/usr/bin/xmllint"):
        p = subprocess.run(["/usr/bin/xmllint", "--noout", file], capture_output=True, text=True, errors="replace")
        assert p.returncode == 0, f"xmllint: {file} is not well-formed:\n{p.stderr}"
    return ET.parse(file).getroot()


def summary(file):
    r = records(file)
    assert r[0]["record"] == "run" and r[-1]["record"] == "summary" and r[-1]["complete"] is True, file
    return r[-1]


def expect_in(text, *parts):
    for part in parts:
        assert part in text, f"{part!r} not in:\n{text}"


def check_coverage():
    # every case declined (faultzoo does not claim CC layers): a failure, with a message saying so
    p = run(["run", "--backend", "faultzoo", "--suite", "cc", "--no-progress", "--json", path("cc.jsonl"),
             "--junit", path("cc.xml")], expect=1)
    expect_in(p.stdout, "no case executed", "0 of 68 cases executed", "68 declined by the backend",
              "the plugin does not claim continuous convolution")
    s = summary(path("cc.jsonl"))
    assert (s["executed"], s["declined"], s["total"], s["coverage"], s["exit_code"]) == (0, 68, 68, 0.0, 1), s
    assert s["decline_reasons"] == [{"reason": "the plugin does not claim continuous convolution", "count": 34},
                                    {"reason": "the plugin does not claim the backward pass of continuous convolution",
                                     "count": 34}], s
    suite = junit(path("cc.xml")).find("testsuite")
    assert int(suite.get("failures")) == 1, suite.attrib
    assert "no case executed" in suite.find("testcase[@name='coverage']/failure").get("message")
    # ... even when the floor is 0: a run that checked nothing has not passed
    run(["run", "--backend", "faultzoo", "--suite", "cc", "--quiet", "--min-coverage", "0"], expect=1)

    # smoke: 105 of 156 execute (the 10 CC cases, the 4 CC backward ones, the 8 transposed ones, the 11 quantized
    # ones, the 8 of mixed dtypes, the 4 of fp8, the 4 of float post-ops and the 2 of f64 are declined): 67.3 %
    base = ["run", "--backend", "faultzoo", "--suite", "smoke", "--no-progress"]
    p = run(base + ["--json", path("smoke.jsonl")], expect=0)
    expect_in(p.stdout, "105 cases executed, 51 declined by the backend, 0 not run of 156 cases in this run: "
              "coverage 67.3 % (floor 1.0 % from the default)", "pass rate 100.0 % of the cases executed",
              "     10: the plugin does not claim continuous convolution",
              "      8: the plugin does not claim transposed convolution",
              "      8: the plugin does not claim dtype u8 (src)",
              "      4: the plugin does not claim the backward pass of continuous convolution",
              "      4: the plugin does not claim the post-op kind of relu (plugin_info.post_op_kinds)")
    s = summary(path("smoke.jsonl"))
    assert (s["executed"], s["declined"], s["pass_not_claimed"], s["total"], s["not_run"]) == (105, 51, 0, 156, 0), s
    assert abs(s["coverage"] - 105 / 156) < 1e-12 and s["min_coverage"] == 0.01, s
    # every case record names its fused post-ops (the report's feature matrix), declined ones too
    cases = {r["shape_name"]: r for r in records(path("smoke.jsonl")) if r["record"] == "case"}
    assert cases["quantized/general_relu_sum"]["features"]["post_ops"] == ["relu", "sum"], cases
    assert cases["post_ops/groups_relu_sum_clip_per_oc"]["features"]["post_ops"] == ["relu", "sum", "clip", "mul:per_oc"]
    p = run(base + ["--min-coverage", "0.95"], expect=1)
    expect_in(p.stdout, "coverage 67.3 % (105 of 156 cases executed, 51 declined by the backend) is below the floor "
              "95.0 % from --min-coverage: at least 149 of the 156 cases must execute")
    run(base + ["--min-coverage", "0.673"], expect=0)

    # a plugin of ABI 1.0 cannot claim the backward passes: smoke's 22 backward cases are declined and counted apart,
    # and the floor applies to the 134 cases of the passes it claims (39 execute: 29.1 % of them, 25.0 % of all; the
    # CC backward cases are declined with the CC ones, the transposed ones, an operation it does not claim at all, the
    # quantized, fp8, post-op and scales ones, which ABI 1.0 cannot express, and the mixed-dtype ones, which it cannot
    # claim, and the f64 one, a dtype it does not claim)
    old = ["run", "--backend", abi_1_0, "--suite", "smoke", "--no-progress"]
    p = run(old + ["--json", path("old.jsonl"), "--min-coverage", "0.29"], expect=0)
    expect_in(p.stdout, "22 declined cases are of a pass the backend does not claim (prop_kinds): the floor applies to "
              "the other 134 cases, coverage 29.1 % of those",
              "     11: the plugin does not claim prop_kind backward_weights")
    s = summary(path("old.jsonl"))
    assert (s["executed"], s["declined"], s["pass_not_claimed"], s["total"]) == (39, 117, 22, 156), s
    p = run(old + ["--min-coverage", "0.40"], expect=1)
    expect_in(p.stdout, "coverage 29.1 % (39 of 156 cases executed, 117 declined by the backend (22 of a pass it does "
              "not claim)) is below the floor 40.0 % from --min-coverage: at least 54 of the 134 cases of the passes the "
              "backend claims must execute")

    # a floor in the declarations file: the stricter of the two applies, and the message says where it is from
    declarations = path("backends.json")
    with open(declarations, "w") as f:
        json.dump({"schema": 1, "backends": {"faultzoo": {"accumulation": "f32", "min_coverage": 0.95}}}, f)
    p = run(base + ["--expectations", declarations, "--min-coverage", "0.5", "--json", path("floor.jsonl")], expect=1)
    expect_in(p.stdout, f"below the floor 95.0 % from {declarations} (backends.faultzoo.min_coverage)")
    assert records(path("floor.jsonl"))[0]["min_coverage"] == 0.95
    run(base + ["--expectations", declarations, "--min-coverage", "0.99"], expect=1)  # stricter: the option's
    with open(declarations, "w") as f:
        json.dump({"schema": 1, "backends": {"faultzoo": {"min_coverage": 95}}}, f)
    p = run(base + ["--expectations", declarations], expect=2)
    expect_in(p.stderr, "backends.faultzoo.min_coverage: 95 is not a fraction in [0, 1]")


def check_empty_suite():
    for name, text in (("empty.json", ""), ("array.json", "[]"), ("object.json", '{"cases": []}'),
                       ("results.jsonl", '{"record": "run"}\n{"record": "summary"}\n'), ("shapes.txt", "# no problems\n")):
        with open(path(name), "w") as f:
            f.write(text)
        p = run(["run", "--backend", "faultzoo", "--suite", path(name), "--quiet"], expect=2)
        assert "no cases" in p.stderr or "no benchdnn problems" in p.stderr, p.stderr
        run(["list", "--suite", path(name)], expect=2)


def check_hostile():
    # the fault zoo's hostile_message: invalid UTF-8, control characters, ANSI escapes, newlines, markup
    run(["run", "--backend", "faultzoo", "--backend-option", "fault=hostile_message", "--suite", "smoke",
         "--no-shrink", "--no-progress", "--json", path("h.jsonl"), "--junit", path("h.xml")], expect=1)
    cases = [r for r in records(path("h.jsonl")) if r["record"] == "case"]
    hostile = [c for c in cases if "hostile" in c["reason"]]
    assert len(hostile) == 105, len(hostile)  # every conv case of smoke, all passes (the CC and transposed cases are declined)
    for c in hostile:
        reason = c["reason"]
        assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in reason), repr(reason)
        assert "\ufffe" not in reason and "[1;31m" not in reason and "\n" not in reason, repr(reason)
        assert "\ufffd" in reason and "red" in reason and 'hostile <&"\'> ]]>' in reason, repr(reason)
    root = junit(path("h.xml"))
    messages = [e.get("message") for e in root.iter() if e.get("message")]
    assert sum("hostile" in m for m in messages) == 105, len(messages)
    s = summary(path("h.jsonl"))
    assert s["decline_reasons"][0]["count"] == 15 and "hostile" in s["decline_reasons"][0]["reason"], s
    # ... and through a failed negotiation (exit code 3)
    run(["run", "--backend", "faultzoo", "--backend-option", "fault=hostile_create", "--quiet",
         "--json", path("c.jsonl"), "--junit", path("c.xml")], expect=3)
    assert "hostile" in summary(path("c.jsonl"))["error"]
    assert "hostile" in junit(path("c.xml")).find("testsuite/testcase/failure").get("message")
    # merge reads such files and writes them out valid again
    run(["merge", path("h.jsonl"), "--json", path("m.jsonl"), "--junit", path("m.xml"), "--quiet"], expect=1)
    records(path("m.jsonl"))
    junit(path("m.xml"))


def check_numbers():
    # (command line, option, value, rule): exit 2 naming all three; nothing wrapped, clamped or disabled
    bad = [
        (["run", "--backend", "faultzoo", "--seed", "-1"], "--seed", "-1", "an integer in [0, 18446744073709551615]"),
        (["run", "--backend", "faultzoo", "--seed", "18446744073709551616"], "--seed", "18446744073709551616",
         "an integer in [0, 18446744073709551615]"),
        (["run", "--backend", "faultzoo", "--seed", "1.5"], "--seed", "1.5", "an integer"),
        (["list", "--seed", "-1"], "--seed", "-1", "an integer in [0, 18446744073709551615]"),
        (["run", "--backend", "faultzoo", "--timeout", "nan"], "--timeout", "nan", "a finite number of seconds in (0, 86400]"),
        (["run", "--backend", "faultzoo", "--timeout", "inf"], "--timeout", "inf", "a finite number of seconds"),
        (["run", "--backend", "faultzoo", "--timeout", "0"], "--timeout", "0", "(0, 86400]"),
        (["run", "--backend", "faultzoo", "--timeout", "1e400"], "--timeout", "1e400", "a finite number of seconds"),
        (["run", "--backend", "faultzoo", "--threads", "-1"], "--threads", "-1", "an integer in [0, 4096]"),
        (["run", "--backend", "faultzoo", "--threads", "99999999999"], "--threads", "99999999999", "an integer in [0, 4096]"),
        (["run", "--backend", "faultzoo", "--shrink-seconds", "nan"], "--shrink-seconds", "nan", "[0, 86400]"),
        (["run", "--backend", "faultzoo", "--min-coverage", "nan"], "--min-coverage", "nan", "a fraction in [0, 1]"),
        (["run", "--backend", "faultzoo", "--min-coverage", "50"], "--min-coverage", "50", "a fraction in [0, 1]"),
        (["run", "--backend", "faultzoo", "--min-coverage", "-0.5"], "--min-coverage", "-0.5", "a fraction in [0, 1]"),
        (["bench", "--timeout", "nan"], "--timeout", "nan", "a finite number of seconds"),
        (["bench", "--timeout", "-inf"], "--timeout", "-inf", "a finite number of seconds"),
        (["bench", "--threads", "-2"], "--threads", "-2", "an integer in [0, 4096]"),
        (["bench", "--repeats", "0"], "--repeats", "0", "an integer in [1, 256]"),
        (["bench", "--repeats", "2.5"], "--repeats", "2.5", "an integer in [1, 256]"),
    ]
    for args, option, value, rule in bad:
        p = run(args, expect=2)
        expect_in(p.stderr, option, f"'{value}'", rule)
    # run shards: the same strictness
    p = run(["run", "--backend", "faultzoo", "--shard", "-1/2"], expect=2)
    expect_in(p.stderr, "--shard index", "'-1'", "is not an integer")
    # describe takes numbers only inside descriptors and attributes: the descriptor's rules
    p = run(["describe", "c=1,o=1,in=5x5,k=3x3,pb=nan"], expect=2)
    expect_in(p.stderr, "pb = nan", "must be a 64-bit integer")
    p = run(["describe", "c=1,o=1,in=99999999999999999999,k=3"], expect=2)
    expect_in(p.stderr, "in = 99999999999999999999", "must be a 64-bit integer")
    # the largest seed is a seed, not an error
    run(["list", "--suite", "edge", "--seed", "18446744073709551615"], expect=0)


def check_load_failure():
    for backend, reason in ((wrong_abi, "ABI 99.0"), (path("missing.so"), "does not exist")):
        run(["run", "--backend", backend, "--suite", "smoke", "--json", path("l.jsonl"), "--junit", path("l.xml")],
            expect=3)
        r = records(path("l.jsonl"))
        assert r[0]["record"] == "run" and r[0]["cases_total"] == 156, r[0]
        s = r[-1]
        assert s["record"] == "summary" and s["exit_code"] == 3 and reason in s["error"], s
        assert (s["executed"], s["not_run"], s["total"]) == (0, 156, 156), s
        suite = junit(path("l.xml")).find("testsuite")
        assert (suite.get("tests"), suite.get("failures")) == ("1", "1"), suite.attrib
        failure = suite.find("testcase/failure")
        assert reason in failure.get("message"), failure.attrib


def check_merge():
    base = ["run", "--backend", "faultzoo", "--suite", "edge", "--quiet", "--no-shrink"]
    shard0 = path("s0.jsonl")
    run(base + ["--shard", "0/2", "--json", shard0], expect=0)
    first = records(shard0)[0]
    for key in ("backend_options", "mode_filter", "suite_checksum", "cases_total", "timeout_s", "min_coverage",
                "memory_limit_bytes", "expectations_path", "expectations_checksum", "convcheck_version"):
        assert key in first, key
    assert first["mode_filter"] is None and first["backend_options"] == [] and first["memory_limit_bytes"] > 0, first  # the default: half the available memory
    # one defining field different at a time: merge refuses, naming the field and both values
    for extra, field, values in ((["--mode", "exact"], "mode_filter", ('"exact"', "null")),
                                 (["--backend-option", "fault=none"], "backend_options", ('["fault=none"]', "[]")),
                                 (["--threads", "2"], "threads", ("2", "0")),
                                 (["--seed", "7"], "seed", ("7", "1")),
                                 (["--timeout", "29"], "timeout_s", ("29.0", "30.0")),
                                 (["--min-coverage", "0.5"], "min_coverage", ("0.5", "0.01")),
                                 (["--expectations", "none"], "expectations_checksum", ("null", '"sha256:'))):
        other = path("s1_" + field + ".jsonl")
        run(base + ["--shard", "1/2", "--json", other] + extra, expect=0)
        p = run(["merge", shard0, other, "--quiet"], expect=2)
        expect_in(p.stderr, f"the shards are not one run: {field} is {values[0]} in {other} but {values[1]}")
    other = path("s1.jsonl")
    run(base + ["--shard", "1/2", "--json", other], expect=0)
    p = run(["merge", shard0, other, "--json", path("all.jsonl")], expect=0)
    s = summary(path("all.jsonl"))
    # every case of edge but the transposed and quantized ones, which the fault zoo declines (its dtypes are floats)
    assert s["total"] == records(shard0)[0]["cases_total"] == s["executed"] + s["declined"], s
    reasons = {r["reason"]: r["count"] for r in s["decline_reasons"]}
    assert set(reasons) == {"the plugin does not claim transposed convolution", "the plugin does not claim dtype u8 (src)",
                            "the plugin does not claim dtype s8 (src)"}, s
    assert sum(reasons.values()) == s["declined"], s
    assert reasons["the plugin does not claim dtype u8 (src)"] + reasons["the plugin does not claim dtype s8 (src)"] == 11, s
    expect_in(p.stdout, f"{s['executed']} cases executed, {s['declined']} declined")
    # an incomplete shard (cut off before its summary) is refused
    with open(other) as f:
        lines = f.readlines()
    with open(path("cut.jsonl"), "w") as f:
        f.writelines(lines[:-1])
    p = run(["merge", shard0, path("cut.jsonl"), "--quiet"], expect=2)
    expect_in(p.stderr, "no summary record: an incomplete run")


def check_stopped():
    # --fail-fast: the first case crashes; the 155 others did not run, and every artefact says so
    run(["run", "--backend", "faultzoo", "--backend-option", "fault=segfault", "--suite", "smoke", "--fail-fast",
         "--no-shrink", "--no-progress", "--json", path("ff.jsonl"), "--junit", path("ff.xml")], expect=1)
    s = summary(path("ff.jsonl"))
    assert (s["executed"], s["not_run"], s["total"]) == (1, 155, 156) and len(s["not_run_cases"]) == 155, s
    assert "--fail-fast" in s["stopped"], s
    suite = junit(path("ff.xml")).find("testsuite")
    assert (suite.get("tests"), suite.get("errors"), suite.get("skipped")) == ("156", "1", "155"), suite.attrib
    skipped = [e.get("message") for e in suite.iter("skipped")]
    assert len(skipped) == 155 and all(m.startswith("not run: --fail-fast") for m in skipped), skipped[:2]
    # interrupted: a hanging backend, SIGINT / SIGTERM after the first case started
    for sig in (signal.SIGINT, signal.SIGTERM):
        out = open(path("i.out"), "w")
        start = time.monotonic()
        p = subprocess.Popen([convcheck, "run", "--backend", "faultzoo", "--backend-option", "fault=endless_loop",
                              "--suite", "smoke", "--timeout", "60", "--no-progress", "--json", path("i.jsonl"),
                              "--junit", path("i.xml")], env=clean_env(), stdout=out, stderr=subprocess.STDOUT,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(1.5)
        p.send_signal(sig)  # this process only, by its id
        code = p.wait(timeout=30)
        out.close()
        elapsed = time.monotonic() - start
        assert code == -sig, f"ended with {code}, expected by signal {sig}"
        assert elapsed < 20, f"took {elapsed:.1f} s: the hanging case was not cut short"
        s = summary(path("i.jsonl"))
        name = signal.Signals(sig).name
        assert s["stopped"] == f"interrupted by {name}" and s["not_run"] == 156 and s["exit_code"] == 128 + sig, s
        assert not [r for r in records(path("i.jsonl")) if r["record"] == "case"], "a cut-short case was recorded"
        suite = junit(path("i.xml")).find("testsuite")
        assert suite.get("skipped") == "156", suite.attrib
        with open(path("i.out")) as f:
            expect_in(f.read(), "stopped early: interrupted by " + name, "156 cases did not run")


def check_paths():
    same = path("out.txt")
    p = run(["run", "--backend", "faultzoo", "--case", "c=1,o=1,in=3,k=1", "--json", same, "--junit", same], expect=2)
    expect_in(p.stderr, "--json and --junit name the same file")
    p = run(["run", "--backend", "faultzoo", "--case", "c=1,o=1,in=3,k=1", "--json", same,
             "--junit", os.path.join(tmp, ".", "out.txt")], expect=2)
    shard = path("one.jsonl")
    run(["run", "--backend", "faultzoo", "--case", "c=1,o=1,in=3,k=1", "--quiet", "--json", shard], expect=0)
    with open(shard) as f:
        before = f.read()
    for output in (["--json", shard], ["--junit", shard], ["--json", os.path.join(tmp, "..", os.path.basename(tmp),
                                                                                   "one.jsonl")]):
        p = run(["merge", shard, "--quiet"] + output, expect=2)
        expect_in(p.stderr, "merge never writes over its inputs")
    with open(shard) as f:
        assert f.read() == before, "merge changed its input"


def check_quiet():
    p = run(["run", "--backend", "faultzoo", "--suite", "edge", "--quiet"], expect=0)
    lines = [line for line in p.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, p.stdout
    expect_in(lines[0], "faultzoo on edge", "cases executed", "declined", "coverage", "exit code 0")


def check_reproducer():
    base = ["run", "--backend", mutants, "--backend-option", "mutant=cc_bias_dropped", "--expectations", "none",
            "--no-progress"]
    first = path("stored.jsonl")
    run(base + ["--suite", cc_vectors, "--json", first], expect=1)
    failed = [c for c in records(first) if c["record"] == "case" and c["status"] == "failed"]
    assert failed, "the bias-dropping mutant passed every stored CC vector"
    for c in failed:
        assert "--case-name '" in c["reproducer"] and "--seed" not in c["reproducer"], c["reproducer"]
        again = path("again.jsonl")
        args = shlex.split(c["reproducer"])[1:] + ["--expectations", "none", "--json", again]
        run(args, expect=1)
        (same,) = [r for r in records(again) if r["record"] == "case"]
        assert (same["kind"], same["reason"]) == (c["kind"], c["reason"]), (same, c)
    out = run(base + ["--suite", cc_vectors, "--case-name", "cc/no_such_case"], expect=2)
    assert "--case-name 'cc/no_such_case': suite" in out.stderr, out.stderr
    out = run(base + ["--case", "c=1,o=1,in=3,k=1", "--case-name", "x"], expect=2)
    assert "--case-name picks cases of a --suite" in out.stderr, out.stderr



# The example: all zeros with a declared f16 accumulation, 2,304 terms: every per-output bound is vacuous
# and the 2 outputs are too few for the statistics.
VACUOUS = "conv:n=1,c=256,o=2,g=1,in=3x3,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=f16,data=ncx,wei=oix"


def check_unchecked():
    base = ["run", "--backend", accuracy_mutants, "--backend-option", "mutant=zeros", "--case", VACUOUS, "--mode",
            "bound", "--no-progress", "--no-shrink"]
    p = run(base + ["--json", path("u.jsonl"), "--junit", path("u.xml")], expect=1)
    expect_in(p.stdout, "unchecked:\n  ", "unchecked, not counted as passed: ", "1 unchecked (vacuous bound, not passed)",
              "they fail the run unless --allow-unchecked", "exit code 1")
    (c,) = [r for r in records(path("u.jsonl")) if r["record"] == "case"]
    assert (c["status"], c["kind"], c["error"]["judged_by"]) == ("unchecked", "vacuous_bound", "unchecked"), c
    s = summary(path("u.jsonl"))
    assert (s["counts"]["unchecked"], s["counts"]["passed"], s["unchecked"]) == (1, 0, 1), s
    assert (s["exit_code"], s["allow_unchecked"], s["executed"]) == (1, False, 1), s
    suite = junit(path("u.xml")).find("testsuite")
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "0"), suite.attrib
    (failure,) = suite.iter("failure")
    assert failure.get("type") == "unchecked" and failure.get("message").startswith("unchecked, not counted"), failure.attrib
    # asked for explicitly: exit 0; still unchecked in the JSON, skipped (not passed) in JUnit
    p = run(base + ["--allow-unchecked", "--json", path("a.jsonl"), "--junit", path("a.xml")], expect=0)
    expect_in(p.stdout, "allowed by --allow-unchecked", "exit code 0")
    (c,) = [r for r in records(path("a.jsonl")) if r["record"] == "case"]
    assert c["status"] == "unchecked", c
    assert records(path("a.jsonl"))[0]["allow_unchecked"] is True
    s = summary(path("a.jsonl"))
    assert (s["counts"]["unchecked"], s["exit_code"], s["allow_unchecked"]) == (1, 0, True), s
    suite = junit(path("a.xml")).find("testsuite")
    assert (suite.get("failures"), suite.get("skipped")) == ("0", "1"), suite.attrib
    (skipped,) = suite.iter("skipped")
    assert skipped.get("message").startswith("unchecked (allowed by --allow-unchecked): unchecked, not counted"), skipped.attrib
    # merge: the same verdict over the shards, and shards that differ in allow_unchecked are not one run
    two = base + ["--case", VACUOUS]
    for i in (0, 1):
        run(two + ["--shard", f"{i}/2", "--json", path(f"s{i}.jsonl")], expect=1)
        run(two + ["--shard", f"{i}/2", "--allow-unchecked", "--json", path(f"a{i}.jsonl")], expect=0)
    p = run(["merge", path("s0.jsonl"), path("s1.jsonl"), "--json", path("m.jsonl"), "--junit", path("m.xml")], expect=1)
    expect_in(p.stdout, "2 unchecked (vacuous bound, not passed)")
    s = summary(path("m.jsonl"))
    assert (s["counts"]["unchecked"], s["counts"]["passed"], s["exit_code"]) == (2, 0, 1), s
    assert junit(path("m.xml")).find("testsuite").get("failures") == "2"
    p = run(["merge", path("a0.jsonl"), path("a1.jsonl"), "--json", path("ma.jsonl")], expect=0)
    assert summary(path("ma.jsonl"))["exit_code"] == 0
    p = run(["merge", path("s0.jsonl"), path("a1.jsonl"), "--quiet"], expect=2)
    expect_in(p.stderr, "the shards are not one run: allow_unchecked is")


globals()["check_" + check]()
print(f"ok: {check}")
