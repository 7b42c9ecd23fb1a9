"""Helpers shared by the checks of the C++ reference against PyTorch (backward_autograd_check.py,
transposed_torch_check.py): the descriptor's fields, running a reference CLI, comparing with ==."""

import json
import sys
import subprocess


def parse(descriptor):
    """The canonical descriptor's fields (conv:... or deconv:..., core/include/convcheck/core/descriptor.hpp and
    core/include/convcheck/core/transposed_descriptor.hpp): spatial keys as lists of the rank's length."""
    body = descriptor.split(":", 1)[1] if descriptor.startswith(("conv:", "deconv:")) else descriptor
    fields = dict(item.split("=") for item in body.split(","))
    spatial = lambda key, default: [int(v) for v in fields.get(key, default).split("x")]  # noqa: E731
    d = {
        "n": int(fields.get("n", 1)), "c": int(fields["c"]), "o": int(fields["o"]), "g": int(fields.get("g", 1)),
        "in": spatial("in", None), "k": spatial("k", None), "bias": fields.get("bias", "0") == "1",
        "dt": fields.get("dt", "f32"),
    }
    rank = len(d["in"])
    for key, default in (("s", "1"), ("d", "1"), ("pb", "0"), ("pe", "0"), ("op", "0")):
        values = spatial(key, default)
        d[key] = values * rank if len(values) == 1 else values
    return d


def run_reference(cli, descriptor, numbers):
    """Runs `cli descriptor` with the numbers on stdin: (parsed JSON, None) or (None, the failure)."""
    text = " ".join(repr(float(v)) for v in numbers)
    run = subprocess.run([cli, descriptor], input=text, capture_output=True, text=True)
    if run.returncode != 0:
        return None, f"{cli.rsplit('/', 1)[-1]} exited {run.returncode}: {run.stderr.strip()}"
    return json.loads(run.stdout), None


def differences(name, got, expected, repro):
    """One failure line when two flat lists differ (their sizes, or the first differing element), else None."""
    if len(got) != len(expected):
        return f"FAIL {name}: {len(got)} elements, torch {len(expected)}; {repro}"
    wrong = [i for i, (a, e) in enumerate(zip(got, expected)) if a != e]
    if not wrong:
        return None
    i = wrong[0]
    return (f"FAIL {name}: {len(wrong)} of {len(expected)} elements differ, first at canonical index {i}: "
            f"reference {got[i]}, torch {expected[i]}; {repro}")


def check_cases(cli, cases, compute):
    """Runs every (descriptor, seed) case: compute(torch, descriptor, seed) gives (numbers for the CLI's stdin,
    {name: flat list torch computed}, a label for the ok line); the CLI must give the same names and
    values, with ==. Prints one line per case; returns the exit code (0, 1 on a mismatch, 77 without torch)."""
    try:
        import torch
    except ImportError as e:
        print(f"skipped: PyTorch is not importable ({e}); install python3-torch")
        return 77
    failures = 0
    for descriptor, seed in cases:
        failures_before = failures
        repro = f"reproduce with: descriptor {descriptor} seed {seed}"
        numbers, want, label = compute(torch, descriptor, seed)
        got, error = run_reference(cli, descriptor, numbers)
        if error:
            print(f"FAIL {error}; {repro}")
            failures += 1
            continue
        if sorted(got) != sorted(want):
            print(f"FAIL the reference gave {sorted(got)}, torch {sorted(want)}; {repro}")
            failures += 1
            continue
        for name, expected in want.items():
            failure = differences(name, got[name], expected, repro)
            if failure:
                print(failure)
                failures += 1
        if failures == failures_before:
            print(f"ok {descriptor} (seed {seed}): {label}")
    print(f"torch {torch.__version__}: {len(cases)} cases, {failures} mismatches")
    return 1 if failures else 0


def main(doc, cases, compute):
    """A check script's main: its one argument is the reference CLI; the usage line is its doc's next-to-last."""
    if len(sys.argv) != 2:
        print(doc.strip().splitlines()[-2], file=sys.stderr)
        return 2
    return check_cases(sys.argv[1], cases, compute)
