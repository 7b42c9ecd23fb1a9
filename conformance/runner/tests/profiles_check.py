"""Tolerance profiles end to end (docs/accuracy.md, "Tolerance profiles"): `convcheck run --profile NAME` judges each
float forward case by that suite's published rule beside convcheck's verdict, records it in the JSON results and
counts in the terminal summary where the two part.

    profiles_check.py <convcheck> <reference.so> <mutants.so>

- the reference (exact results rounded once) passes every profile's rule but ONNX's on bf16 outputs: ONNX's rtol
  1e-3 is below bf16's rounding (2^-9 relative), a false red, and only there;
- the mutant last_ulp (one ULP off in every output) fails convcheck's exact-mode cases, yet passes WebNN's ULP rule
  there: false greens;
- a bf16 case has no NNAPI rule (NNAPI has no bf16); a case with post-ops or in probe mode gets no profile verdict.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from cli_run import records, run_convcheck  # noqa: E402

PROFILES = ["webnn", "nnapi", "benchdnn", "onnx", "opinfo"]


def run(convcheck, plugin, tmp, name, options=(), expect=0):
    out = os.path.join(tmp, name + ".json")
    args = ["run", "--backend", plugin, "--suite", "smoke", "--no-shrink", "--expectations", "none", "--json", out]
    for o in options:
        args += ["--backend-option", o]
    for p in PROFILES:
        args += ["--profile", p]
    proc = run_convcheck(convcheck, args, expect)
    cases = [r for r in records(out) if r.get("type", "case") == "case" and "status" in r]
    return proc.stdout, cases


def main():
    convcheck, reference, mutants = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        stdout, cases = run(convcheck, reference, tmp, "reference")
        judged = [c for c in cases if "profiles" in c]
        if len(judged) < 50:
            sys.exit(f"reference: only {len(judged)} cases carry profile verdicts, expected the float forward ones")
        for c in cases:
            if "profiles" in c and (c["mode"] == "probe" or ",po=" in c["descriptor"]):
                sys.exit(f"a {c['mode']} case or one with post-ops got profile verdicts: {c['descriptor']}")
        for c in judged:
            for name, v in c["profiles"].items():
                bf16_out = "dt=bf16" in c["descriptor"] and ":f32" not in c["descriptor"]
                if name == "nnapi" and bf16_out:
                    if v.get("applies", True):
                        sys.exit(f"nnapi has no bf16 rule, yet judged {c['descriptor']}")
                    continue
                fails_here = not v.get("passed", False)
                if fails_here and not (name == "onnx" and bf16_out):
                    sys.exit(f"reference: {name} fails a correct result: {c['reproducer']} {v}")
        if not any(not c["profiles"]["onnx"].get("passed", True) for c in judged):
            sys.exit("reference: no bf16 case fails ONNX's rtol 1e-3: the onnx rule is not applied")
        for line in ("tolerance profiles", "false green", "false red"):
            if line not in stdout:
                sys.exit(f"reference: the terminal summary has no '{line}':\n{stdout}")
        print(f"reference: {len(judged)} cases judged by 5 profiles; only ONNX's rule fails (bf16 outputs)")

        stdout, cases = run(convcheck, mutants, tmp, "last_ulp", ["mutant=last_ulp"], expect=1)
        greens = [c for c in cases if c["status"] == "failed" and c.get("profiles", {}).get("webnn", {}).get("passed")]
        if not greens:
            sys.exit("mutant last_ulp: no case fails convcheck while passing WebNN's ULP rule")
        print(f"mutant last_ulp: {len(greens)} cases fail convcheck and pass WebNN's rule (false green)")


if __name__ == "__main__":
    main()
