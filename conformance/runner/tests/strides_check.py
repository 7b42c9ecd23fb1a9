"""The strides suite end to end (docs/runner.md, "Memory strides and OXI"): ABI 1.2 memory strides and the OXI filter
format reach the plugins that claim them and no other.

    strides_check.py <convcheck> <reference.so> <optimized.so> <mutants.so> <abi_1_0.so> <abi_1_1.so> [<vendor.so>...]

- the reference, the optimized plugin (through dense copies) and the mutants plugin's baseline claim every tensor
  strided and OXI: every case runs and passes;
- plugins built against ABI 1.0 and 1.1 never receive a case: each is declined naming the ABI it was built against
  (a strided tensor read dense would be a wrong verdict, not a skip);
- a vendor plugin declines every strided case unless it claims strided tensors (oneDNN: then they pass); an OXI case it
  claims passes
  (or fails as a finding backends.json declares for that plugin whatever the weights' format: xfail);
- a descriptor whose strides break a rule exits 2 naming the attribute (ss, ws, ds), the value and the rule.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from cli_run import clean_env, records, run_convcheck  # noqa: E402


def run_suite(convcheck, plugin, tmp, options=None, expectations="none"):
    """The strides suite's case records. Exit 0, or 1 only when no case failed: every case declined (a run that
    executes nothing is not a pass, docs/runner.md) or fewer executed than a vendor's coverage floor in
    backends.json; anything else ends the check."""
    out = os.path.join(tmp, os.path.basename(plugin) + ".jsonl")
    args = ["run", "--backend", plugin, "--suite", "strides", "--no-shrink", "--no-progress", "--quiet", "--json", out]
    if expectations:
        args += ["--expectations", expectations]
    for o in options or []:
        args += ["--backend-option", o]
    p = subprocess.run([convcheck] + args, env=clean_env(), capture_output=True, text=True, errors="replace")
    cases = [r for r in records(out) if r.get("record") == "case"] if os.path.exists(out) else []
    none_failed = cases and all(c["status"] in ("passed", "unsupported", "xfail") for c in cases)
    if p.returncode != 0 and not (p.returncode == 1 and none_failed):
        sys.exit(f"convcheck {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return cases


def fail(message, cases):
    lines = [f"  {c['shape_name']}: {c['status']} ({c.get('kind', '')}) {c['reason']}\n    {c['reproducer']}" for c in cases]
    sys.exit(message + "\n" + "\n".join(lines[:10]))


def strided(case):
    return any(f",{k}=" in case["descriptor"] for k in ("ss", "ws", "ds"))


def main():
    convcheck, reference, optimized, mutants, abi_1_0, abi_1_1 = sys.argv[1:7]
    vendors = sys.argv[7:]
    with tempfile.TemporaryDirectory() as tmp:
        for plugin, options in ((reference, None), (optimized, None), (mutants, ["mutant=none"])):
            cases = run_suite(convcheck, plugin, tmp, options)
            if len(cases) < 40:
                sys.exit(f"{plugin}: the strides suite has {len(cases)} cases, expected about 50")
            bad = [c for c in cases if c["status"] != "passed"]
            if bad:
                fail(f"{plugin}: {len(bad)} strides cases did not pass", bad)
            print(f"{os.path.basename(plugin)}: all {len(cases)} strides cases passed")

        for plugin, version in ((abi_1_0, "1.0"), (abi_1_1, "1.1")):
            cases = run_suite(convcheck, plugin, tmp)
            bad = [c for c in cases if c["status"] != "unsupported" or
                   f"built against ABI {version}, which has no" not in c["reason"]]
            if bad:
                fail(f"ABI {version} plugin: a strides case was not declined for the ABI it was built against", bad)
            print(f"ABI {version} plugin: all {len(cases)} strides cases declined (built against {version})")

        for plugin in vendors:
            # with the declarations of conformance/data/backends.json: a vendor's known findings (XNNPACK's NaN
            # clamp in probe mode, docs/backends.md) are expected failures, whatever the weights' format
            cases = run_suite(convcheck, plugin, tmp, expectations=None)
            # a vendor that claims strided tensors (oneDNN's memory descriptors take any strides) runs them
            claims = "onednn" in os.path.basename(plugin)
            bad = [c for c in cases if strided(c) and not claims and
                   (c["status"] != "unsupported" or "does not claim strided" not in c["reason"])]
            bad += [c for c in cases if c["status"] not in ("passed", "unsupported", "xfail")]
            if bad:
                fail(f"{plugin}: a strided case ran unclaimed or failed", bad)
            passed = sum(c["status"] == "passed" for c in cases)
            strided_passed = sum(c["status"] == "passed" and strided(c) for c in cases)
            if claims and strided_passed < 20:
                fail(f"{plugin}: only {strided_passed} strided cases passed, expected at least 20",
                     [c for c in cases if strided(c) and c["status"] != "passed"])
            print(f"{os.path.basename(plugin)}: {passed} cases passed ({strided_passed} strided), the rest declined")

    for text, attribute in (("conv:c=2,o=1,in=4x4,k=1,ss=32x16x2x1", "ss (src strides) = 32x16x2x1"),
                            ("conv:c=2,o=3,in=4x4,k=3x3,ws=18x9x3x-1", "ws (weights strides) = 18x9x3x-1"),
                            ("conv:c=2,o=3,in=4x4,k=3x3,ds=12x4x2", "ds (dst strides) = 12x4x2")):
        p = run_convcheck(convcheck, ["run", "--backend", reference, "--case", text, "--no-progress"], 2)
        if attribute not in p.stderr:
            sys.exit(f"convcheck run --case '{text}': exit 2 without naming '{attribute}':\n{p.stderr}")
    print("bad strides exit 2 naming the attribute")


if __name__ == "__main__":
    main()
