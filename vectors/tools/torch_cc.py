"""The CC layer of seed 004 built from PyTorch operations, as the paper's "standard" implementation does
(Sec. 3.1, Fig. 2): gather the neighbours, run the Internal-Net as 1x1 convolutions over the distances,
multiply and sum. Autograd then gives the backward pass: gradients with respect to the input, every
Internal-Net parameter and the bias -- a second, independent construction to check the C++ CC backward
reference (reference/include/convcheck/reference/cc/backward.hpp) against.

Blocks 1 and 2's index decisions (grid, window) come from numpy_cc_reference.py (exact Fractions for a
p/q scale); everything that carries a gradient is a torch operation in float64:
    N  = src padded with zeros and indexed             [N, 1, Cin, K, H', W']   (slicing: a copy of pixels)
    W  = Internal-Net(D): conv2d 1x1 (2 -> h1), leaky_relu, conv2d 1x1 (h1 -> h2), leaky_relu,
         conv2d 1x1 (h2 -> Cin*Cout); [K, Cout*Cin, H', W'] -> [1, Cout, Cin, K, H', W']
         or an analytic k(dy) k(dx), the same for every channel pair (no parameters)
    I' = sum over Cin and K of N * W, plus bias[cout]
"""

import numpy_cc_reference as cc_ref


def distances(desc):
    """(D [K][2][H'][W'] as nested lists of floats, first rows [H'], first cols [W']) from the numpy reference."""
    H, W = desc.input_size
    OH, OW = desc.output_size
    kh, kw = desc.support
    rows = [cc_ref.window(g, kh) for g in cc_ref.grid_axis(desc.scale[0], H, OH)]
    cols = [cc_ref.window(g, kw) for g in cc_ref.grid_axis(desc.scale[1], W, OW)]
    D = [[[[0.0] * OW for _ in range(OH)] for _ in range(2)] for _ in range(kh * kw)]
    for a in range(kh):
        for b in range(kw):
            for i in range(OH):
                for j in range(OW):
                    D[a * kw + b][0][i][j] = rows[i][1][a]  # dy = g_h - m_h
                    D[a * kw + b][1][i][j] = cols[j][1][b]  # dx = g_w - m_w
    return D, [r[0] for r in rows], [c[0] for c in cols]


def theta_parts(torch, desc, theta):
    """W1, b1, W2, b2, W3, b3 as leaf tensors (requires_grad) from the ABI-order list."""
    h1, h2, c = desc.hidden[0], desc.hidden[1], desc.cin * desc.cout
    shapes = [(h1, 2), (h1,), (h2, h1), (h2,), (c, h2), (c,)]
    parts, at = [], 0
    for shape in shapes:
        count = 1
        for s in shape:
            count *= s
        parts.append(torch.tensor(theta[at:at + count], dtype=torch.float64).reshape(shape).requires_grad_())
        at += count
    return parts


def weights(torch, desc, D, parts):
    """Block 3: W [1, Cout, Cin, K, H', W'] from D [K, 2, H', W']."""
    F = torch.nn.functional
    K, OH, OW = D.shape[0], D.shape[2], D.shape[3]
    if desc.kernel == "net":
        W1, b1, W2, b2, W3, b3 = parts
        a1 = F.leaky_relu(F.conv2d(D, W1[:, :, None, None], b1), desc.slope)
        a2 = F.leaky_relu(F.conv2d(a1, W2[:, :, None, None], b2), desc.slope)
        w = F.conv2d(a2, W3[:, :, None, None], b3)                       # [K, Cout*Cin, H', W']
        return w.reshape(K, desc.cout, desc.cin, OH, OW).permute(1, 2, 0, 3, 4).unsqueeze(0)
    dy, dx = D[:, 0], D[:, 1]
    if desc.kernel == "linear":
        k = torch.clamp(1 - dy.abs(), min=0) * torch.clamp(1 - dx.abs(), min=0)
    elif desc.kernel == "cubic":
        def keys(t):
            x, a = t.abs(), -0.5
            inner = ((a + 2) * x - (a + 3)) * x * x + 1
            outer = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
            return torch.where(x <= 1, inner, torch.where(x < 2, outer, torch.zeros_like(x)))
        k = keys(dy) * keys(dx)
    else:
        k = torch.exp(-(dy * dy + dx * dx) / (2 * desc.sigma * desc.sigma))
    return k.expand(1, desc.cout, desc.cin, K, OH, OW)


