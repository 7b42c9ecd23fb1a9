#!/usr/bin/python3
"""The CC backward reference against PyTorch autograd of the same construction (vectors/tools/torch_cc.py).

For each case the same layer (descriptor, src, Internal-Net theta, bias) goes to reference_cc_backward_cli
(the C++ reference, reference/include/convcheck/reference/cc/backward.hpp) and to torch_cc.py, which builds
the layer from torch operations in float64 and backpropagates diff_dst with autograd. Compared:
  distances  block 2's D, bit for bit (numpy_cc_reference.py's grid and window against the C++'s);
  gradients  diff_src, diff_theta (kernel=net), diff_bias (bias=1):
     "exact" cases (scales p/q with p a power of 2, dyadic theta, integer src and diff_dst; slopes 0, 1/4):
        every value is computed without rounding by both, so they must agree with ==; "kink" cases are
        exact ones whose theta in {-1/2, 0, 1/2} puts pre-activations exactly on 0, where the two
        must take the same LeakyReLU'(0) (the slope);
     other cases (irrational scales, Gaussian, random f32 data): within twice the reference's rigorous
        bound (cc_backward_error_bound: any honest double evaluation of the same sums is within it of
        the exact gradient, torch's included), and the LeakyReLU branches must be decided
        (leaky_relu_margin > 1), else the case is refused as on a kink.

usage: cc_backward_torch_check.py <reference_cc_backward_cli>
Exit 0 when every case agrees, 1 on a mismatch, 2 on a usage error, 77 (skipped) without torch.
"""

import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

# (descriptor, data seed, data kind: "exact", "kink" or "random"): together, a reproducer.
CASES = [
    ("cc:n=2,cin=2,cout=3,in=6x7,scale=2/3x4/7,out=4x4,support=3,kernel=net,hidden=4x3,slope=0.25,bias=1", 1, "exact"),
    ("cc:n=1,cin=1,cout=1,in=4,scale=1/2,out=2,support=2,kernel=net,hidden=2x2,slope=0,bias=0", 2, "exact"),  # ReLU
    ("cc:n=2,cin=3,cout=2,in=5x6,scale=8/3x2,out=14x12,support=4,kernel=cubic,bias=1", 3, "exact"),
    ("cc:n=1,cin=2,cout=2,in=7x5,scale=1/3x4/5,out=3x4,support=2x3,kernel=linear,bias=0", 4, "exact"),
    ("cc:n=2,cin=1,cout=2,in=6,scale=1/2,out=3,support=2,kernel=net,hidden=4x4,slope=0,bias=1", 10, "kink"),  # ReLU
    ("cc:n=1,cin=2,cout=1,in=5x4,scale=1x1/2,out=5x2,support=3x2,kernel=net,hidden=3x4,slope=0.25,bias=0", 11, "kink"),
    ("cc:n=2,cin=2,cout=3,in=7x6,scale=0.7071x1.3,out=5x8,support=3,kernel=net,hidden=16x16,slope=0.01,bias=1", 5, "random"),
    ("cc:n=2,cin=3,cout=4,in=9,scale=2/3,out=6,support=3,kernel=net,hidden=16x16,slope=0.01,bias=1", 6, "random"),
    ("cc:n=1,cin=2,cout=2,in=6x5,scale=0.6180339887,out=4,support=3,kernel=gaussian,sigma=0.8,bias=1", 7, "random"),
    ("cc:n=1,cin=1,cout=2,in=5,scale=1.7320508,out=9,support=4,kernel=cubic,bias=0", 8, "random"),
    ("cc:n=2,cin=2,cout=1,in=9x8,scale=0.45,out=4,support=2,kernel=linear,bias=1", 9, "random"),
]


