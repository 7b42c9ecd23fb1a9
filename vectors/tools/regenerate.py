#!/usr/bin/python3
"""Regenerate the stored golden-vector sets, verify them, and show what changed.

    vectors/tools/regenerate.py --generator build/vectors/convcheck_vectors [--check] [--no-verify] [set...]

For each set (default: every vectors/specs/<set>.json, plus the external onnx set):
  1. write it afresh into a temporary folder (convcheck_vectors generate for a spec; onnx_import.py
     for the onnx set);
  2. verify it with verify.py --record (numpy reference and torch) unless --no-verify;
  3. compare it with vectors/sets/<set>/: cases added, removed, and for each common case the fields
     and the arrays (by SHA-256) that changed;
  4. unless --check, replace vectors/sets/<set>/ with the new files.
--check only reports; it exits 1 when anything differs (ctest runs it with --no-verify to prove that
the stored sets are exactly what the generator writes today).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.dirname(HERE)
SPECS = os.path.join(VECTORS, "specs")
SETS = os.path.join(VECTORS, "sets")
EXTERNAL = {name: path for name, path in {"onnx": os.path.join(HERE, "onnx_import.py")}.items() if os.path.exists(path)}


def case_fields(case, ignore_provenance):
    c = {k: v for k, v in case.items() if k != "arrays"}
    if ignore_provenance:
        c.pop("provenance", None)
    return c


def diff_sets(old_dir, new_dir, ignore_provenance):
    """Lines describing what differs between two set folders (empty when identical)."""
    new = json.load(open(os.path.join(new_dir, "manifest.json")))
    old_path = os.path.join(old_dir, "manifest.json")
    if not os.path.exists(old_path):
        return [f"  new set: {len(new['cases'])} cases"]
    old = json.load(open(old_path))
    lines = []
    if old.get("description") != new.get("description"):
        lines.append("  description changed")
    old_cases = {c["name"]: c for c in old["cases"]}
    new_cases = {c["name"]: c for c in new["cases"]}
    for name in sorted(set(new_cases) - set(old_cases)):
        lines.append(f"  + {name}  {new_cases[name]['descriptor']}")
    for name in sorted(set(old_cases) - set(new_cases)):
        lines.append(f"  - {name}  {old_cases[name]['descriptor']}")
    for name in [c["name"] for c in new["cases"] if c["name"] in old_cases]:
        o, n = old_cases[name], new_cases[name]
        changed = [k for k in sorted(set(case_fields(o, ignore_provenance)) | set(case_fields(n, ignore_provenance)))
                   if case_fields(o, ignore_provenance).get(k) != case_fields(n, ignore_provenance).get(k)]
        oa, na = o.get("arrays", {}), n.get("arrays", {})
        arrays = [r for r in sorted(set(oa) | set(na)) if oa.get(r, {}).get("sha256") != na.get(r, {}).get("sha256")]
        if changed or arrays:
            what = ", ".join(changed + [f"{r}.npy" for r in arrays])
            lines.append(f"  ~ {name}: {what}")
    return lines


def generate(set_name, out_dir, generator):
    if set_name in EXTERNAL:
        cmd = [sys.executable, EXTERNAL[set_name], out_dir]
    else:
        cmd = [generator, "generate", os.path.join(SPECS, set_name + ".json"), out_dir]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="*", help="set names (default: all)")
    parser.add_argument("--generator", required=True, help="path to the convcheck_vectors executable")
    parser.add_argument("--check", action="store_true", help="report differences only; exit 1 if any")
    parser.add_argument("--no-verify", action="store_true", help="skip the numpy/torch verification")
    parser.add_argument("--no-torch", action="store_true", help="verify with numpy only")
    args = parser.parse_args()
    names = args.sets or sorted([f[:-5] for f in os.listdir(SPECS) if f.endswith(".json")] + list(EXTERNAL))
    differences = 0
    with tempfile.TemporaryDirectory(prefix="convcheck-vectors-") as tmp:
        for name in names:
            out = os.path.join(tmp, name)
            try:
                generate(name, out, args.generator)
            except subprocess.CalledProcessError as e:
                print(f"{name}: generation failed ({e})")
                return 2
            if not args.no_verify:
                cmd = [sys.executable, os.path.join(HERE, "verify.py"), "--record", out]
                if args.no_torch:
                    cmd.insert(2, "--no-torch")
                if subprocess.run(cmd).returncode != 0:
                    print(f"{name}: verification failed; the stored set is left as it was")
                    return 1
            stored = os.path.join(SETS, name)
            lines = diff_sets(stored, out, ignore_provenance=args.no_verify)
            print(f"{name}: {'unchanged' if not lines else str(len(lines)) + ' change(s)'}")
            for line in lines:
                print(line)
            differences += bool(lines)
            if lines and not args.check:
                shutil.rmtree(stored, ignore_errors=True)
                shutil.copytree(out, stored)
                print(f"{name}: written to {os.path.relpath(stored)}")
    if args.check and differences:
        print("regenerate.py --check: the stored sets differ from what the generator writes (see above)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