def cc_layer(torch, desc, src, parts, bias, weight_map=None):
    """The forward I' [N, Cout, H', W'] from src [N, Cin, H, W] (tensors); D as computed here.
    weight_map (e.g. torch.abs) is applied to W before the multiply-sum (for magnitudes)."""
    F = torch.nn.functional
    D_list, first_rows, first_cols = distances(desc)
    D = torch.tensor(D_list, dtype=torch.float64)
    H, W = desc.input_size
    kh, kw = desc.support
    # zero padding wide enough for every window, then plain indexing (the neighbours are copies)
    top = max(0, -min(first_rows)); bottom = max(0, max(first_rows) + kh - H)
    left = max(0, -min(first_cols)); right = max(0, max(first_cols) + kw - W)
    padded = F.pad(src, (left, right, top, bottom))
    rows = torch.tensor([[f + a + top for a in range(kh)] for f in first_rows])    # [H', kh]
    cols = torch.tensor([[f + b + left for b in range(kw)] for f in first_cols])   # [W', kw]
    N = padded[:, :, rows[:, :, None, None], cols[None, None, :, :]]                # [N, Cin, H', kh, W', kw]
    N = N.permute(0, 1, 3, 5, 2, 4).reshape(src.shape[0], 1, desc.cin, kh * kw, rows.shape[0], cols.shape[0])
    W = weights(torch, desc, D, parts)
    out = (N * (weight_map(W) if weight_map else W)).sum(dim=(2, 3))                     # [N, Cout, H', W']
    if bias is not None:
        out = out + bias[None, :, None, None]
    return out, D


def gradients(torch, desc, src_list, theta, bias_list, diff_dst_list):
    """Autograd of <diff_dst, I'>: {"diff_src", "diff_theta" (net), "diff_bias" (bias=1)} as flat lists,
    and D (flat), all in the reference's canonical orders."""
    N, (H, W), (OH, OW) = desc.batch, desc.input_size, desc.output_size
    src = torch.tensor(src_list, dtype=torch.float64).reshape(N, desc.cin, H, W).requires_grad_()
    parts = theta_parts(torch, desc, theta) if desc.kernel == "net" else []
    bias = torch.tensor(bias_list, dtype=torch.float64).requires_grad_() if desc.has_bias else None
    out, D = cc_layer(torch, desc, src, parts, bias)
    out.backward(torch.tensor(diff_dst_list, dtype=torch.float64).reshape(N, desc.cout, OH, OW))
    grads = {"diff_src": src.grad.flatten().tolist()}
    if parts:
        grads["diff_theta"] = [v for p in parts for v in p.grad.flatten().tolist()]
    if bias is not None:
        grads["diff_bias"] = bias.grad.flatten().tolist()
    return grads, D.flatten().tolist()


def diff_src_magnitude(torch, desc, theta, diff_dst_list):
    """sum |dY| |W~| per input element (flat, [N, Cin, H, W]): the backward of the same construction with
    |W| and |diff_dst| (the magnitude the diff_src bound is computed from)."""
    N, (H, W), (OH, OW) = desc.batch, desc.input_size, desc.output_size
    src = torch.zeros(N, desc.cin, H, W, dtype=torch.float64, requires_grad=True)
    parts = [p.detach() for p in theta_parts(torch, desc, theta)] if desc.kernel == "net" else []
    out, _ = cc_layer(torch, desc, src, parts, None, weight_map=torch.abs)
    out.backward(torch.tensor(diff_dst_list, dtype=torch.float64).reshape(N, desc.cout, OH, OW).abs())
    return src.grad.flatten().tolist()


def compare(name, got, want, bound, exact, repro):
    """Two double evaluations of one gradient, each within `bound` (per element) of the exact value, so
    within 2 * bound of each other (or equal, `exact`). (one failure line or None, the largest
    |got - want| / (2 bound) seen)."""
    if len(got) != len(want):
        return f"FAIL {name}: reference {len(got)} elements, torch {len(want)}; {repro}", 0.0
    worst = 0.0
    for i, (g, w) in enumerate(zip(got, want)):
        if exact:
            if g != w:
                return f"FAIL {name}[{i}]: reference {g!r}, torch {w!r}, must be equal (exact data); {repro}", 0.0
            continue
        allowed = 2 * bound[i]
        if not abs(g - w) <= allowed:
            return (f"FAIL {name}[{i}]: reference {g!r}, torch {w!r}, differ by {abs(g - w):.3g} > 2 * bound "
                    f"{allowed:.3g}; {repro}"), 0.0
        if allowed > 0:
            worst = max(worst, abs(g - w) / allowed)
    return None, worst


def zero_pre_activations(torch, desc, theta):
    """How many Internal-Net pre-activations (both hidden layers, every distance pair) are exactly 0:
    the kinks of LeakyReLU, where the backward's choice of LeakyReLU'(0) shows."""
    F = torch.nn.functional
    D = torch.tensor(distances(desc)[0], dtype=torch.float64)
    W1, b1, W2, b2, _, _ = [p.detach() for p in theta_parts(torch, desc, theta)]
    z1 = F.conv2d(D, W1[:, :, None, None], b1)
    z2 = F.conv2d(F.leaky_relu(z1, desc.slope), W2[:, :, None, None], b2)
    return int((z1 == 0).sum()) + int((z2 == 0).sum())
