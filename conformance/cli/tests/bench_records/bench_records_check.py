"""`convcheck bench` writes null, never a number, for what it did not measure (ctest conformance_bench_records).

usage: bench_records_check.py <convcheck> <work folder>
A case the backend declines or that crashes has no time, so its GFLOP/s and its ratio to the optimized
implementation are null too (docs/results-schema.md), not 0.0, which a report would draw as a measurement;
with --no-reference the reference time is null, and the table prints "-" for it, not -1.000. A case that ran
has every figure as a positive number. A plugin with a plan (ABI 1.2; every bundled one) has its planning
timed apart: prepare_ms is a positive number beside ms when the case ran, null when it did not.
"""
import json
import math
import os
import subprocess
import sys

convcheck, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)

# A 1x1 case the optimized plugin's forced gemm_1x1 path computes (on a CPU with AVX2 and FMA), and a 3x3 one
# it always declines ("applies only to a 1x1 kernel with unit strides").
cases = os.path.join(work, "cases.json")
with open(cases, "w") as f:
    json.dump([{"descriptor": "conv:c=2,o=3,in=6x5,k=1x1", "name": "pointwise"},
               {"descriptor": "conv:c=2,o=3,in=6x5,k=3x3", "name": "three_by_three"}], f)

TIMES = ("ms", "optimized_ms", "reference_ms", "prepare_ms", "optimized_prepare_ms")
DERIVED = ("gflops", "ratio_to_optimized")


def bench(name, *args):
    out = os.path.join(work, name + ".jsonl")
    command = [convcheck, "bench", "--suite", cases, "--repeats", "1", "--json", out, *args]
    p = subprocess.run(command, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(command)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    with open(out) as f:
        records = {r["shape_name"]: r for r in map(json.loads, f)}
    return records, p.stdout, " ".join(command)


failures = []


def check(condition, what, command):
    if not condition:
        failures.append(f"{what}\n  reproduce: {command}")


def is_measured(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


# A declined case, timed without the reference: only the optimized implementation's time is a measurement.
records, table, command = bench("declined", "--backend", "optimized", "--backend-option", "path=gemm_1x1",
                                "--no-reference")
r = records["three_by_three"]
check(r["status"] == "unsupported", f"the declined case has status {r['status']!r}, not 'unsupported'", command)
for key in ("ms", "prepare_ms", "reference_ms", *DERIVED):
    check(r[key] is None, f"the declined case's {key} is {r[key]!r}, not null", command)
check(is_measured(r["optimized_ms"]), f"the declined case's optimized_ms is {r['optimized_ms']!r}", command)
r = records["pointwise"]
check(r["reference_ms"] is None, f"with --no-reference, reference_ms is {r['reference_ms']!r}, not null", command)
if r["status"] == "ok":  # gemm_1x1 needs AVX2 and FMA; without them this case is declined as well
    for key in ("ms", "optimized_ms", *DERIVED):
        check(is_measured(r[key]), f"the measured case's {key} is {r[key]!r}, not a positive number", command)
    row = next(line for line in table.splitlines() if line.startswith("pointwise"))
    check(row.split()[5] == "-", f"with --no-reference the table's reference_ms column is not '-': {row!r}", command)
check("-1.000" not in table, f"the table prints -1.000 for an unmeasured time:\n{table}", command)

# A case that crashes the backend: no time, no GFLOP/s, no ratio.
records, table, command = bench("crashed", "--backend", "faultzoo", "--backend-option", "fault=segfault",
                                "--no-reference")
for name, r in records.items():
    check(r["status"] == "failed", f"{name}: the crashing case has status {r['status']!r}, not 'failed'", command)
    for key in ("ms", "prepare_ms", "reference_ms", *DERIVED):
        check(r[key] is None, f"{name}: the crashing case's {key} is {r[key]!r}, not null", command)

# Every case measured, the reference too: every time and figure is a positive number.
records, table, command = bench("measured", "--backend", "reference")
for name, r in records.items():
    check(r["status"] == "ok", f"{name}: status {r['status']!r}, not 'ok'", command)
    for key in (*TIMES, *DERIVED):
        check(is_measured(r[key]), f"{name}: {key} is {r[key]!r}, not a positive number", command)

if failures:
    sys.exit("\n".join(failures))
print("bench records: unmeasured values are null, measured ones positive numbers")
