"""A second reference for the continuous convolution (CC) layer, in numpy, written from seed 004
("From Discrete to Continuous Convolution Layers") and SPEC-NOTES section 4, independently of the C++.

    projected grid (Eq. 2):  g_n = n/s + (in-1)/2 - (out-1)/(2s),  n = 0..out-1; out = ceil(s*in) by default
    neighbours:              the integers m with g - k/2 <= m < g + k/2 (k = support); zero outside the input
    distances:               D = g - m, one (dy, dx) pair per neighbour
    weights:                 K(dy, dx): the Internal-Net (1x1 convs 2 -> h1 -> h2 -> Cin*Cout, LeakyReLU after
                             every layer but the last; output channel cout*Cin + cin), or an analytic kernel
                             k(dy) k(dx) (linear, Keys cubic a = -0.5, Gaussian), the same for every channel pair
    output:                  I'(n, cout, i', j') = bias(cout) + sum_cin sum_neighbours N * K

A rational scale p/q is handled with fractions.Fraction (exact); a real scale in float64, where every
ceil snaps values within 1e-9 * max(1, |x|) of an integer (the documented convention of docs/cc.md).
"""

import math
from fractions import Fraction

import numpy as np

REAL_TOLERANCE = 1e-9


class CcDescriptor:
    def __init__(self, text):
        text = text[3:] if text.startswith("cc:") else text
        f = dict(item.split("=", 1) for item in text.split(","))
        pair = lambda key: f[key].split("x") * (2 if "x" not in f[key] else 1)
        self.batch = int(f.get("n", 1))
        self.cin, self.cout = int(f["cin"]), int(f["cout"])
        self.input_size = [int(v) for v in pair("in")]
        self.scale = [Fraction(v) if "/" in v or v.isdigit() else float(v) for v in pair("scale")]
        self.output_size = [int(v) for v in pair("out")]
        self.support = [int(v) for v in pair("support")]
        self.kernel = f.get("kernel", "net")
        self.sigma = float(f.get("sigma", 0.5))
        self.hidden = [int(v) for v in pair("hidden")] if "hidden" in f else [16, 16]
        self.slope = float(f.get("slope", 0.01))
        self.has_bias = f.get("bias", "0") == "1"


def snap_ceil(x):
    nearest = round(x)
    if abs(x - nearest) <= REAL_TOLERANCE * max(1.0, abs(x)):
        return int(nearest)
    return math.ceil(x)


def grid_axis(scale, size_in, size_out):
    """Eq. 2 on one axis: exact Fractions for a rational scale, floats for a real one."""
    if isinstance(scale, Fraction):
        return [Fraction(n) / scale + Fraction(size_in - 1, 2) - Fraction(size_out - 1) / (2 * scale)
                for n in range(size_out)]
    return [n / scale + (size_in - 1) / 2 - (size_out - 1) / (2 * scale) for n in range(size_out)]


def window(g, k):
    """First neighbour m_0 = ceil(g - k/2) and the distances g - m for m = m_0 .. m_0 + k - 1."""
    if isinstance(g, Fraction):
        first = math.ceil(g - Fraction(k, 2))
        return first, [float(g - (first + j)) for j in range(k)]
    first = snap_ceil(g - k / 2)
    return first, [g - (first + j) for j in range(k)]


def analytic_1d(kind, sigma, t):
    t = abs(t)
    if kind == "linear":
        return max(0.0, 1.0 - t)
    if kind == "cubic":  # Keys (1981), a = -0.5
        a = -0.5
        if t <= 1:
            return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
        return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a if t < 2 else 0.0
    if kind == "gaussian":
        return math.exp(-t * t / (2 * sigma * sigma))
    raise ValueError(kind)


def kernel_weights(desc, theta, dy, dx):
    """K(dy, dx) for every channel pair as a [Cout][Cin] array."""
    if desc.kernel != "net":
        if desc.kernel == "gaussian":
            value = math.exp(-(dy * dy + dx * dx) / (2 * desc.sigma * desc.sigma))
        else:
            value = analytic_1d(desc.kernel, desc.sigma, dy) * analytic_1d(desc.kernel, desc.sigma, dx)
        return np.full((desc.cout, desc.cin), value)
    h1, h2, c = desc.hidden[0], desc.hidden[1], desc.cin * desc.cout
    theta = np.asarray(theta, dtype=np.float64)
    sizes = [h1 * 2, h1, h2 * h1, h2, c * h2, c]
    parts = np.split(theta, np.cumsum(sizes)[:-1])
    w1, b1, w2, b2, w3, b3 = (parts[0].reshape(h1, 2), parts[1], parts[2].reshape(h2, h1), parts[3],
                              parts[4].reshape(c, h2), parts[5])
    leaky = lambda v: np.where(v >= 0, v, desc.slope * v)
    a1 = leaky(w1 @ np.array([dy, dx]) + b1)
    a2 = leaky(w2 @ a1 + b2)
    return (w3 @ a2 + b3).reshape(desc.cout, desc.cin)


def continuous_convolution(desc, src, theta, bias):
    """src [N][Cin][H][W] float64 -> (dst, magnitude, terms, grid), dst [N][Cout][H'][W']."""
    H, W = desc.input_size
    OH, OW = desc.output_size
    gy = grid_axis(desc.scale[0], H, OH)
    gx = grid_axis(desc.scale[1], W, OW)
    grid = np.zeros((2, OH, OW))
    grid[0] = np.array([float(g) for g in gy])[:, None]
    grid[1] = np.array([float(g) for g in gx])[None, :]
    N = desc.batch
    dst = np.zeros((N, desc.cout, OH, OW))
    magnitude = np.zeros_like(dst)
    terms = np.zeros(dst.shape, dtype=np.int64)
    kh, kw = desc.support
    for i in range(OH):
        fy, dys = window(gy[i], kh)
        for j in range(OW):
            fx, dxs = window(gx[j], kw)
            for a in range(kh):
                for b in range(kw):
                    my, mx = fy + a, fx + b
                    if not (0 <= my < H and 0 <= mx < W):
                        continue  # zero padding
                    K = kernel_weights(desc, theta, dys[a], dxs[b])       # [Cout][Cin]
                    x = src[:, :, my, mx]                                 # [N][Cin]
                    dst[:, :, i, j] += x @ K.T
                    magnitude[:, :, i, j] += np.abs(x) @ np.abs(K).T
                    terms[:, :, i, j] += desc.cin
    if desc.has_bias:
        b = np.asarray(bias, dtype=np.float64)[None, :, None, None]
        dst += b
        magnitude += np.abs(b)
        terms += 1
    return dst, magnitude, terms, grid
