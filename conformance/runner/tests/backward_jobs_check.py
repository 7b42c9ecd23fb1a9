"""The runner's jobs around a check, for the backward passes, through the `convcheck` command
(ctest conformance_backward_jobs_<check>; docs/passes.md). Each job comes from the operation's entry
in the table of operations (operation_traits.hpp); a backend wrong on purpose is the fault zoo
(faultzoo_plugin.cpp: it computes the backward passes with the reference, then applies its fault).

usage: backward_jobs_check.py <check> <convcheck> <plugin dir>
  shrink       a failing backward case (faultzoo fault=nan_output) is shrunk to a smaller case of the same
               pass that fails the same way; its reproducer, run as printed, fails the same way
  bundle       --dump-failures writes a backward case's bundle: the inputs the backend saw, the reference
               on them (recomputed here with numpy from the dumped inputs, exactly), the gradients got
  determinism  a backend whose gradient bits follow the thread count (fault=bits_follow_threads) passes
               each run alone and fails --threads-sweep 1,2 as nondeterministic, naming the gradient
               element; the reference passes the backward suite with --repeat 2, no case declined
  bench        `convcheck bench` times both passes (a record with a time for each)
  list         `convcheck list --suite backward --json` counts the backward geometries in the design
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
tmp = tempfile.mkdtemp(prefix=f"convcheck_backward_{check}_")
faultzoo = os.path.join(plugin_dir, "libconvcheck_plugin_faultzoo.so")
reference = os.path.join(plugin_dir, "libconvcheck_plugin_reference.so")


def run(args, expect):
    return run_convcheck(convcheck, args, expect)


def cases(file):
    return [r for r in records(file) if r["record"] == "case"]


def fault(name):
    return ["run", "--backend", faultzoo, "--backend-option", f"fault={name}", "--expectations", "none"]


def keys(descriptor):
    return dict(kv.split("=") for kv in descriptor.split(":", 1)[1].split(","))


def size(descriptor):
    k = keys(descriptor)
    dims = lambda text: [int(v) for v in text.split("x")]
    return int(k["n"]) * int(k["c"]) * int(k["o"]) * int(np.prod(dims(k["in"]))) * int(np.prod(dims(k["k"])))


def check_shrink():
    for d in ("conv:n=2,c=4,o=6,g=2,in=7x6,k=3x2,s=2x1,pb=1,pe=0,bias=1,dir=bwd_w",
              "conv:n=2,c=3,o=5,in=6x5,k=3x3,pb=1,pe=1,data=nxc,wei=xio,dir=bwd_d"):
        out = os.path.join(tmp, "s.jsonl")
        run(fault("nan_output") + ["--case", d, "--mode", "exact", "--json", out, "--quiet"], expect=1)
        (c,) = cases(out)
        assert c["status"] == "failed" and c["kind"] == "nan", c
        shrunk = c.get("shrunk_descriptor")
        assert shrunk, f"a failing backward case was not shrunk: {c}"
        assert keys(shrunk)["dir"] == keys(d)["dir"], (shrunk, d)  # the pass is kept
        assert size(shrunk) < size(d), (shrunk, d)
        again = os.path.join(tmp, "again.jsonl")
        args = shlex.split(c["shrunk_reproducer"])[1:] + ["--expectations", "none", "--json", again, "--no-shrink"]
        run(args, expect=1)
        (a,) = cases(again)
        assert a["descriptor"] == shrunk and a["kind"] == "nan" and a["op"] == c["op"], a


def widen(array, dtype):
    if dtype == "bf16":
        return (array.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return array.astype(np.float64)


def load(folder, entry):
    a = np.load(os.path.join(folder, entry["file"]))
    assert list(a.shape) == entry["shape"] and a.dtype.str == entry["npy"], (entry, a.dtype, a.shape)
    return widen(a, entry["dtype"])


def pairs(d):
    """The forward's index set of a 2-D convolution with groups 1: (y, x, ky, kx, iy, ix) for every
    output (y, x) and tap (ky, kx) whose input (iy, ix) lies inside the input."""
    k = keys(d)
    ih, iw = (int(v) for v in k["in"].split("x"))
    kh, kw = (int(v) for v in k["k"].split("x"))
    sh, sw = (int(v) for v in k["s"].split("x"))
    ph, pw = (int(v) for v in k["pb"].split("x"))
    eh, ew = (int(v) for v in k["pe"].split("x"))
    oh, ow = (ih + ph + eh - kh) // sh + 1, (iw + pw + ew - kw) // sw + 1
    for y in range(oh):
        for x in range(ow):
            for ky in range(kh):
                for kx in range(kw):
                    iy, ix = y * sh - ph + ky, x * sw - pw + kx
                    if 0 <= iy < ih and 0 <= ix < iw:
                        yield y, x, ky, kx, iy, ix


def check_bundle():
    bundles = os.path.join(tmp, "bundles")
    out = os.path.join(tmp, "b.jsonl")
    data = "conv:n=2,c=3,o=4,in=6x5,k=3x2,s=2x1,pb=1x0,pe=0x1,data=nxc,wei=xio,dir=bwd_d"
    weights = "conv:n=2,c=3,o=4,in=6x5,k=3x2,s=1x2,pb=0x1,pe=1x0,bias=1,dir=bwd_w"
    run(fault("nan_output") + ["--case", data, "--case", weights, "--mode", "exact", "--dump-failures", bundles,
                               "--json", out, "--no-shrink", "--quiet"], expect=1)
    by_pass = {c["op"]: c for c in cases(out)}
    assert set(by_pass) == {"conv_bwd_data", "conv_bwd_weights"}, by_pass
    for op, c in by_pass.items():
        folder = c["failure_bundle"]
        with open(os.path.join(folder, "manifest.json")) as f:
            m = json.load(f)
        for key in ("case_id", "descriptor", "seed", "mode", "reproducer", "status", "kind", "reason", "op"):
            assert m[key] == c[key], (key, m[key], c[key])
        # benchdnn's --dir for the pass, or why benchdnn cannot take the line
        want_dir = "BWD_D" if op == "conv_bwd_data" else "BWD_WB"
        assert (m["benchdnn"] or "").startswith(f"--conv --dir={want_dir}") or m["benchdnn_unavailable"], m
        (e,) = m["executions"]
        a = e["arrays"]
        if op == "conv_bwd_data":
            assert set(a) == {"weights", "diff_dst", "expected", "expected_f64", "magnitude", "terms", "actual"}, a
            w = np.transpose(load(folder, a["weights"]), (3, 2, 0, 1))  # xio [kh, kw, i, o] -> oix
            dd = np.moveaxis(load(folder, a["diff_dst"]), -1, 1)       # nxc -> ncx
            want = np.zeros((2, 3, 6, 5))
            terms = np.zeros((2, 3, 6, 5), dtype=np.int64)
            for y, x, ky, kx, iy, ix in pairs(c["descriptor"]):
                want[:, :, iy, ix] += dd[:, :, y, x] @ w[:, :, ky, kx]
                terms[:, :, iy, ix] += 4
            assert np.array_equal(load(folder, a["expected_f64"]), want), "expected_f64 is not backward data"
            assert np.array_equal(np.moveaxis(load(folder, a["expected"]), -1, 1), want)
            assert np.array_equal(load(folder, a["terms"]), terms)
            assert np.isnan(load(folder, a["actual"])).all() and a["actual"]["shape"] == [2, 6, 5, 3], a["actual"]
        else:
            assert set(a) == {"src", "diff_dst", "expected", "expected_f64", "magnitude", "terms", "actual",
                              "expected_bias", "expected_f64_bias", "magnitude_bias", "terms_bias", "actual_bias"}, a
            src, dd = load(folder, a["src"]), load(folder, a["diff_dst"])
            want = np.zeros((4, 3, 3, 2))
            for y, x, ky, kx, iy, ix in pairs(c["descriptor"]):
                want[:, :, ky, kx] += dd[:, :, y, x].T @ src[:, :, iy, ix]
            assert np.array_equal(load(folder, a["expected_f64"]), want), "expected_f64 is not backward weights"
            assert np.array_equal(load(folder, a["expected"]), want)
            assert np.array_equal(load(folder, a["expected_f64_bias"]), dd.sum(axis=(0, 2, 3)))
            assert np.array_equal(load(folder, a["expected_bias"]), dd.sum(axis=(0, 2, 3)))
            assert np.isnan(load(folder, a["actual"])).all() and np.isnan(load(folder, a["actual_bias"])).all()
        # the reason's first mismatch is where the dumped arrays say
        first = re.search(r"first (diff_\w+)\[([\d,]+)\]: got nan, want (\S+) ", c["reason"])
        assert first, c["reason"]
        index = tuple(int(i) for i in first.group(2).split(","))
        assert load(folder, a["expected_f64"])[index] == float(first.group(3)), (index, c["reason"])


def check_determinism():
    # each with gradients that are exactly 0: diff_src where the stride skips an input, diff_weights
    # where a tap's column lies in the padding for every output (in=1, k=3, pads 2, stride 3 on w)
    for d, element in (("conv:n=2,c=3,o=4,in=7x6,k=1x1,s=2x2,data=nxc,dir=bwd_d", "diff_src["),
                       ("conv:n=1,c=2,o=3,in=5x1,k=3x3,s=1x3,pb=1x2,pe=1x2,wei=xio,dir=bwd_w", "diff_weights[")):
        base = fault("bits_follow_threads") + ["--case", d, "--mode", "bound"]
        for threads in ("1", "2"):
            run(base + ["--threads", threads, "--quiet"], expect=0)
        out = os.path.join(tmp, "d.jsonl")
        run(base + ["--threads-sweep", "1,2", "--json", out, "--no-shrink"], expect=1)
        (c,) = cases(out)
        assert c["status"] == "failed" and c["kind"] == "nondeterministic", c
        assert "run 2 (2 threads) differs from run 1 (1 thread)" in c["reason"] and f"first at {element}" in c["reason"], c
        assert " (0x00000000) in run 1, -0 (0x80000000) in run 2" in c["reason"], c["reason"]
        again = os.path.join(tmp, "again.jsonl")
        run(shlex.split(c["reproducer"])[1:] + ["--expectations", "none", "--json", again, "--no-shrink"], expect=1)
        assert cases(again)[0]["kind"] == "nondeterministic", cases(again)[0]
    out = os.path.join(tmp, "r.jsonl")
    run(["run", "--backend", reference, "--suite", "backward", "--repeat", "2", "--json", out, "--quiet"], expect=0)
    statuses = {c["status"] for c in cases(out)}
    assert statuses == {"passed"} and len(cases(out)) == 104, (statuses, len(cases(out)))  # 96 exact/bound, 8 probe


def check_bench():
    out = os.path.join(tmp, "bench.jsonl")
    run(["bench", "--backend", reference, "--suite", "backward", "--repeats", "1", "--no-reference", "--json", out],
        expect=0)
    bench = [r for r in records(out) if r["record"] == "bench"]
    passes = {keys(r["descriptor"])["dir"] for r in bench if r["status"] == "ok" and r["ms"] is not None}
    assert passes == {"bwd_d", "bwd_w"}, bench[:3]
    assert len(bench) == 48 and all(r["gflops"] is not None for r in bench if r["ms"]), len(bench)


def check_list():
    p = run(["list", "--suite", "backward", "--json"], expect=0)
    design = json.loads(p.stdout)
    assert design["cases"] == 104 and design["conv_descriptors"] == 48, design["cases"]
    p = run(["list", "--suite", "backward"], expect=0)
    assert "# design of the 48 discrete descriptors" in p.stdout, p.stdout[-2000:]


globals()["check_" + check]()
print(f"ok: {check}")
