#!/usr/bin/python3
"""The quantized convolution reference against the ONNX backend tests' QLinearConv and ConvInteger nodes.

python3-onnx ships each node test as a case module (onnx/backend/test/case/node/qlinearconv.py,
convinteger.py) whose export() builds the node, its inputs and its expected outputs and hands them to
`expect`. This check replaces `expect` to collect them, runs each on reference_quantized_cli (the C++
reference: quantized_convolution.hpp, requantize.hpp) and compares every output with ==.
ConvInteger is the int32 accumulator; QLinearConv requantizes it with ONNX's arithmetic (the scales
combined in f32, y_zero_point added, the nearest integer, ties to even: nearest_even_f32_with_zero_point) and
saturates.

usage: onnx_node_check.py <reference_quantized_cli>
Exit 0 when every case agrees, 1 on a mismatch, 2 on a usage error, 77 (skipped) without python3-onnx.
"""

import json
import subprocess
import sys


def descriptor(node, x, w):
    attrs = {a.name: a for a in node.attribute}
    rank = len(x.shape) - 2
    ints = lambda name, default: list(attrs[name].ints) if name in attrs else [default] * rank  # noqa: E731
    pads = list(attrs["pads"].ints) if "pads" in attrs else [0] * (2 * rank)
    group = attrs["group"].i if "group" in attrs else 1
    if "auto_pad" in attrs and attrs["auto_pad"].s not in (b"", b"NOTSET"):
        raise ValueError("auto_pad " + attrs["auto_pad"].s.decode())
    axes = lambda v: "x".join(str(int(a)) for a in v)  # noqa: E731
    return (f"conv:n={x.shape[0]},c={x.shape[1]},o={w.shape[0]},g={group},in={axes(x.shape[2:])},"
            f"k={axes(w.shape[2:])},s={axes(ints('strides', 1))},d={axes(ints('dilations', 1))},"
            f"pb={axes(pads[:rank])},pe={axes(pads[rank:])},bias=0")


def run_case(cli, np, node, inputs, outputs, name):
    if node.op_type == "ConvInteger":
        x, w = inputs[0], inputs[1]
        zx = inputs[2] if len(inputs) > 2 else np.zeros(1, x.dtype)
        zw = inputs[3] if len(inputs) > 3 else np.zeros(1, w.dtype)
        rule, scale, zy, lowest, highest = "none", "0", "0", "0", "0"
    else:  # QLinearConv: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point[, B]
        x, xs, zx, w, ws, zw, ys, zy = inputs[:8]
        if len(inputs) > 8 or np.size(ws) != 1:
            return f"{name}: skipped (a bias or per-channel w_scale: the CLI takes one scale and no bias)"
        real = np.float32(np.float32(xs) * np.float32(np.asarray(ws).reshape(-1)[0])) / np.float32(ys)
        rule, scale = "nearest_even_f32_with_zero_point", repr(float(np.float32(real)))
        info = np.iinfo(outputs[0].dtype)
        zy, lowest, highest = str(int(zy)), str(info.min), str(info.max)
    zx, zw = np.asarray(zx).reshape(-1), np.asarray(zw).reshape(-1)
    d = descriptor(node, x, w)
    numbers = [int(v) for v in np.asarray(x).reshape(-1)] + [int(v) for v in np.asarray(w).reshape(-1)]
    numbers += [int(v) for v in zx] + [int(v) for v in zw]
    p = subprocess.run([cli, d, str(len(zx)), str(len(zw)), rule, scale, zy, lowest, highest],
                       input=" ".join(map(str, numbers)), capture_output=True, text=True)
    if p.returncode != 0:
        return f"{name}: FAILED, the reference refused {d}: {p.stderr.strip()}"
    got = json.loads(p.stdout)["acc" if rule == "none" else "dst"]
    want = [int(v) for v in outputs[0].reshape(-1)]
    if got != want:
        first = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b) if len(got) == len(want) else 0
        return f"{name}: FAILED, {d}: output {first} is {got[first]}, ONNX expects {want[first]}"
    return f"{name}: {len(want)} outputs equal ({d}, {rule})"


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import numpy as np
        from onnx.backend.test.case.node import convinteger, qlinearconv
    except ImportError as e:
        print(f"skipped: {e}")
        return 77
    cases = []
    for module, owner in ((qlinearconv, qlinearconv.QLinearConv), (convinteger, convinteger.ConvInteger)):
        module.expect = lambda node, inputs, outputs, name, **kw: cases.append((node, inputs, outputs, name))
        for attr in dir(owner):
            if attr.startswith("export"):
                getattr(owner, attr)()
    if not cases:
        print("no QLinearConv or ConvInteger case found in python3-onnx")
        return 1
    lines = [run_case(argv[1], np, *c) for c in cases]
    print("\n".join(lines))
    ran = [line for line in lines if "skipped" not in line]
    if any("FAILED" in line for line in lines) or not ran:
        return 1
    print(f"onnx_node_check: {len(ran)} ONNX node tests equal, {len(lines) - len(ran)} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
