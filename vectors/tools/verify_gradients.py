"""verify.py's part for the backward passes (dir=bwd_d, dir=bwd_w) and transposed convolution (deconv:):
every gradient recomputed by numpy_backward_reference.py and by PyTorch autograd (the forward's
torch.nn.functional.conv{1,2,3}d in float64 on CPU, its input padded with F.pad, which crops for a negative
pad; transposed: the backward data of its forward plus bias), checked like the forward's dst: the f64 truth
within 2*gamma_n(2^-53)*magnitude, terms exactly, the stored tensor bit for bit the truth rounded once."""

import numpy as np

import numpy_backward_reference as bref
import numpy_reference as ref

NUMPY_NAME = "numpy_backward_reference.py (SPEC-NOTES 5 adjoints scattered over the forward's index set, float64)"


def torch_name():
    import torch
    return f"torch {torch.__version__} autograd of conv1d/2d/3d (float64, CPU)"


def gamma(n, u):
    nu = n * u
    return np.where(nu < 1, nu / (1 - nu), np.inf)


def torch_gradients(desc, src, weights, diff_dst):
    """(diff_src, diff_weights, diff_bias) NCX / OIX / [O] by autograd of the forward."""
    import torch
    import torch.nn.functional as F
    x = torch.from_numpy(np.ascontiguousarray(src)).requires_grad_(True)
    w = torch.from_numpy(np.ascontiguousarray(weights)).requires_grad_(True)
    b = torch.zeros(desc.out_channels, dtype=torch.float64, requires_grad=True)
    pads = []
    for pb, pe in reversed(list(zip(desc.pads_begin, desc.pads_end))):
        pads += [pb, pe]
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[desc.rank]
    y = conv(F.pad(x, pads), w, b, stride=desc.strides, dilation=desc.dilations, groups=desc.groups)
    y.backward(torch.from_numpy(np.ascontiguousarray(diff_dst)))
    return x.grad.numpy(), w.grad.numpy(), b.grad.numpy()


def _check(label, name, got, truth, tolerance, stored, dt, from_ncx, problems, verified):
    err = np.abs(got - truth)
    if np.any(err > tolerance):
        i = int(np.argmax(err - tolerance))
        problems.append(f"{label}: {name} differs at flat canonical index {i}: {got.flat[i]!r} vs stored {truth.flat[i]!r}")
        return False
    bits = ref.to_bits(dt, ref.round_to(dt, from_ncx(got)))
    stored_bits = np.asarray(stored).view(np.uint32 if dt == "f32" else np.uint16)
    if not np.array_equal(bits, stored_bits):
        i = int(np.argmax(bits != stored_bits))
        problems.append(f"{label}: {name} bits differ at flat index {i}: {bits.flat[i]:#x} vs stored {stored_bits.flat[i]:#x}")
        return False
    verified.add(label)
    return True


def _oix_to_stored(desc):
    def convert(w):
        if desc.filter_format != "xio":
            return w
        r = desc.rank
        return np.transpose(w, list(range(2, 2 + r)) + [1, 0])  # OIX -> XIO = [k...][I/G][O]
    return convert


def verify_gradient_case(arrays, case, use_torch, torch_label):
    """Returns (problems, verified_by) for a backward or transposed case whose arrays are loaded."""
    problems, verified = [], set()
    dt, text = case["dtype"], case["descriptor"]
    kind = bref.pass_of(text)
    wide = lambda role: ref.from_storage(dt, arrays[role])
    # (gradient role, numpy (values, magnitude, terms), torch values or None, stored layout -> canonical)
    outputs = []
    if kind == "deconv":
        t = bref.Transposed(text)
        f = t.forward()
        src = ref.to_ncx(wide("src"), f)        # the forward's dst layout
        weights = ref.to_oix(wide("weights"), f)
        bias = wide("bias") if "bias" in arrays else None
        numpy_result = bref.transposed(t, src, weights, bias)
        torch_result = None
        if use_torch:
            zeros = np.zeros([f.batch, f.in_channels] + f.input_size)
            torch_result = torch_gradients(f, zeros, weights, src)[0]
            if bias is not None:
                torch_result = torch_result + bias.reshape((1, -1) + (1,) * t.rank)
        outputs.append(("dst", "dst_f64", "magnitude", "terms", numpy_result, torch_result, lambda v: ref.from_ncx(v, f)))
    else:
        desc = ref.Descriptor(text)
        diff_dst = ref.to_ncx(wide("diff_dst"), desc)
        if kind == "bwd_d":
            weights = ref.to_oix(wide("weights"), desc)
            torch_result = None
            if use_torch:
                zeros = np.zeros([desc.batch, desc.in_channels] + desc.input_size)
                torch_result = torch_gradients(desc, zeros, weights, diff_dst)[0]
            outputs.append(("diff_src", "diff_src_f64", "diff_src_magnitude", "diff_src_terms",
                            bref.backward_data(desc, diff_dst, weights), torch_result, lambda v: ref.from_ncx(v, desc)))
        else:
            src = ref.to_ncx(wide("src"), desc)
            tw = tb = None
            if use_torch:
                zeros = np.zeros([desc.out_channels, desc.in_channels // desc.groups] + desc.kernel_size)
                _, tw, tb = torch_gradients(desc, src, zeros, diff_dst)
            outputs.append(("diff_weights", "diff_weights_f64", "diff_weights_magnitude", "diff_weights_terms",
                            bref.backward_weights(desc, src, diff_dst), tw, _oix_to_stored(desc)))
            if desc.has_bias:
                outputs.append(("diff_bias", "diff_bias_f64", "diff_bias_magnitude", "diff_bias_terms",
                                bref.backward_bias(desc, diff_dst), tb, lambda v: v))
            elif any(r.startswith("diff_bias") for r in arrays):
                problems.append("diff_bias stored for a descriptor without bias")
    for role, f64, mag, count, (values, magnitude, terms), torch_values, to_stored in outputs:
        if not np.array_equal(terms, arrays[count]):
            problems.append(f"{count} differ from the count of the forward's pairs")
        tolerance = 2 * gamma(terms + 1, 2.0 ** -53) * magnitude
        if np.any(np.abs(magnitude - arrays[mag]) > tolerance):
            problems.append(f"{mag} differs from the sum of |term|")
        _check("numpy", role, values, arrays[f64], tolerance, arrays[role], dt, to_stored, problems, verified)
        if torch_values is not None:
            _check("torch", role, torch_values, arrays[f64], tolerance, arrays[role], dt, to_stored, problems, verified)
    names = [NUMPY_NAME] if "numpy" in verified else []
    if "torch" in verified and not any("torch" in p for p in problems):
        names.append(torch_label())
    return problems, [] if problems else names
