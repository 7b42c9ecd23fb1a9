"""verify.py's part for the CC backward set (descriptor "cc:...,dir=bwd"; docs/vectors.md, docs/cc-backward.md):
every stored gradient recomputed by PyTorch autograd of the layer built from torch operations in float64
(torch_cc.py: the paper's grid, neighbours, Internal-Net and apply, Sec. 3.1), with nothing from the C++ code.

Checked per case:
  distances  block 2's D [K, 2, H', W'] from numpy_cc_reference.py's grid and window (exact Fractions for
             p/q scales) equal the stored ones bit for bit: the two constructions are the same layer, so both
             evaluate the same exact gradient;
  terms      diff_src: Cout times the number of (neighbour, output) pairs that read the input pixel;
             diff_bias: N H' W'; diff_theta: L = N + 1 + (Cin Cout + h1 + h2 + 8) + K H' W', the roundings on any
             path (docs/cc-backward.md, "Rounding");
  magnitude  diff_src: sum |dY| |W~| by autograd of the same construction on |W| and |dY|, within 2
             diff_src_bound of it: the stored bound covers any honest double evaluation of that sum (its
             gamma_{T+1} M part) and of the weights it multiplies (sum |dY| deltaW; ||a| - |b|| <= |a - b|),
             so two evaluations differ by at most twice it. Not gamma alone: the Internal-Net's W~ is itself
             computed, and torch's float64 1x1 convolutions run on whatever BLAS libblas.so.3 is (OpenBLAS on
             a fresh Debian 12 with the project's packages, netlib elsewhere); diff_bias: sum |dY|, within
             2 gamma_T(2^-53) (no computed weights);
  bound      g_bound is the rounding bound of the doc: gamma_T M / (1 - gamma_T) for diff_bias, gamma_L M /
             (1 - gamma_L) + L 2^-1074 for diff_theta (each within 2^-40 relative), and for diff_src at least
             gamma_{T+1} M / (1 - gamma_{T+1}) (plus the weights' own error, sum |dY| deltaW >= 0);
  values     |torch - g_f64| <= 2 g_bound per element: the bound holds for ANY honest double evaluation of
             the same sums (any order, FMA or not; at most L roundings on any path of the theta gradient),
             torch's included, so two such evaluations differ by at most twice it. About T u M: a few ulps
             per term, no tolerance chosen;
  rounding   g (f32) is g_f64 rounded once to f32, bit for bit.
"""

import numpy as np

import numpy_cc_reference as cc_ref
import numpy_reference as ref

U = 2.0 ** -53
ETA = 2.0 ** -1074


def torch_name():
    import torch
    return (f"torch {torch.__version__} autograd of torch_cc.py (the layer from torch operations: gather, "
            f"Internal-Net as 1x1 conv2d + leaky_relu, multiply-sum; float64, CPU)")


def layer_text(descriptor):
    """The layer's descriptor without the pass key (core's split_cc_pass)."""
    return ",".join(f for f in descriptor.split(",") if not f.startswith("dir="))


def gamma(n):
    nu = np.asarray(n, dtype=np.float64) * U
    return np.where(nu < 1, nu / (1 - nu), np.inf)


def src_terms(desc):
    """Cout times the (neighbour, output) pairs whose neighbour is each input pixel, [N, Cin, H, W]."""
    H, W = desc.input_size
    OH, OW = desc.output_size
    hits = []
    for axis, (size_in, size_out, k) in enumerate(zip((H, W), (OH, OW), desc.support)):
        count = np.zeros(size_in, dtype=np.int64)
        for g in cc_ref.grid_axis(desc.scale[axis], size_in, size_out):
            first = cc_ref.window(g, k)[0]
            for m in range(first, first + k):
                if 0 <= m < size_in:
                    count[m] += 1
        hits.append(count)
    per_pixel = np.outer(hits[0], hits[1]) * desc.cout
    return np.broadcast_to(per_pixel, (desc.batch, desc.cin, H, W))


def check_bound(role, stored, magnitude, terms, exact_rule, problems):
    gamma_part = gamma(terms) * magnitude / (1 - gamma(terms))
    if not np.all(np.isfinite(stored)) or np.any(stored < 0):
        problems.append(f"{role}_bound: not finite and non-negative")
    elif exact_rule is not None:
        want = gamma_part + exact_rule
        if np.any(np.abs(stored - want) > 2.0 ** -40 * want):
            problems.append(f"{role}_bound is not gamma_n M / (1 - gamma_n) of the stored magnitude and terms")
    elif np.any(stored < gamma_part * (1 - 2.0 ** -40)):
        problems.append(f"{role}_bound is below the summation bound gamma_(T+1) M / (1 - gamma_(T+1))")


