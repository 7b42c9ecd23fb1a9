"""Determinism mode and failure bundles through the `convcheck` command, end to end
(ctest conformance_determinism_<check>; docs/runner.md).

usage: determinism_check.py <check> <convcheck> <plugin dir>
  numbers   --repeat and --threads-sweep refuse bad values (exit 2 naming option, value and rule), and
            --threads with --threads-sweep
  record    the run record holds repeat and threads_sweep; merge refuses shards that differ in them
  catches   a backend whose bits follow the thread count passes one run and fails --threads-sweep 1,2
            as nondeterministic; its one-line reproducer, run as printed, fails the same way
  bundle    --dump-failures refuses a folder it cannot write (exit 2) before any case; the bundle of a
            failing case reloads with numpy and holds what the runner judged: the mismatch count, the
            first mismatch's got/want, the worst output's got/want, in every dtype and layout
"""
import json
import os
import re
import shlex
import sys
import tempfile

import numpy as np

from cli_run import records, run_convcheck

check, convcheck, plugin_dir = sys.argv[1], sys.argv[2], sys.argv[3]
tmp = tempfile.mkdtemp(prefix=f"convcheck_determinism_{check}_")
mutants = os.path.join(plugin_dir, "libconvcheck_plugin_mutants.so")
reference = os.path.join(plugin_dir, "libconvcheck_plugin_reference.so")


def run(args, expect):
    return run_convcheck(convcheck, args, expect)


def path(name):
    return os.path.join(tmp, name)


def cases(file):
    return [r for r in records(file) if r["record"] == "case"]


def expect_in(text, *parts):
    for part in parts:
        assert part in text, f"{part!r} not in:\n{text}"


def check_numbers():
    base = ["run", "--backend", reference, "--case", "c=1,o=1,in=3,k=1"]
    rule = "a comma-separated list of distinct integers, each in [0, 4096]"
    for option, value, text in (("--repeat", "0", "an integer in [1, 1000]"),
                                ("--repeat", "1.5", "an integer in [1, 1000]"),
                                ("--repeat", "nan", "an integer in [1, 1000]"),
                                ("--repeat", "1001", "an integer in [1, 1000]"),
                                ("--threads-sweep", "1,1", rule),
                                ("--threads-sweep", "1,,2", rule),
                                ("--threads-sweep", "-1", rule),
                                ("--threads-sweep", "1,4097", rule),
                                ("--threads-sweep", "1;2", rule),
                                ("--threads-sweep", "", rule)):
        p = run(base + [option, value], expect=2)
        expect_in(p.stderr, option, f"'{value}'", text)
    p = run(base + ["--threads", "2", "--threads-sweep", "1,2"], expect=2)
    expect_in(p.stderr, "--threads-sweep sets the thread count of every run: give it or --threads, not both")


def check_record():
    # The transposed suite: 46 cases, enough for two shards, at a fifth of the edge suite's time.
    base = ["run", "--backend", reference, "--suite", "transposed", "--quiet", "--no-shrink"]
    shard0 = path("s0.jsonl")
    run(base + ["--shard", "0/2", "--json", shard0, "--repeat", "2", "--threads-sweep", "1,2"], expect=0)
    first = records(shard0)[0]
    assert first["repeat"] == 2 and first["threads_sweep"] == [1, 2], first
    for extra, field, values in ((["--repeat", "3", "--threads-sweep", "1,2"], "repeat", ("3", "2")),
                                 (["--repeat", "2", "--threads-sweep", "2,1"], "threads_sweep", ("[2,1]", "[1,2]")),
                                 (["--repeat", "2"], "threads_sweep", ("null", "[1,2]"))):
        other = path("s1_" + "_".join(extra) + ".jsonl")
        run(base + ["--shard", "1/2", "--json", other] + extra, expect=0)
        p = run(["merge", shard0, other, "--quiet"], expect=2)
        expect_in(p.stderr, f"the shards are not one run: {field} is {values[0]} in {other} but {values[1]}")
    other = path("s1.jsonl")
    run(base + ["--shard", "1/2", "--json", other, "--repeat", "2", "--threads-sweep", "1,2"], expect=0)
    run(["merge", shard0, other, "--quiet"], expect=0)
    plain = path("plain.jsonl")
    run(base + ["--json", plain], expect=0)
    assert records(plain)[0]["repeat"] == 1 and records(plain)[0]["threads_sweep"] is None, records(plain)[0]


def check_catches():
    case = ["--case", "n=2,c=16,o=4,in=7x6,k=3x3,pb=1,pe=1,bias=1", "--mode", "bound"]
    base = ["run", "--backend", mutants, "--backend-option", "mutant=thread_split_order", "--expectations", "none"] + case
    for threads in ("1", "2"):
        run(base + ["--threads", threads, "--quiet"], expect=0)
    out = path("d.jsonl")
    run(base + ["--threads-sweep", "1,2", "--json", out, "--no-shrink"], expect=1)
    (c,) = cases(out)
    assert c["status"] == "failed" and c["kind"] == "nondeterministic", c
    expect_in(c["reason"], "nondeterministic: run 2 (2 threads) differs from run 1 (1 thread)", "first at [")
    expect_in(c["reproducer"], "--threads-sweep 1,2", "--repeat 1")
    # the reproducer as printed (plus the run's --expectations) fails the same way
    again = path("again.jsonl")
    args = shlex.split(c["reproducer"])[1:] + ["--expectations", "none", "--json", again, "--no-shrink"]
    run(args, expect=1)
    assert cases(again)[0]["kind"] == "nondeterministic", cases(again)[0]


def bundle_of(record):
    folder = record["failure_bundle"]
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    return folder, manifest


