"""The libtorch_cuda plugin where libtorch sees no CUDA device (ctest conformance_libtorch_cuda_declines_without_a_device;
docs/backends.md, "libtorch on a CUDA device"): on smoke, every case the plugin claims is declined with the reason
"no CUDA device (torch::cuda::is_available() is false)", every other case is declined by its claims, none executes,
and the run exits 1 because no case executed. What it claims is counted: the forward pass, both backward passes and
transposed convolution (114 of smoke's cases with TF32 off: 84 forward, 22 backward, 8 transposed), so a claim lost
(or a pass declined by something else than the missing device) fails.

usage: cuda_declines_check.py <convcheck> <libconvcheck_plugin_libtorch_cuda.so>
"""
import json
import os
import subprocess
import sys
import tempfile

convcheck, plugin = sys.argv[1], sys.argv[2]
NO_DEVICE = "no CUDA device (torch::cuda::is_available() is false)"


def fail(message):
    sys.exit("cuda_declines_check: " + message)


tmp = tempfile.mkdtemp(prefix="convcheck_cuda_declines_")


def run_smoke(options, name):
    """smoke through the plugin: exit 1 (no case executed), the backend's name, every case declined; the records."""
    out = os.path.join(tmp, name + ".jsonl")
    p = subprocess.run([convcheck, "run", "--backend", plugin, "--suite", "smoke", "--no-progress", "--json", out] +
                       options, capture_output=True, text=True)
    if p.returncode != 1:
        fail(f"{options}: exit code {p.returncode}, expected 1 (no case executed)\n{p.stdout}\n{p.stderr}")
    with open(out) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    if lines[0].get("backend") != name:
        fail(f"{options}: the backend names itself {lines[0].get('backend')!r}, not {name!r} (backends.json)")
    cases = [r for r in lines if r.get("record") == "case"]
    if len(cases) < 100:
        fail(f"only {len(cases)} smoke cases recorded")
    for r in cases:
        if r["status"] != "unsupported":
            fail(f"{r['case_id']}: {r['status']}: {r.get('reason')} (expected every case declined)")
    return cases, p.stdout.strip().splitlines()[-1]


# TF32 off (torch-cuda): each case the plugin claims reaches its query and is declined there for want of a device
cases, verdict = run_smoke(["--backend-option", "tf32=off"], "torch-cuda")
by_device = [r for r in cases if r.get("reason") == NO_DEVICE]
if len(by_device) < 50:
    fail(f"only {len(by_device)} cases declined with the no-device reason")
for r in cases:
    claims = ("the plugin does not claim", "this plugin takes no ")  # its claims, or an extension it does not take
    if r.get("reason") != NO_DEVICE and not r.get("reason", "").startswith(claims):
        fail(f"{r['case_id']}: declined with {r.get('reason')!r}: neither the no-device reason nor the plugin's claims")
kind = lambda r: ("transposed" if r["descriptor"].startswith("deconv:") else "backward" if "dir=bwd" in r["descriptor"]
                 else "forward")
counts = {k: sum(kind(r) == k for r in by_device) for k in ("forward", "backward", "transposed")}
if counts != {"forward": 84, "backward": 22, "transposed": 8}:
    fail(f"the cases declined for want of a device are {counts}: expected 84 forward, 22 backward, 8 transposed (smoke's "
         f"cases the plugin claims: a changed smoke suite updates these)")
print(f"tf32=off: {len(by_device)} of {len(cases)} smoke cases declined with {NO_DEVICE!r}, the other "
      f"{len(cases) - len(by_device)} by the plugin's claims; none executed\n{verdict}")
# the default (ATen's allowTF32CuDNN(), on): named torch-cuda-tf32, whose declared TF32 input precision also declines
# the exact cases whose data needs more input bits, before the query
cases, verdict = run_smoke([], "torch-cuda-tf32")
print(f"default: torch-cuda-tf32, {sum(r.get('reason') == NO_DEVICE for r in cases)} of {len(cases)} declined "
      f"with the no-device reason\n{verdict}")
