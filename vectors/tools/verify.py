#!/usr/bin/python3
"""Independent verification of golden-vector sets.

For every case of every set given, recompute the vector with
  1. numpy_reference.py (OpenVINO's "as if" narrative in float64, IEEE rounding written from the
     standard), and
  2. PyTorch (torch.nn.functional.conv1d/2d/3d in float64 on CPU) wherever it supports the case,
(backward and transposed cases: numpy_backward_reference.py and PyTorch autograd, verify_gradients.py;
CC backward cases, "cc:...,dir=bwd": PyTorch autograd of the layer built from torch operations,
verify_cc_backward.py)
and check, with nothing from the C++ code:
  - every array file's SHA-256 equals the manifest's, and numpy.save of what numpy.load reads gives
    back the same bytes (the C++ writer writes exactly what numpy writes);
  - dst_f64 agrees with each recomputation within the float64 summation-order bound
    2*gamma_n(2^-53)*sum|x*w| (zero for exact data), magnitude likewise, terms exactly;
  - dst is, bit for bit, the recomputed result rounded once to the dtype (numpy_reference.round_to,
    itself checked against numpy's f32 and f16 casts);
  - an expect_error case's descriptor breaks a rule of the seed texts.
With --record, each case's provenance.verified_by lists what verified it and manifest.json is rewritten.

usage: verify.py [--record] [--no-torch | --require-torch] <set_dir>...
Exit status 0 when every case verifies, 1 otherwise; 77 (skipped) with --require-torch when torch does
not import.
"""

import argparse
import hashlib
import io
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dialect_rules  # noqa: E402
import numpy_cc_reference as cc_ref  # noqa: E402
import numpy_backward_reference as bref  # noqa: E402
import numpy_reference as ref  # noqa: E402
import verify_cc_backward  # noqa: E402
import verify_gradients  # noqa: E402

NUMPY_NAME = "numpy_reference.py (OpenVINO as-if narrative, float64; IEEE 754 rounding from the standard)"


def torch_name():
    import torch
    return f"torch {torch.__version__} conv1d/2d/3d (float64, CPU)"


def gamma(n, u):
    nu = n * u
    return np.where(nu < 1, nu / (1 - nu), np.inf)


