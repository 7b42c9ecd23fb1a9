"""A vector-set folder where one case's files are Fortran-ordered runs, and that case passes.

usage: fortran_vector_set_check.py <convcheck> <optimized plugin .so> <vectors/sets/seeds>

Copies the seeds set, rewrites every array of one case (inputs, expected output, f64 result, magnitude,
terms: f32, f64 and i64) as numpy writes a transposed array (np.asfortranarray + np.save, so the header
says fortran_order: True), updates the manifest's sha256, runs the set on the optimized plugin and
checks that the run exits 0 and that the rewritten case ran and passed alongside the others.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

CASE = "seed001_nxc_xio"  # NHWC data, HWIO weights: every array has several non-unit axes

convcheck, plugin, seeds = sys.argv[1], sys.argv[2], sys.argv[3]
tmp = tempfile.mkdtemp(prefix="convcheck-fortran-set-")
set_dir = os.path.join(tmp, "seeds")
shutil.copytree(seeds, set_dir)

manifest_path = os.path.join(set_dir, "manifest.json")
with open(manifest_path) as f:
    manifest = json.load(f)
case = next(c for c in manifest["cases"] if c["name"] == CASE)
rewritten = 0
for role, entry in case["arrays"].items():
    path = os.path.join(set_dir, entry["file"])
    a = np.load(path)
    f = np.asfortranarray(a)
    if f.flags.c_contiguous:
        continue  # only one non-unit axis: the same bytes in either order, nothing to test
    np.save(path, f)
    with open(path, "rb") as fh:
        data = fh.read()
    assert b"'fortran_order': True" in data[:128], f"{path}: numpy did not write a Fortran-order header"
    assert data[-a.nbytes:] != a.tobytes(), f"{path}: Fortran-order bytes equal C-order bytes"
    entry["sha256"] = hashlib.sha256(data).hexdigest()
    rewritten += 1
assert rewritten >= 3, f"only {rewritten} arrays of {CASE} have more than one non-unit axis"
with open(manifest_path, "w") as f:
    json.dump(manifest, f, indent=2)

results = os.path.join(tmp, "results.jsonl")
p = subprocess.run([convcheck, "run", "--backend", plugin, "--suite", set_dir, "--quiet", "--threads", "2",
                    "--json", results], capture_output=True, text=True)
if p.returncode != 0:
    sys.exit(f"run over the set with Fortran-ordered {CASE}: exit {p.returncode}, expected 0\n{p.stdout}\n{p.stderr}")
with open(results) as f:
    records = [json.loads(line) for line in f if line.strip()]
cases = [r for r in records if r["record"] == "case"]
mine = [r for r in cases if r.get("shape_name") == "seeds/" + CASE]
assert len(mine) == 1, f"{CASE} ran {len(mine)} times"
assert mine[0]["status"] == "passed", mine[0]
assert all(r["status"] == "passed" for r in cases), [r for r in cases if r["status"] != "passed"]
print(f"{len(cases)} cases passed, {CASE} with {rewritten} Fortran-ordered arrays among them")
shutil.rmtree(tmp)
