"""Offline runs (docs/offline.md), end to end through the `convcheck` command (ctest conformance_offline_<check>).

usage: offline_check.py <check> <convcheck> <source dir>
  same      export smoke with the numpy example's claims, compute the outputs with python/convcheck_offline.py and
            the numpy example, judge: every case has a record; every exported case has exactly the record
            `run --backend python:numpy_backend.py` gives (status, kind, reason, statistics; all but the time and
            the reproducer); every case export skipped is declined with the reason the manifest gives; the same
            exit code
  corrupt   one output with a value changed fails naming its first differing output; a truncated file, a missing
            file, an output of another dtype and one of another shape each fail naming the file and why; a
            <case>.declined file declines its case with the device's reason; the other cases still pass; exit 1
  backward  the same with the PyTorch example (CPU; it claims both backward passes) on smoke: each exported case of
            the three passes has run's record through export, convcheck_offline.py and judge; a missing
            diff_bias and a diff_weights of another shape each fail naming the file; a raising backend's traceback's
            last line is printed by convcheck_offline.py
  quantized the same as `same` on the quantized suite (u8/s8/s32 tensors, per-tensor and per-channel scales and zero
            points, the declared requantization rule): every exported case judged exactly as run; the manifest's
            descriptor carries the values drawn for a case (szp=ic: one src zero point per input channel); an output
            off by one fails under the declared rule, an s32 dst where the case's is u8, a float one, a missing one
            and one of another shape are each named
  transposed the same on the transposed suite (deconv:, output padding): every exported case judged exactly as run;
            a dst whose last output (in the output padding) is changed fails; a dst without the output padding's
            rows is named by its shape
  torch     the same as `quantized` and `transposed` with the PyTorch example (CPU: QNNPACK's quantized ops, declared
            nearest_even_f32; F.conv_transpose1d/2d/3d): every exported case judged exactly as run; an output off by
            one fails under the declared rule
  manifest  a manifest with a bad field (format_version, claims, a case's seed, cases) exits 2 naming it; an
            export into a folder that is not empty exits 2
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from cli_run import records, run_convcheck

check, convcheck, source = sys.argv[1], sys.argv[2], sys.argv[3]
tmp = tempfile.mkdtemp(prefix=f"convcheck_offline_{check}_")
driver = os.path.join(source, "python", "convcheck_offline.py")
numpy_backend = os.path.join(source, "examples", "python", "numpy_backend.py")
torch_backend = os.path.join(source, "examples", "python", "torch_backend.py")
python = "/usr/bin/python3"


def fail(message):
    sys.exit(f"offline_check {check}: {message}")


def claims_file(backend=numpy_backend):
    path = os.path.join(tmp, "claims.json")
    with open(path, "w") as f:
        f.write(subprocess.run([python, driver, "claims", backend], check=True, capture_output=True,
                               text=True).stdout)
    return path


def export_and_compute(folder, args, backend=numpy_backend):
    run_convcheck(convcheck, ["export", "--claims", claims_file(backend)] + args + [folder], 0)
    subprocess.run([python, driver, "run", folder, backend], check=True, capture_output=True)
    with open(os.path.join(folder, "manifest.json")) as f:
        return json.load(f)


def by_case(file):
    return {r["case_id"]: r for r in records(file) if r.get("record") == "case"}


def check_same(backend=numpy_backend, suite=("--suite", "smoke"), at_least=20, folder_name="same"):
    folder = os.path.join(tmp, folder_name)
    manifest = export_and_compute(folder, list(suite), backend)
    run_json, judge_json = os.path.join(tmp, "run.jsonl"), os.path.join(tmp, "judge.jsonl")
    ran = run_convcheck(convcheck, ["run", "--backend", "python:" + backend] + list(suite) + ["--quiet",
                                    "--json", run_json], 0)
    judged = run_convcheck(convcheck, ["judge", folder, "--quiet", "--json", judge_json], 0)
    run, judge = by_case(run_json), by_case(judge_json)
    if len(judge) != len(manifest["cases"]) or set(judge) != set(run):
        fail(f"judge has {len(judge)} records, run {len(run)}, the manifest {len(manifest['cases'])} cases")
    exported = [c for c in manifest["cases"] if c["exported"]]
    if len(exported) < at_least:
        fail(f"only {len(exported)} {suite[-1]} cases exported")
    for c in manifest["cases"]:
        a, b = run[c["id"]], judge[c["id"]]
        if c["exported"]:
            if a["status"] == "unsupported" and a.get("reason"):  # the backend's query declined it: so did the device
                declined = f"the device declined it ({c['case']}.declined): {a['reason']}"
                if b.get("reason") != declined:
                    fail(f"{c['id']}: judge's reason {b.get('reason')!r}, expected {declined!r}")
                a = dict(a, reason=declined)
            differ = {k for k in set(a) | set(b) if a.get(k) != b.get(k)} - {"time_ms", "reproducer"}
            if differ:
                fail(f"{c['id']}: judge's record differs from run's in {sorted(differ)}: "
                     f"{ {k: (a.get(k), b.get(k)) for k in differ} }")
            if not b["reproducer"].startswith("convcheck export"):
                fail(f"{c['id']}: reproducer {b['reproducer']!r}")
        elif b["status"] != "unsupported" or b["reason"] != c["skipped"]:
            fail(f"{c['id']}: export skipped it ({c['skipped']}); judge says {b['status']}: {b.get('reason')}")
    print(f"same: {len(exported)} exported cases judged exactly as run; {len(judge) - len(exported)} declined with "
          f"export's reasons\n{ran.stdout.strip()}\n{judged.stdout.strip()}")
    return manifest


def check_backward():
    manifest = check_same(torch_backend)
    folder = os.path.join(tmp, "same")
    passes = {c["pass"] for c in manifest["cases"] if c["exported"]}
    if passes != {"forward", "backward_data", "backward_weights"}:
        fail(f"the exported cases' passes are {sorted(passes)}")
    with_bias = case_with(manifest, lambda c: "diff_bias" in c["outputs"])
    os.remove(os.path.join(folder, with_bias["outputs"]["diff_bias"]["file"]))
    reshaped = case_with(manifest, lambda c: "diff_weights" in c["outputs"] and c["id"] != with_bias["id"])
    path = os.path.join(folder, reshaped["outputs"]["diff_weights"]["file"])
    np.save(path, np.load(path).reshape(-1))
    out = os.path.join(tmp, "judge2.jsonl")
    run_convcheck(convcheck, ["judge", folder, "--quiet", "--json", out], 1)
    got = by_case(out)
    for c, words in ((with_bias, f"offline output {with_bias['outputs']['diff_bias']['file']} is missing"),
                     (reshaped, f"offline output {reshaped['outputs']['diff_weights']['file']} has shape [")):
        r = got[c["id"]]
        if r["status"] != "failed" or words not in r.get("reason", ""):
            fail(f"{c['id']}: {r['status']}: {r.get('reason')!r}; expected failed with {words!r}")
    # a backend that raises: convcheck_offline.py prints the traceback's last line, the output stays missing
    raising = os.path.join(tmp, "raising_backend.py")
    with open(raising, "w") as f:
        f.write("def describe():\n    return {'name': 'raising', 'dtypes': ['f32'], 'ranks': [1, 2, 3], 'data_formats': ['ncx'],"
                "\n            'filter_formats': ['oix'], 'passes': ['forward', 'backward_data']}\n"
                "def conv(desc, src, weights, bias):\n    raise ValueError('no forward today')\n"
                "def conv_backward_data(desc, diff_dst, weights):\n    raise ValueError('no gradient today')\n")
    folder = os.path.join(tmp, "raising")
    run_convcheck(convcheck, ["export", "--claims", claims_file(raising), "--suite", "smoke", folder], 0)
    p = subprocess.run([python, driver, "run", folder, raising], capture_output=True, text=True)
    if "ValueError: no gradient today" not in p.stderr:
        fail(f"the raising backend's traceback's last line is not printed: {p.stderr[-400:]}")
    print(f"backward: {len(got)} records; missing diff_bias and reshaped diff_weights named; "
          f"{p.stderr.strip().splitlines()[0]}")


def case_with(manifest, predicate):
    for c in manifest["cases"]:
        if c["exported"] and predicate(c):
            return c
    fail("no exported case fits")


def check_corrupt():
    folder = os.path.join(tmp, "exact")
    manifest = export_and_compute(folder, ["--suite", "smoke", "--mode", "exact"])
    used = set()

    def pick(predicate=lambda c: True):
        c = case_with(manifest, lambda c: c["id"] not in used and predicate(c))
        used.add(c["id"])
        return c, os.path.join(folder, c["outputs"]["dst"]["file"])

    flipped, path = pick()
    dst = np.load(path)
    dst.reshape(-1)[3] += 1.0
    np.save(path, dst)
    truncated, path = pick()
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:len(data) - 8])
    missing, path = pick()
    os.remove(path)
    wrong_dtype, path = pick(lambda c: c["outputs"]["dst"]["dtype"] == "f32")
    np.save(path, np.load(path).astype(np.float64))
    wrong_shape, path = pick()
    np.save(path, np.load(path).reshape(-1))
    declined, path = pick()
    os.remove(path)
    with open(os.path.join(folder, declined["case"] + ".declined"), "w") as f:
        f.write("the NPU has no grouped convolution\n")

    out = os.path.join(tmp, "judge.jsonl")
    p = run_convcheck(convcheck, ["judge", folder, "--json", out], 1)
    got = by_case(out)
    file = lambda c: c["outputs"]["dst"]["file"]
    expect = {
        flipped["id"]: ("failed", "outputs differ from the exact result"),
        truncated["id"]: ("failed", f"offline output {file(truncated)} is not a well-formed .npy file: npy:"),
        missing["id"]: ("failed", f"offline output {file(missing)} is missing: the device wrote no such file"),
        wrong_dtype["id"]: ("failed", f"offline output {file(wrong_dtype)} holds '<f8' where the case's dst is f32"),
        wrong_shape["id"]: ("failed", f"offline output {file(wrong_shape)} has shape ["),
        declined["id"]: ("unsupported", "the device declined it (" + declined["case"] +
                         ".declined): the NPU has no grouped convolution"),
    }
    for case_id, (status, words) in expect.items():
        r = got[case_id]
        if r["status"] != status or words not in r.get("reason", ""):
            fail(f"{case_id}: {r['status']}: {r.get('reason')!r}; expected {status} with {words!r}")
    if "first at" not in got[flipped["id"]]["reason"] or case_with(manifest, lambda c: c["id"] == flipped["id"]) is None:
        fail(f"the changed value is not named: {got[flipped['id']]['reason']}")
    for c in manifest["cases"]:
        if c["exported"] and c["id"] not in expect and got[c["id"]]["status"] != "passed":
            fail(f"{c['id']} (untouched): {got[c['id']]['status']}: {got[c['id']].get('reason')}")
    if file(missing) not in p.stdout + p.stderr:
        fail("the terminal does not name the missing file")
    print("corrupt: " + "; ".join(f"{k}: {got[k]['reason'][:110]}" for k in expect))


def check_quantized():
    manifest = check_same(numpy_backend, ("--suite", "quantized"), at_least=8)
    folder = os.path.join(tmp, "same")
    exported = [c for c in manifest["cases"] if c["exported"]]
    dtypes = {c["descriptor"]["dtypes"]["dst"] for c in exported}
    if not {"u8", "s8", "s32"} <= dtypes:
        fail(f"the exported quantized cases' dst dtypes are {sorted(dtypes)}")
    channels = case_with(manifest, lambda c: "szp=ic" in c["canonical"])
    points = channels["descriptor"]["quantization"]["src_zero_points"]
    if len(points) != channels["descriptor"]["in_channels"] or 0 in points:
        fail(f"{channels['id']}: the manifest's src_zero_points are {points}")
    used = set()

    def pick(dst, mode=("exact", "bound")):
        c = case_with(manifest, lambda c: c["id"] not in used and c["outputs"]["dst"]["dtype"] == dst and c["mode"] in mode)
        used.add(c["id"])
        return c, os.path.join(folder, c["outputs"]["dst"]["file"])

    off, path = pick("u8", ("exact",))
    dst = np.load(path)
    dst.reshape(-1)[5] = dst.reshape(-1)[5] ^ 1
    np.save(path, dst)
    widened, path = pick("u8")
    np.save(path, np.load(path).astype(np.int32))
    floated, path = pick("s8")
    np.save(path, np.load(path).astype(np.float32))
    missing, path = pick("s32")
    os.remove(path)
    reshaped, path = pick("u8")
    np.save(path, np.load(path).reshape(-1))
    out = os.path.join(tmp, "judge_q.jsonl")
    run_convcheck(convcheck, ["judge", folder, "--quiet", "--json", out], 1)
    got = by_case(out)
    file = lambda c: c["outputs"]["dst"]["file"]
    expect = {
        off["id"]: "under the declared nearest_even_f32_with_zero_point",
        widened["id"]: f"offline output {file(widened)} holds '<i4' where the case's dst is u8 ('|u1')",
        floated["id"]: f"offline output {file(floated)} holds '<f4' where the case's dst is s8 ('|i1')",
        missing["id"]: f"offline output {file(missing)} is missing: the device wrote no such file",
        reshaped["id"]: f"offline output {file(reshaped)} has shape [",
    }
    for case_id, words in expect.items():
        r = got[case_id]
        if r["status"] != "failed" or words not in r.get("reason", ""):
            fail(f"{case_id}: {r['status']}: {r.get('reason')!r}; expected failed with {words!r}")
    for c in exported:
        if c["id"] not in expect and got[c["id"]]["status"] != "passed":
            fail(f"{c['id']} (untouched): {got[c['id']]['status']}: {got[c['id']].get('reason')}")
    print("quantized: " + "; ".join(f"{k}: {got[k]['reason'][:110]}" for k in expect))
    # zero points outside their types (zpt=s32) go only to claims that take them: the numpy example's do
    s32 = [c for c in manifest["cases"] if "zpt=s32" in c["canonical"]]
    if not s32 or not all(c["exported"] for c in s32):
        fail(f"the zpt=s32 cases {[c['id'] for c in s32]} are not all exported to the numpy example's claims")
    with open(claims_file()) as f:
        in_type = json.load(f)
    del in_type["zero_points_outside_types"]
    in_type_claims = os.path.join(tmp, "in_type_claims.json")
    with open(in_type_claims, "w") as f:
        json.dump(in_type, f)
    folder = os.path.join(tmp, "in_type")
    run_convcheck(convcheck, ["export", "--claims", in_type_claims, "--suite", "quantized", folder], 0)
    with open(os.path.join(folder, "manifest.json")) as f:
        cases = {c["id"]: c for c in json.load(f)["cases"]}
    for c in s32:
        if cases[c["id"]]["exported"] or "zero_points_outside_types" not in cases[c["id"]].get("skipped", ""):
            fail(f"{c['id']}: exported to claims without zero_points_outside_types: {cases[c['id']]}")
    print(f"quantized: {len(s32)} zpt=s32 cases declined by claims without zero_points_outside_types")


def check_transposed():
    manifest = check_same(numpy_backend, ("--suite", "transposed"), at_least=10)
    folder = os.path.join(tmp, "same")
    padded = [c for c in manifest["cases"] if c["exported"] and any(c["descriptor"]["output_padding"])]
    if len(padded) < 2 or any(c["descriptor"]["operation"] != "conv_transposed" for c in padded):
        fail(f"{len(padded)} exported transposed cases with output padding")
    changed, cropped = padded[0], padded[1]
    path = os.path.join(folder, changed["outputs"]["dst"]["file"])
    dst = np.load(path)
    dst.reshape(-1)[-1] += 1.0
    np.save(path, dst)
    path = os.path.join(folder, cropped["outputs"]["dst"]["file"])
    op = cropped["descriptor"]["output_padding"]
    np.save(path, np.load(path)[(Ellipsis,) + tuple(slice(0, n - p) for n, p in zip(cropped["descriptor"]["output_size"], op))])
    out = os.path.join(tmp, "judge_t.jsonl")
    run_convcheck(convcheck, ["judge", folder, "--quiet", "--json", out], 1)
    got = by_case(out)
    expect = {changed["id"]: "first dst[", cropped["id"]: f"offline output {cropped['outputs']['dst']['file']} has shape ["}
    for case_id, words in expect.items():
        r = got[case_id]
        if r["status"] != "failed" or words not in r.get("reason", ""):
            fail(f"{case_id}: {r['status']}: {r.get('reason')!r}; expected failed with {words!r}")
    print("transposed: " + "; ".join(f"{k}: {got[k]['reason'][:110]}" for k in expect))


def check_torch():
    """The PyTorch example's quantized (QNNPACK, declared nearest_even_f32) and transposed cases, offline as run."""
    manifest = check_same(torch_backend, ("--suite", "quantized"), at_least=6, folder_name="torch_q")
    folder = os.path.join(tmp, "torch_q")
    off = case_with(manifest, lambda c: c["mode"] == "exact" and c["outputs"]["dst"]["dtype"] in ("u8", "s8"))
    path = os.path.join(folder, off["outputs"]["dst"]["file"])
    dst = np.load(path)
    dst.reshape(-1)[3] = dst.reshape(-1)[3] ^ 1
    np.save(path, dst)
    manifest_t = check_same(torch_backend, ("--suite", "transposed"), at_least=10, folder_name="torch_t")
    if not any(any(c["descriptor"]["output_padding"]) for c in manifest_t["cases"] if c["exported"]):
        fail("no exported transposed case with output padding")
    out = os.path.join(tmp, "judge_torch_q.jsonl")
    run_convcheck(convcheck, ["judge", folder, "--quiet", "--json", out], 1)
    r = by_case(out)[off["id"]]
    if r["status"] != "failed" or "under the declared nearest_even_f32" not in r.get("reason", ""):
        fail(f"{off['id']}: {r['status']}: {r.get('reason')!r}; expected failed under the declared nearest_even_f32")
    print(f"torch: {off['id']} off by one: {r['reason'][:110]}")