def load_arrays(set_dir, case, problems):
    arrays = {}
    for role, entry in case.get("arrays", {}).items():
        path = os.path.join(set_dir, entry["file"])
        with open(path, "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            problems.append(f"{role}: sha256 differs from the manifest")
        array = np.load(io.BytesIO(data), allow_pickle=False)
        expected = {"f32": "<f4", "f16": "<f2", "bf16": "<u2", "f64": "<f8", "i64": "<i8"}[entry["dtype"]]
        if array.dtype.str != expected:
            problems.append(f"{role}: numpy dtype {array.dtype.str}, the manifest says {entry['dtype']} ({expected})")
        if list(array.shape) != entry["shape"]:
            problems.append(f"{role}: shape {list(array.shape)}, the manifest says {entry['shape']}")
        again = io.BytesIO()
        np.save(again, array)
        if again.getvalue() != data:
            problems.append(f"{role}: numpy.save writes different bytes for the same array")
        arrays[role] = array
    return arrays


def rule_broken(desc):
    """The first rule of the seed texts that the descriptor breaks, or None."""
    if desc.groups < 1 or desc.in_channels % desc.groups or desc.out_channels % desc.groups:
        return "channels must divide into groups"
    for a in range(desc.rank):
        if desc.strides[a] < 1 or desc.dilations[a] < 1 or desc.kernel_size[a] < 1 or desc.input_size[a] < 1:
            return "strides, dilations, kernel and input sizes are positive"
        if desc.dilations[a] * (desc.kernel_size[a] - 1) + 1 > desc.input_size[a] + desc.pads_begin[a] + desc.pads_end[a]:
            return "the stretched kernel must fit in the padded input (complete spatial overlap)"
    return None


def torch_convolution(desc, src, weights, bias):
    """dst NCX float64 by torch, or None when torch cannot express the case."""
    import torch
    import torch.nn.functional as F
    x = torch.from_numpy(np.ascontiguousarray(ref.to_ncx(src, desc)))
    w = torch.from_numpy(np.ascontiguousarray(ref.to_oix(weights, desc)))
    b = torch.from_numpy(bias) if bias is not None else None
    pads = []
    for pb, pe in reversed(list(zip(desc.pads_begin, desc.pads_end))):
        pads += [pb, pe]  # F.pad takes the last axis first; a negative pad crops
    x = F.pad(x, pads)
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[desc.rank]
    return conv(x, w, b, stride=desc.strides, dilation=desc.dilations, groups=desc.groups).numpy()


def check_rounding_against_numpy_casts(values):
    """numpy_reference.round_to agrees with numpy's own f32 and f16 casts (which round once from float64)."""
    problems = []
    for dtype, np_type in (("f32", np.float32), ("f16", np.float16)):
        ours = ref.to_bits(dtype, ref.round_to(dtype, values))
        with np.errstate(over="ignore"):
            theirs = values.astype(np_type).view(np.uint32 if dtype == "f32" else np.uint16)
        if not np.array_equal(ours, theirs):
            problems.append(f"round_to({dtype}) disagrees with numpy's cast")
    return problems


RULES_NAME = "dialect_rules.py (each framework's padding rule from SPEC-NOTES 2)"


def check_dialect(case):
    """For a case read from a framework's attribute text: (problems, verified_by) of the framework's rule."""
    dialect = case.get("dialect") or {}
    if not isinstance(dialect.get("attributes"), str):
        return [], []
    framework, text = dialect["framework"], dialect["attributes"]
    try:
        strides, dilations, pb, pe = dialect_rules.pads(framework, text)
    except dialect_rules.Refused as refusal:
        if case.get("expect_error"):
            return [], [RULES_NAME + ": refused (" + str(refusal) + ")"]
        return [f"{framework} refuses {text} ({refusal}), the vector has a descriptor"], []
    if case.get("expect_error"):
        return [f"{framework} accepts {text}, the vector expects a refusal"], []
    desc = ref.Descriptor(case["descriptor"])
    got = (desc.strides, desc.dilations, desc.pads_begin, desc.pads_end)
    if tuple(map(list, (strides, dilations, pb, pe))) != got:
        return [f"{framework} {text}: strides, dilations, pads {(strides, dilations, pb, pe)} but the descriptor has {got}"], []
    return [], [RULES_NAME]


CC_NAME = "numpy_cc_reference.py (seed 004's grid, neighbours, kernel and sum; exact Fractions for p/q scales)"


def verify_cc_case(set_dir, case):
    """A CC case: recompute grid, dst, magnitude and terms with numpy_cc_reference.py."""
    problems = []
    arrays = load_arrays(set_dir, case, problems)
    if problems:
        return problems, []
    desc = cc_ref.CcDescriptor(case["descriptor"])
    src = arrays["src"].astype(np.float64)
    theta = arrays["theta"].astype(np.float64) if "theta" in arrays else None
    bias = arrays["bias"].astype(np.float64) if "bias" in arrays else None
    dst, magnitude, terms, grid = cc_ref.continuous_convolution(desc, src, theta, bias)
    exact_grid = all(isinstance(s, cc_ref.Fraction) for s in desc.scale)
    if exact_grid and not np.array_equal(grid, arrays["grid"]):
        problems.append("grid differs from Eq. 2 (exact scales: every point correctly rounded)")
    if not exact_grid and np.any(np.abs(grid - arrays["grid"]) > 1e-12 * np.maximum(1, np.abs(grid))):
        problems.append("grid differs from Eq. 2 in float64")
    if not np.array_equal(terms, arrays["terms"]):
        problems.append("terms differ")
    # float64 summation order and kernel evaluation (exp, polynomials) differ by a few ulps per term
    tolerance = 4 * gamma(terms + 8, 2.0 ** -53) * magnitude
    if np.any(np.abs(magnitude - arrays["magnitude"]) > tolerance):
        problems.append("magnitude differs")
    err = np.abs(dst - arrays["dst_f64"])
    if np.any(err > tolerance):
        i = int(np.argmax(err - tolerance))
        problems.append(f"dst_f64 differs at flat index {i}: {dst.flat[i]!r} vs stored {arrays['dst_f64'].flat[i]!r}")
    elif not np.array_equal(ref.to_bits("f32", ref.round_to("f32", dst)), arrays["dst"].view(np.uint32)):
        problems.append("dst is not dst_f64 rounded once to f32")
    return problems, [] if problems else [CC_NAME]


def verify_case(set_dir, case, use_torch):
    """Returns (problems, verified_by)."""
    if case["descriptor"].startswith("cc:") and "dir=bwd" in case["descriptor"].split(","):
        problems = []
        arrays = load_arrays(set_dir, case, problems)
        if problems:
            return problems, []
        return verify_cc_backward.verify_cc_backward_case(arrays, case, use_torch)
    if case["descriptor"].startswith("cc:"):
        return verify_cc_case(set_dir, case)
    if bref.pass_of(case["descriptor"]) != "fwd" and not case.get("expect_error"):
        problems = []
        arrays = load_arrays(set_dir, case, problems)
        if problems:
            return problems, []
        return verify_gradients.verify_gradient_case(arrays, case, use_torch, verify_gradients.torch_name)
    problems, rules_verified = check_dialect(case)
    if problems or (case.get("expect_error") and rules_verified):
        return problems, rules_verified
    desc = ref.Descriptor(case["descriptor"])
    if case.get("expect_error"):
        reason = rule_broken(desc)
        if reason is None:
            problems.append("expect_error, but the descriptor breaks no rule")
        return problems, [NUMPY_NAME + ": " + reason] if reason else []
    arrays = load_arrays(set_dir, case, problems)
    if problems:
        return problems, []
    dt = case["dtype"]
    src = ref.from_storage(dt, arrays["src"])
    weights = ref.from_storage(dt, arrays["weights"])
    bias = ref.from_storage(dt, arrays["bias"]) if "bias" in arrays else None
    dst_f64 = arrays["dst_f64"]
    stored_bits = np.asarray(arrays["dst"]).view(np.uint32 if dt == "f32" else np.uint16)

    magnitude, terms = ref.magnitude_and_terms(desc, src, weights, bias)
    if not np.array_equal(terms, arrays["terms"]):
        problems.append("terms differ from the count of real (unpadded) products")
    tolerance = 2 * gamma(terms + 1, 2.0 ** -53) * magnitude
    if np.any(np.abs(magnitude - arrays["magnitude"]) > tolerance):
        problems.append("magnitude differs from sum|x*w|")

    verified_by = []
    recomputations = [("numpy", NUMPY_NAME, lambda: ref.to_ncx(ref.convolution(desc, src, weights, bias), desc))]
    if use_torch:
        recomputations.append(("torch", torch_name(), lambda: torch_convolution(desc, src, weights, bias)))
    for label, name, compute in recomputations:
        y = compute()
        if y is None:
            continue
        err = np.abs(y - dst_f64)
        if np.any(err > tolerance):
            i = int(np.argmax(err - tolerance))
            problems.append(f"{label}: dst_f64 differs at flat NCX index {i}: {y.flat[i]!r} vs stored {dst_f64.flat[i]!r}")
            continue
        rounded = ref.round_to(dt, ref.from_ncx(y, desc))
        bits = ref.to_bits(dt, rounded)
        if not np.array_equal(bits, stored_bits):
            i = int(np.argmax(bits != stored_bits))
            problems.append(f"{label}: dst bits differ at flat index {i}: {bits.flat[i]:#x} vs stored {stored_bits.flat[i]:#x}")
            continue
        problems += check_rounding_against_numpy_casts(y.ravel())
        verified_by.append(name)
    return problems, rules_verified + verified_by


def check_chains(manifest):
    """CC chains (seed 004, Eq. 4): every layer's output shape is ceil(input * prod_{i<=j} s_i), the last
    input * target; they must equal the paper's Table 4 as transcribed in the spec, and each layer's stored
    descriptor must take the previous output as input and give its own output. Returns problems."""
    spec_path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "specs", manifest["set"] + ".json")
    if not os.path.exists(spec_path):
        return []
    problems = []
    cases = {c["name"]: c for c in manifest["cases"]}
    for spec in json.load(open(spec_path))["cases"]:
        if "chain" not in spec:
            continue
        chain = spec["chain"]
        shape, product, previous = chain["input"], [cc_ref.Fraction(1)] * 2, chain["input"]
        scales = [[cc_ref.Fraction(v) for v in pair] for pair in chain["scales"]]
        for j, s in enumerate(scales):
            product = [product[a] * s[a] for a in range(2)]
            if j + 1 < len(scales):
                out = [math.ceil(shape[a] * product[a]) for a in range(2)]
            else:
                exact = [shape[a] * cc_ref.Fraction(chain["target"][a]) for a in range(2)]
                out = [int(v) for v in exact]
                if exact != out:
                    problems.append(f"{spec['name']}: input * target is not an integer")
            if "table4_output_shapes" in spec and spec["table4_output_shapes"][j] != out:
                problems.append(f"{spec['name']} layer {j + 1}: Eq. 4 gives {out}, Table 4 says {spec['table4_output_shapes'][j]}")
            case = cases.get(f"{spec['name']}_layer{j + 1}")
            if case is None:
                problems.append(f"{spec['name']} layer {j + 1}: no case in the manifest")
                continue
            d = cc_ref.CcDescriptor(case["descriptor"])
            if d.output_size != out or d.input_size != previous or d.scale != s:
                problems.append(f"{case['name']}: in {d.input_size}, scale {d.scale}, out {d.output_size}; "
                                f"Eq. 4 gives in {previous}, scale {s}, out {out}")
            previous = out
    return problems


