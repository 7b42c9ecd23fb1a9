"""A stored backward vector is judged by its own arrays: change one of them and the check fails.

usage: stored_backward_check.py <convcheck_vectors> <reference plugin .so> <vectors/sets/backward>

Runs the set on the reference plugin (every case passes), then, on copies of the set, changes one value
of a stored truth (diff_src_f64 of an exact case, its sha256 updated in the manifest) and one value of a
stored input (diff_dst): each copy must fail that case, naming it. So the runner reads the stored data
(never a fresh fill of the descriptor) and compares against the stored truth.
"""
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

CASE = "bwd_d_strided_padded"
tool, plugin, backward = sys.argv[1], sys.argv[2], sys.argv[3]


def run(set_dir):
    return subprocess.run([tool, "check", "--plugin", plugin, set_dir], capture_output=True, text=True)


def tampered(role):
    tmp = tempfile.mkdtemp(prefix="convcheck-backward-set-")
    set_dir = os.path.join(tmp, "backward")
    shutil.copytree(backward, set_dir)
    manifest_path = os.path.join(set_dir, "manifest.json")
    manifest = json.load(open(manifest_path))
    entry = next(c for c in manifest["cases"] if c["name"] == CASE)["arrays"][role]
    path = os.path.join(set_dir, entry["file"])
    a = np.load(path)
    a.flat[0] = a.flat[0] + (1 if a.dtype.kind == "f" else 1)
    buffer = io.BytesIO()
    np.save(buffer, a)
    open(path, "wb").write(buffer.getvalue())
    entry["sha256"] = hashlib.sha256(buffer.getvalue()).hexdigest()
    json.dump(manifest, open(manifest_path, "w"), indent=2)
    return set_dir


failures = []
clean = run(backward)
if clean.returncode != 0 or " 0 failed" not in clean.stdout:
    failures.append("the stored set does not pass on the reference plugin:\n" + clean.stdout + clean.stderr)
for role in ("diff_src_f64", "diff_dst"):
    r = run(tampered(role))
    if r.returncode == 0 or f"FAIL vector backward/{CASE}" not in r.stdout:
        failures.append(f"changing {role} of {CASE} did not fail the check:\n" + r.stdout + r.stderr)
for f in failures:
    print("FAIL", f)
print("stored backward vectors: " + ("ok" if not failures else f"{len(failures)} problem(s)"))
sys.exit(1 if failures else 0)