def case_data(desc, seed, kind):
    """(src, theta, bias, diff_dst) flat lists, f32-representable: small integers and a 2^-4 theta
    (exact) or a theta in {-1/2, 0, 1/2} (kink), else multiples of 2^-20 in [-1, 1] (random)."""
    rng = random.Random(seed)
    if kind in ("exact", "kink"):
        ints = lambda n: [float(rng.randint(-4, 4)) for _ in range(n)]  # noqa: E731
        if kind == "exact":
            theta_values = lambda n: [rng.randint(-16, 16) / 16 for _ in range(n)]  # noqa: E731
        else:
            theta_values = lambda n: [rng.choice((-0.5, 0.0, 0.5)) for _ in range(n)]  # noqa: E731
    else:
        ints = theta_values = lambda n: [rng.randint(-2 ** 20, 2 ** 20) / 2 ** 20 for _ in range(n)]  # noqa: E731
    (H, W), (OH, OW) = desc.input_size, desc.output_size
    h1, h2, c = desc.hidden[0], desc.hidden[1], desc.cin * desc.cout
    theta_count = 2 * h1 + h1 + h2 * h1 + h2 + c * h2 + c if desc.kernel == "net" else 0
    src = ints(desc.batch * desc.cin * H * W)
    theta = theta_values(theta_count)
    bias = ints(desc.cout) if desc.has_bias else []
    diff_dst = ints(desc.batch * desc.cout * OH * OW)
    return src, theta, bias, diff_dst


def run_reference(cli, descriptor, numbers):
    run = subprocess.run([cli, descriptor], input=" ".join(repr(v) for v in numbers), capture_output=True, text=True)
    if run.returncode != 0:
        return None, f"{os.path.basename(cli)} exited {run.returncode}: {run.stderr.strip()}"
    return json.loads(run.stdout), None


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError as e:
        print(f"skipped: PyTorch is not importable ({e}); install python3-torch")
        return 77
    global cc_ref, torch_cc
    import numpy_cc_reference as cc_ref  # needs numpy, which python3-torch depends on
    import torch_cc
    cli, failures = sys.argv[1], 0
    for descriptor, seed, kind in CASES:
        exact = kind != "random"
        repro = f"reproduce with: descriptor {descriptor} seed {seed}"
        desc = cc_ref.CcDescriptor(descriptor)
        src, theta, bias, diff_dst = case_data(desc, seed, kind)
        got, error = run_reference(cli, descriptor, src + theta + diff_dst)
        if error:
            print(f"FAIL {error}; {repro}")
            failures += 1
            continue
        want, D = torch_cc.gradients(torch, desc, src, theta, bias, diff_dst)
        problems = []
        if got["distances"] != D:
            i = next(i for i, (a, b) in enumerate(zip(got["distances"], D)) if a != b) if len(D) == len(got["distances"]) else -1
            problems.append(f"FAIL distances differ (first at flat index {i}): the two constructions are not the same layer; {repro}")
        if not exact and got["leaky_relu_margin"] <= 1:
            problems.append(f"FAIL a LeakyReLU pre-activation is undecided (margin {got['leaky_relu_margin']:.3g}): "
                            f"the bound does not hold on a kink, choose another seed; {repro}")
        kinks = torch_cc.zero_pre_activations(torch, desc, theta) if kind == "kink" else 0
        if kind == "kink" and kinks == 0:
            problems.append(f"FAIL no pre-activation is exactly 0: the kink case tests nothing, choose another seed; {repro}")
        if sorted(k for k in got if k.startswith("diff_")) != sorted(want):
            problems.append(f"FAIL the reference gave {sorted(got)}, torch {sorted(want)}; {repro}")
        worst = 0.0
        if not problems:
            for name in want:
                problem, ratio = torch_cc.compare(name, got[name], want[name], got["bound_" + name], exact, repro)
                worst = max(worst, ratio)
                if problem:
                    problems.append(problem)
        for p in problems:
            print(p)
        failures += len(problems)
        if not problems:
            how = f"within 2 * bound (largest |difference| / (2 bound) = {worst:.3g})"
            if exact:
                how = "equal" + (f", {kinks} pre-activations exactly 0" if kind == "kink" else "")
            print(f"ok {descriptor} (seed {seed}): {', '.join(f'{n} {len(want[n])}' for n in want)}: {how}")
    print(f"torch {torch.__version__}: {len(CASES)} cases, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