def widen(array, dtype):
    """An array as stored in a bundle, widened to float64 (bf16 is stored as <u2 bit patterns)."""
    if dtype == "bf16":
        return (array.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return array.astype(np.float64)


def to_ncx(array, layout):
    return np.moveaxis(array, -1, 1) if layout == "nxc" else array


def load(folder, entry):
    a = np.load(os.path.join(folder, entry["file"]))
    assert list(a.shape) == entry["shape"] and a.dtype.str == entry["npy"], (entry, a.dtype, a.shape)
    return a


def check_bundle():
    for bad in ("/proc/convcheck_no", "/dev/null"):
        p = run(["run", "--backend", reference, "--suite", "smoke", "--dump-failures", bad], expect=2)
        expect_in(p.stderr, "--dump-failures: cannot write into '" + bad + "'")
    bundles = path("bundles")
    out = path("b.jsonl")
    descriptors = ["c=3,o=5,in=6x5,k=3x3,pb=1,pe=1,bias=1", "c=3,o=5,in=6x5,k=3x3,pb=1,pe=1,bias=1,data=nxc,wei=xio",
                   "c=4,o=4,g=2,in=6,k=3,bias=1,dt=bf16", "c=4,o=4,in=6x5,k=3x3,bias=1,dt=f16,data=nxc"]
    for mode in ("exact", "bound"):
        args = ["run", "--backend", mutants, "--backend-option", "mutant=bias_dropped", "--expectations", "none",
                "--mode", mode, "--dump-failures", bundles, "--json", out, "--no-shrink"]
        for d in descriptors:
            args += ["--case", d]
        run(args, expect=1)
        for c in cases(out):
            assert c["status"] == "failed", c
            folder, m = bundle_of(c)
            assert os.path.isdir(folder) and folder.startswith(bundles), folder
            for key in ("case_id", "descriptor", "seed", "mode", "reproducer", "status", "kind", "reason"):
                assert m[key] == c[key], (key, m[key], c[key])
            assert m["format"] == "convcheck-failure-bundle" and m["backend"]["name"] == "mutants", m
            assert m["backend"]["version"] and m["backend"]["implementation"] == "mutant_bias_dropped", m["backend"]
            dt = c["features"]["dtype"]  # current benchdnn's FWD_B bias is f32: another bias type is --bia-dt's
            want = "--conv --dir=FWD_B --dt=f32" if dt == "f32" else f"--conv --dir=FWD_D --dt={dt} --bia-dt={dt}"
            assert m["benchdnn"].startswith(want), (want, m["benchdnn"])
            (e,) = m["executions"]
            arrays = e["arrays"]
            assert set(arrays) == {"src", "weights", "bias", "expected", "expected_f64", "magnitude", "terms",
                                   "actual"}, arrays
            dt, layout = c["features"]["dtype"], c["features"]["data_format"]
            actual = to_ncx(widen(load(folder, arrays["actual"]), dt), layout)
            expected = to_ncx(widen(load(folder, arrays["expected"]), dt), layout)
            want = load(folder, arrays["expected_f64"])
            assert load(folder, arrays["terms"]).dtype == np.int64 and load(folder, arrays["magnitude"]).shape == want.shape
            error = c["error"]
            if mode == "exact":  # what the runner counted, counted again on the dumped arrays
                assert int(np.sum(actual != expected)) == error["mismatches"], (np.sum(actual != expected), error)
                first = re.search(r"first at \[([\d,]+)\]: got ([^,;\s]+), want ([^,;\s]+)", c["reason"])
                index = tuple(int(i) for i in first.group(1).split(","))
                assert actual[index] == float(first.group(2)) and expected[index] == float(first.group(3)), \
                    (index, actual[index], expected[index], c["reason"])
            else:  # the worst output: the backend's value and the reference's exact one
                index = tuple(error["worst"]["index"])
                assert actual[index] == error["worst"]["got"] and want[index] == error["worst"]["want"], \
                    (index, actual[index], want[index], error["worst"])
            # the bias was dropped: the backend's output plus the bias is the expected one, to rounding
            bias = widen(load(folder, arrays["bias"]), dt)
            assert np.allclose(actual + bias.reshape([1, -1] + [1] * (actual.ndim - 2)), want, rtol=2**-7, atol=2**-7), folder
    # a nondeterministic case: both runs' outputs, differing where the message says
    out = path("n.jsonl")
    run(["run", "--backend", mutants, "--backend-option", "mutant=thread_split_order", "--expectations", "none",
         "--case", "n=2,c=16,o=4,in=7x6,k=3x3,pb=1,pe=1", "--mode", "bound", "--threads-sweep", "1,2",
         "--dump-failures", bundles, "--json", out, "--no-shrink"], expect=1)
    (c,) = cases(out)
    folder, m = bundle_of(c)
    assert [(e["run"], e["threads"]) for e in m["executions"]] == [(1, 1), (2, 2)], m["executions"]
    one, two = (load(folder, e["arrays"]["actual"]) for e in m["executions"])
    first = re.search(r"first at \[([\d,]+)\]: (\S+) \(0x[0-9a-f]+\) in run 1, (\S+) \(0x[0-9a-f]+\) in run 2",
                      c["reason"])
    index = tuple(int(i) for i in first.group(1).split(","))
    assert one[index] != two[index] and np.float32(first.group(2)) == one[index], (index, one[index], two[index])
    assert np.float32(first.group(3)) == two[index], (index, two[index], c["reason"])
    assert int(np.sum(one != two)) == int(re.search(r"in (\d+) of", c["reason"]).group(1)), c["reason"]


globals()["check_" + check]()
print(f"ok: {check}")
