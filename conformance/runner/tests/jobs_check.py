"""`convcheck run --jobs N` (docs/runner.md, "Parallel jobs"): cases run at once, results in suite order.

usage: jobs_check.py <convcheck> <optimized plugin> <faultzoo plugin> <check>

  same_results  the edge suite with --jobs 1, 2 and 3: every JSON record, the JUnit file, the terminal
                summary and the HTML report are the same but for timings (and the run record's `jobs`
                and `started`)
  faults        the fault zoo's by_out_channels (a crash, a hang, an abort, a heap that grows past the
                memory limit, an exit, among correct cases) with --jobs 2: each fault is its own case's,
                every other case passes, as with --jobs 1
  fail_fast     --fail-fast with --jobs 2 stops at the first failure in suite order, even when a later
                case fails first: the same results as --jobs 1
  refusals      --jobs that the memory limit cannot fit, and --jobs with an exec: backend, exit 2
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TIMINGS = ("time_ms", "seconds")


def run(convcheck, args, expect=None):
    p = subprocess.run([convcheck, "run"] + args, capture_output=True, text=True, timeout=600)
    if expect is not None and p.returncode != expect:
        raise AssertionError(f"exit code {p.returncode}, want {expect}: {' '.join(args)}\n{p.stdout}\n{p.stderr}")
    return p


def records(path):
    out = []
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        for key in TIMINGS:
            r.pop(key, None)
        if r.get("record") == "run":
            for key in ("jobs", "started"):
                r.pop(key, None)
        out.append(r)
    return out


def without_times(text):
    """JUnit's time attributes and the terminal's durations."""
    text = re.sub(r'time="[0-9.e+-]+"', 'time=""', text)
    text = re.sub(r'timestamp="[^"]*"', 'timestamp=""', text)
    return re.sub(r"\b[0-9]+(\.[0-9]+)? (s|ms)\b", "T", text)


def differences(a, b):
    """The first records that differ, and their keys that differ."""
    for x, y in zip(a, b):
        if x != y:
            keys = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
            return f"{x.get('record')} {x.get('case_id', '')}: " + "; ".join(f"{k}: {y.get(k)!r} vs {x.get(k)!r}" for k in keys)
    return f"{len(b)} records vs {len(a)}"


def jobs_run(convcheck, folder, jobs, args):
    """One run with --jobs; its JSON records, JUnit file and terminal output."""
    j, x = os.path.join(folder, f"jobs{jobs}.jsonl"), os.path.join(folder, f"jobs{jobs}.xml")
    p = run(convcheck, args + ["--jobs", str(jobs), "--json", j, "--junit", x, "--no-progress"])
    return {"code": p.returncode, "json": j, "records": records(j), "junit": without_times(open(x).read()),
            "terminal": without_times(p.stdout)}


def html(folder, jsonl, name):
    """The HTML report of a run whose timings were set to 0 (make_report.py)."""
    os.makedirs(os.path.join(folder, name))
    normalized = os.path.join(folder, name, "run.jsonl")  # the page names its input file
    with open(normalized, "w", encoding="utf-8") as out:
        for line in open(jsonl, encoding="utf-8"):
            r = json.loads(line)
            for key in TIMINGS:
                if key in r:
                    r[key] = 0
            if r.get("record") == "run":
                r["jobs"], r["started"] = 1, "2026-01-01T00:00:00Z"
            out.write(json.dumps(r) + "\n")
    page = os.path.join(folder, name, "report.html")
    script = os.path.join(os.path.dirname(__file__), "..", "..", "..", "reports", "make_report.py")
    subprocess.run(["/usr/bin/python3", os.path.abspath(script), "run.jsonl", "-o", "report.html"], check=True,
                   capture_output=True, timeout=300, cwd=os.path.join(folder, name))
    return re.sub(r"generated [0-9-]+ [0-9:]+ UTC", "generated", open(page, encoding="utf-8").read())


def same_results(convcheck, optimized, faultzoo, folder):
    args = ["--backend", optimized, "--suite", "edge", "--memory-limit", "2G"]
    one = jobs_run(convcheck, folder, 1, args)
    order = [r["case_id"] for r in one["records"] if r.get("record") == "case"]
    assert len(order) > 10 and order == sorted(order), order
    for jobs in (2, 3):
        many = jobs_run(convcheck, folder, jobs, args)
        assert many["code"] == one["code"], (jobs, many["code"], one["code"])
        got = [r["case_id"] for r in many["records"] if r.get("record") == "case"]
        assert got == order, f"--jobs {jobs} reports the cases in another order: {got[:8]}... want {order[:8]}..."
        assert many["records"] == one["records"], f"--jobs {jobs} differs from --jobs 1: " + differences(one["records"], many["records"])
        assert many["junit"] == one["junit"], f"--jobs {jobs}: the JUnit file differs"
        assert many["terminal"] == one["terminal"], f"--jobs {jobs}: the terminal summary differs:\n{many['terminal']}"
        jobs_record = json.loads(open(many["json"]).readline())
        assert jobs_record["jobs"] == jobs, jobs_record
    assert html(folder, os.path.join(folder, "jobs1.jsonl"), "one") == html(folder, os.path.join(folder, "jobs3.jsonl"), "three")


# by_out_channels: o=5 segfault, o=6 endless loop, o=7 abort, o=9 exit; any other o is correct
FAULT_CASES = [("conv:c=2,o=4,in=6x5,k=3x3", "passed", ""),
               ("conv:c=2,o=5,in=6x5,k=3x3", "crashed", "SIGSEGV in execute"),
               ("conv:c=3,o=4,in=7x5,k=3x3", "passed", ""),
               ("conv:c=2,o=6,in=6x5,k=3x3", "hanged", "no result after 5 s (in execute); killed"),
               ("conv:c=1,o=4,in=8x5,k=3x3", "passed", ""),
               ("conv:c=2,o=7,in=6x5,k=3x3", "crashed", "SIGABRT in execute (abort)"),
               ("conv:c=2,o=4,in=6x6,k=3x3", "passed", ""),
               ("conv:c=2,o=8,in=6x5,k=3x3", "crashed", "out of memory: "),
               ("conv:c=3,o=4,in=5x5,k=3x3", "passed", ""),
               ("conv:c=2,o=9,in=6x5,k=3x3", "crashed", "the plugin called exit(7) in execute"),
               ("conv:c=4,o=4,in=6x5,k=3x3", "passed", "")]


def faults(convcheck, optimized, faultzoo, folder):
    # o=8's heap grows at about 200 MiB/s on this VM (its first-touch page faults are slow): a small limit
    args = ["--backend", faultzoo, "--backend-option", "fault=by_out_channels", "--memory-limit", "256M",
            "--timeout", "5", "--no-shrink"]
    for d, _, _ in FAULT_CASES:
        args += ["--case", d]
    one = jobs_run(convcheck, folder, 1, args)
    two = jobs_run(convcheck, folder, 2, args)
    cases = [r for r in two["records"] if r.get("record") == "case"]
    assert len(cases) == len(FAULT_CASES), len(cases)
    for r, (d, status, reason) in zip(cases, FAULT_CASES):
        assert re.search(r"\bo=" + re.search(r"o=(\d+)", d).group(1) + ",", r["descriptor"]), (r["descriptor"], d)
        assert r["status"] == status, f"{d}: {r['status']} ({r.get('reason')}), want {status} ({reason})"
        assert r.get("reason", "").startswith(reason), f"{d}: reason {r.get('reason')!r}, want {reason!r}"
        assert status != "crashed" or r["kind"] == ("out_of_memory" if "memory" in reason else "crash"), r
    # the same verdicts as --jobs 1; how far o=8 grew before it was stopped varies from run to run
    for r in one["records"] + two["records"]:
        if r.get("kind") == "out_of_memory":
            r["reason"] = r["reason"].split(":")[0]
    assert two["records"] == one["records"], "--jobs 2 differs from --jobs 1: " + differences(one["records"], two["records"])


def fail_fast(convcheck, optimized, faultzoo, folder):
    # case 0 hangs for 2 s; case 1 crashes at once, while case 0 still runs: the run still stops at
    # case 0 (the first failure in suite order), case 1 is dropped, and no case after it starts
    descriptors = ["conv:c=2,o=6,in=6x5,k=3x3", "conv:c=2,o=5,in=6x5,k=3x3"] + ["conv:c=2,o=4,in=6x5,k=3x3"] * 6
    args = ["--backend", faultzoo, "--backend-option", "fault=by_out_channels", "--memory-limit", "2G", "--timeout", "2", "--fail-fast"]
    for d in descriptors:
        args += ["--case", d]
    one = jobs_run(convcheck, folder, 1, args)
    two = jobs_run(convcheck, folder, 2, args)
    assert two["code"] == 1, two["code"]
    cases = [r for r in two["records"] if r.get("record") == "case"]
    assert [r["status"] for r in cases] == ["hanged"], [(r["case_id"], r["status"]) for r in cases]
    summary = two["records"][-1]
    assert summary["not_run"] == 7 and "--fail-fast: stopped after cli/0000 hanged" in summary["stopped"], summary
    assert two["records"] == one["records"], "--fail-fast: --jobs 2 differs from --jobs 1: " + differences(one["records"], two["records"])
    # a failure later in the suite (case 2) with passing cases before it: they are all reported
    args = ["--backend", faultzoo, "--backend-option", "fault=by_out_channels", "--memory-limit", "2G", "--fail-fast", "--no-shrink"]
    for d in ["conv:c=2,o=4,in=6x5,k=3x3"] * 2 + ["conv:c=2,o=7,in=6x5,k=3x3"] + ["conv:c=2,o=4,in=6x5,k=3x3"] * 9:
        args += ["--case", d]
    two = jobs_run(convcheck, folder, 2, args)
    assert [r["status"] for r in two["records"] if r.get("record") == "case"] == ["passed", "passed", "crashed"]
    assert two["records"][-1]["not_run"] == 9, two["records"][-1]


def refusals(convcheck, optimized, faultzoo, folder):
    p = run(convcheck, ["--backend", optimized, "--suite", "edge", "--jobs", "100000", "--quiet"], expect=2)
    assert "--jobs" in p.stderr, p.stderr
    p = run(convcheck, ["--backend", optimized, "--suite", "edge", "--jobs", "4000", "--memory-limit", "1T", "--quiet"],
            expect=2)
    assert "--jobs 4000: 4000 cases at once may use 4000 x --memory-limit 1024 GiB" in p.stderr, p.stderr
    p = run(convcheck, ["--backend", "exec:true", "--suite", "edge", "--jobs", "2", "--quiet"], expect=2)
    assert "--jobs 2: an exec: or python: backend is one backend process" in p.stderr, p.stderr


def main():
    convcheck, optimized, faultzoo, check = sys.argv[1:5]
    with tempfile.TemporaryDirectory() as folder:
        globals()[check](convcheck, optimized, faultzoo, folder)
    print(f"jobs_check {check}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
