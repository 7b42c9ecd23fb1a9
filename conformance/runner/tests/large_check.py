"""The large suite through the `convcheck` command, end to end (ctest conformance_large_<check>, label
`large`; docs/large.md). Each case holds a tensor of 2 to 4 GiB: these checks take
minutes and need about 4.5 GiB of memory at a time, so scripts/main.sh does not run them.

usage: large_check.py <check> <convcheck> <plugin dir>
  reference  the reference plugin, which widens every tensor to double, declines every case at query with
             its reason: each counted unsupported, and the run, which executed nothing, fails (exit 1)
  mutants    mutant=none (plain loops straight on the buffers) passes src_f32_past_2^31_bytes_nxc;
             offsets_int32 (element offsets in 32 signed bits) fails or crashes on
             src_bf16_past_2^31_elements_ncx; dst_unwritten_past_2gib fails as unwritten on the case past
             2^31 dst bytes, naming the first output never written, and passes the case of exactly 2^31 dst
             bytes; the backward passes: mutant=none passes the backward-weights case, bwd_weights_offsets_int32
             fails or crashes on it (src past 2^31 elements) and bwd_data_offsets_int32 on the backward-data case
             whose diff_dst passes 2^31 elements; every failure prints a reproducer in sampled mode
  optimized  the optimized implementation passes the four cases it computes (its other three are expected
             failures, out of memory or out of time: docs/backends.md P1-P3)
"""
import os
import re
import sys
import tempfile

from cli_run import records, run_convcheck

check, convcheck, plugin_dir = sys.argv[1], sys.argv[2], sys.argv[3]
tmp = tempfile.mkdtemp(prefix=f"convcheck_large_{check}_")


def plugin(name):
    return os.path.join(plugin_dir, f"libconvcheck_plugin_{name}.so")


def large_cases():
    """name -> descriptor, from `convcheck list --suite large` (the suite is the one place they live)."""
    listed = run_convcheck(convcheck, ["list", "--suite", "large"], 0).stdout
    cases = dict((m.group(2), m.group(1)) for m in re.finditer(r"^large/\d+\s+sampled\s+(\S+)\s+# (\S+)$", listed, re.M))
    assert len(cases) >= 6, listed
    return cases


def run(backend, args, expect, options=()):
    out = os.path.join(tmp, f"{len(os.listdir(tmp))}.jsonl")
    cmd = ["run", "--backend", plugin(backend), "--json", out, "--no-progress", "--threads", "2"] + list(args)
    for o in options:
        cmd += ["--backend-option", o]
    p = run_convcheck(convcheck, cmd, expect)
    return [r for r in records(out) if r["record"] == "case"], p


def check_reference():
    results, p = run("reference", ["--suite", "large"], 1)
    assert len(results) == len(large_cases()), results
    for r in results:
        assert r["status"] == "unsupported", r
        assert "widens every tensor to double" in r["reason"], r
    assert "no case executed" in p.stdout + p.stderr, p.stdout + p.stderr


def check_mutants():
    cases = large_cases()
    results, _ = run("mutants", ["--case", cases["src_f32_past_2^31_bytes_nxc"], "--mode", "sampled"], 0, ["mutant=none"])
    assert results[0]["status"] == "passed", results
    results, _ = run("mutants", ["--case", cases["src_bf16_past_2^31_elements_ncx"], "--mode", "sampled"], 1,
                     ["mutant=offsets_int32"])
    (r,) = results
    assert r["status"] in ("failed", "crashed"), r
    assert "--mode sampled" in r["reproducer"], r
    results, _ = run("mutants", ["--case", cases["dst_f32_past_2^31_bytes_ncx"], "--mode", "sampled"], 1,
                     ["mutant=dst_unwritten_past_2gib"])
    (r,) = results
    assert r["status"] == "failed" and r["kind"] == "unwritten", r
    # the first element never written is the one at byte 2^31, element 2^29
    assert "never written" in r["reason"] and "dst element 536870912, byte 2147483648" in r["reason"], r
    assert "--mode sampled" in r["reproducer"], r
    results, _ = run("mutants", ["--case", cases["dst_f32_exactly_2^31_bytes_ncx"], "--mode", "sampled"], 0,
                     ["mutant=dst_unwritten_past_2gib"])
    assert results[0]["status"] == "passed", results
    # the backward passes: the baseline passes backward weights' case (seconds; its backward data cases sum
    # 2^31 terms in plain loops, minutes); each pass's 32-bit offsets fail its case (backward data: the one
    # whose diff_dst reads wrap at the first input gradient)
    cases_of_pass = {"bwd_w_src_bf16_past_2^31_elements_ncx": "bwd_weights_offsets_int32",
                     "bwd_d_diff_dst_bf16_past_2^31_elements_ncx": "bwd_data_offsets_int32"}
    results, _ = run("mutants", ["--case", cases["bwd_w_src_bf16_past_2^31_elements_ncx"], "--mode", "sampled"], 0,
                     ["mutant=none"])
    assert results[0]["status"] == "passed", results
    for name, mutant in cases_of_pass.items():
        results, _ = run("mutants", ["--case", cases[name], "--mode", "sampled"], 1, [f"mutant={mutant}"])
        (r,) = results
        assert r["status"] in ("failed", "crashed"), r
        assert "--mode sampled" in r["reproducer"], r


def check_optimized():
    # the four cases it computes; the other three are its expected failures P1-P3 (out of memory, a prepare
    # past the time limit: docs/backends.md), minutes each to show
    cases = large_cases()
    names = ("src_f32_past_2^31_bytes_nxc", "weights_f32_past_2^31_bytes_oix", "dst_f32_exactly_2^31_bytes_ncx",
             "dst_f32_past_2^31_bytes_ncx")
    args = ["--mode", "sampled"]
    for name in names:
        args += ["--case", cases[name]]
    results, _ = run("optimized", args, 0)
    assert len(results) == len(names)
    for r in results:
        assert r["status"] == "passed", r


{"reference": check_reference, "mutants": check_mutants,
 "optimized": check_optimized}[check]()
print(f"large {check}: ok")