def verify_set(set_dir, record, use_torch):
    with open(os.path.join(set_dir, "manifest.json")) as f:
        manifest = json.load(f)
    failures = 0
    for problem in check_chains(manifest):
        print(f"FAIL {manifest['set']}: {problem}")
        failures += 1
    for case in manifest["cases"]:
        problems, verified_by = verify_case(set_dir, case, use_torch)
        if problems:
            failures += 1
            for p in problems:
                print(f"FAIL {manifest['set']}/{case['name']} ({case['descriptor']}, seed {case['seed']}): {p}")
        elif record:
            case["provenance"]["verified_by"] = verified_by
    print(f"{manifest['set']}: {len(manifest['cases']) - failures}/{len(manifest['cases'])} cases verified"
          f" ({'numpy + torch' if use_torch else 'numpy'})")
    if record and failures == 0:
        with open(os.path.join(set_dir, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=2)
            f.write("\n")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--record", action="store_true", help="write provenance.verified_by into the manifests")
    parser.add_argument("--no-torch", action="store_true", help="numpy only (faster; torch import takes seconds)")
    parser.add_argument("--require-torch", action="store_true", help="exit 77 (skipped) when torch does not import")
    args = parser.parse_args()
    use_torch = not args.no_torch
    if use_torch:
        try:
            import torch  # noqa: F401
        except ImportError as e:
            if args.require_torch:
                print(f"skipped: PyTorch is not importable ({e}); install python3-torch")
                return 77
            print("verify.py: torch is not importable; verifying with numpy only")
            use_torch = False
    failures = sum(verify_set(s, args.record, use_torch) for s in args.sets)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