def verify_cc_backward_case(arrays, case, use_torch):
    """Returns (problems, verified_by) for a CC backward case whose arrays are loaded."""
    problems = []
    desc = cc_ref.CcDescriptor(layer_text(case["descriptor"]))
    net = desc.kernel == "net"
    expected = {"src", "diff_dst", "distances"} | {f"diff_src{s}" for s in ("", "_f64", "_magnitude", "_terms", "_bound")}
    if net:
        expected |= {"theta"} | {f"diff_theta{s}" for s in ("", "_f64", "_magnitude", "_terms", "_bound")}
    if desc.has_bias:
        expected |= {f"diff_bias{s}" for s in ("", "_f64", "_magnitude", "_terms", "_bound")}
    if set(arrays) != expected:
        return [f"arrays {sorted(set(arrays) ^ expected)} missing or unexpected for {desc.kernel}, bias {desc.has_bias}"], []
    import torch_cc
    D, _, _ = torch_cc.distances(desc)
    if not np.array_equal(np.array(D, dtype=np.float64), arrays["distances"]):
        problems.append("distances differ from Eq. 2's grid and window: not the same layer")
    K, (OH, OW) = desc.support[0] * desc.support[1], desc.output_size
    h1, h2 = desc.hidden
    L = desc.batch + 1 + (desc.cin * desc.cout + h1 + h2 + 8) + K * OH * OW
    dd = arrays["diff_dst"].astype(np.float64)
    want_terms = {"diff_src": src_terms(desc), "diff_theta": L, "diff_bias": desc.batch * OH * OW}
    for role in ("diff_src", "diff_theta", "diff_bias"):
        if role + "_terms" in arrays and not np.all(arrays[role + "_terms"] == want_terms[role]):
            problems.append(f"{role}_terms differ from the count of the doc")
    if desc.has_bias:
        bias_magnitude = np.abs(dd).sum(axis=(0, 2, 3))
        if np.any(np.abs(bias_magnitude - arrays["diff_bias_magnitude"]) > 2 * gamma(desc.batch * OH * OW) * bias_magnitude):
            problems.append("diff_bias_magnitude differs from sum |diff_dst|")
        check_bound("diff_bias", arrays["diff_bias_bound"], arrays["diff_bias_magnitude"], want_terms["diff_bias"], 0.0, problems)
    if net:
        check_bound("diff_theta", arrays["diff_theta_bound"], arrays["diff_theta_magnitude"], L, L * ETA, problems)
    check_bound("diff_src", arrays["diff_src_bound"], arrays["diff_src_magnitude"], want_terms["diff_src"] + 1, None, problems)
    for role in [r for r in ("diff_src", "diff_theta", "diff_bias") if r in arrays]:
        bits = ref.to_bits("f32", ref.round_to("f32", arrays[role + "_f64"]))
        if not np.array_equal(bits, arrays[role].view(np.uint32)):
            problems.append(f"{role} is not {role}_f64 rounded once to f32")
    if problems or not use_torch:
        return problems, []
    import torch
    src, diff_dst = arrays["src"].astype(np.float64), dd
    theta = arrays["theta"].astype(np.float64).tolist() if net else []
    bias = [0.0] * desc.cout  # the bias does not enter a gradient
    grads, _ = torch_cc.gradients(torch, desc, src.ravel().tolist(), theta, bias, diff_dst.ravel().tolist())
    magnitude = np.array(torch_cc.diff_src_magnitude(torch, desc, theta, diff_dst.ravel().tolist()))
    stored_magnitude = arrays["diff_src_magnitude"].ravel()
    allowed = 2 * arrays["diff_src_bound"].ravel()
    off = np.abs(magnitude - stored_magnitude) > allowed
    if np.any(off):
        i = int(np.argmax(off))
        problems.append(f"diff_src_magnitude[{i}] differs from sum |dY| |W~| (torch, the same construction on absolute "
                        f"values): stored {stored_magnitude[i]!r}, torch {magnitude[i]!r}, by more than 2 * bound "
                        f"{allowed[i]:.3g}")
    repro = f"reproduce with: verify.py on {case['name']} ({case['descriptor']}, seed {case['seed']})"
    worst = {}
    for role in grads:
        problem, worst[role] = torch_cc.compare(role, arrays[role + "_f64"].ravel().tolist(), grads[role],
                                                arrays[role + "_bound"].ravel().tolist(), False, repro)
        if problem:
            problems.append(problem.removeprefix("FAIL ").replace("reference ", "stored "))
    if problems:
        return problems, []
    print(f"ok {case['name']}: torch within 2 * bound (largest |difference| / (2 bound): " +
          ", ".join(f"{r} {w:.2g}" for r, w in worst.items()) + ")")
    return [], [torch_name() + ": every gradient within 2 * g_bound of g_f64"]