def check_manifest():
    folder = os.path.join(tmp, "m")
    export_and_compute(folder, ["--suite", "smoke", "--mode", "exact"])
    with open(os.path.join(folder, "manifest.json")) as f:
        good = json.load(f)

    def broken(change, words):
        m = json.loads(json.dumps(good))
        change(m)
        bad = os.path.join(tmp, "bad")
        shutil.rmtree(bad, ignore_errors=True)
        shutil.copytree(folder, bad)
        with open(os.path.join(bad, "manifest.json"), "w") as f:
            json.dump(m, f)
        p = run_convcheck(convcheck, ["judge", bad], 2)
        if words not in p.stderr:
            fail(f"exit 2 without naming {words!r}: {p.stderr.strip()}")
        print("manifest:", p.stderr.strip()[:160])

    broken(lambda m: m.update(format_version=2), "format_version = 2")
    broken(lambda m: m.pop("claims"), "claims = null: missing")
    broken(lambda m: m["claims"].update(dtypes=["f99"]), "claims")
    broken(lambda m: m["cases"][0].update(seed=7), "cases[0].seed = 7")
    broken(lambda m: m["cases"].pop(), "manifest.json: cases holds")
    broken(lambda m: m["cases"][1].pop("exported"), "cases[1].exported")
    p = run_convcheck(convcheck, ["export", "--suite", "smoke", folder], 2)
    if "not an empty folder" not in p.stderr:
        fail(f"export into a full folder: {p.stderr.strip()}")


{"same": check_same, "backward": check_backward, "quantized": check_quantized, "transposed": check_transposed, "torch": check_torch, "corrupt": check_corrupt, "manifest": check_manifest}[check]()
shutil.rmtree(tmp, ignore_errors=True)
