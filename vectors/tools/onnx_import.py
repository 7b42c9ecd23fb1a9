#!/usr/bin/python3
"""Imports ONNX's own Conv node tests as the external vector set "onnx".

    onnx_import.py <out_dir>

1. Runs python3-onnx's test-case scripts for the Conv operator (onnx.backend.test.case.node.conv,
   through onnx.backend.test.cmd_tools.generate_data), which write each case as ONNX does:
   model.onnx and test_data_set_0/{input,output}_<i>.pb. numpy 1.24 removed the aliases np.float,
   np.int, np.bool, np.object, np.complex and np.str that some of those scripts still use: they are
   restored first (the collector imports every operator's script).
2. Reads each case back from the files: the Conv node's attributes from model.onnx (auto_pad, pads,
   strides, dilations, group, kernel_shape) and the tensors from the .pb files.
3. Turns the attributes into the canonical descriptor with ONNX's rules (SPEC-NOTES 2, written here
   independently of the C++ dialect): SAME_*: out = ceil(in/s), t = max(0, (out-1)*s + K - in),
   SAME_UPPER pb = floor(t/2), SAME_LOWER pb = ceil(t/2); VALID: no pads; NOTSET: pads as given.
4. Writes x, W, (B), y as src, weights, (bias), dst; dst_f64, magnitude and terms from
   numpy_reference.py. "comparison" is bitwise when ONNX's y is the correctly rounded result,
   bound otherwise.
"""

import argparse
import hashlib
import io
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import numpy_reference as ref  # noqa: E402

for alias, value in (("float", float), ("int", int), ("bool", bool), ("object", object), ("complex", complex),
                     ("str", str)):
    if alias not in np.__dict__:
        setattr(np, alias, value)

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402
from onnx.backend.test import cmd_tools  # noqa: E402


def generate_onnx_cases(out):
    cmd_tools.generate_data(argparse.Namespace(output=out, op_type="Conv"))
    node_dir = os.path.join(out, "node")
    return [os.path.join(node_dir, d) for d in sorted(os.listdir(node_dir))]


def read_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def descriptor_from_onnx(attrs, x_shape, w_shape):
    rank = len(x_shape) - 2
    ins = list(x_shape[2:])
    ks = list(attrs.get("kernel_shape", w_shape[2:]))
    strides = list(attrs.get("strides", [1] * rank))
    dilations = list(attrs.get("dilations", [1] * rank))
    group = attrs.get("group", 1)
    auto_pad = attrs.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pb, pe = [], []
        for i, k, s, d in zip(ins, ks, strides, dilations):
            out = -(-i // s)
            total = max(0, (out - 1) * s + (k - 1) * d + 1 - i)
            lower = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            pb.append(lower)
            pe.append(total - lower)
    elif auto_pad == "VALID":
        pb, pe = [0] * rank, [0] * rank
    else:
        pads = list(attrs.get("pads", [0] * 2 * rank))
        pb, pe = pads[:rank], pads[rank:]
    join = lambda v: "x".join(str(int(a)) for a in v)
    return (f"conv:n={x_shape[0]},c={x_shape[1]},o={w_shape[0]},g={group},in={join(ins)},k={join(ks)},"
            f"s={join(strides)},d={join(dilations)},pb={join(pb)},pe={join(pe)},bias=%d,dt=f32,data=ncx,wei=oix")


def save(out_dir, name, role, array, dtype):
    buffer = io.BytesIO()
    np.save(buffer, array)
    data = buffer.getvalue()
    file = f"{name}.{role}.npy"
    with open(os.path.join(out_dir, file), "wb") as f:
        f.write(data)
    return {"file": file, "dtype": dtype, "shape": list(array.shape), "sha256": hashlib.sha256(data).hexdigest()}


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        if f.endswith(".npy"):
            os.remove(os.path.join(out_dir, f))
    cases = []
    with tempfile.TemporaryDirectory(prefix="convcheck-onnx-") as tmp:
        for case_dir in generate_onnx_cases(tmp):
            model = onnx.load(os.path.join(case_dir, "model.onnx"))
            nodes = [n for n in model.graph.node if n.op_type == "Conv"]
            if len(nodes) != 1 or len(model.graph.node) != 1:
                continue
            node = nodes[0]
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            data_dir = os.path.join(case_dir, "test_data_set_0")
            inputs = [read_tensor(os.path.join(data_dir, f"input_{i}.pb")) for i in range(len(node.input))]
            y = read_tensor(os.path.join(data_dir, "output_0.pb"))
            x, w = inputs[0], inputs[1]
            b = inputs[2] if len(inputs) > 2 else None
            if x.dtype != np.float32:
                continue
            name = os.path.basename(case_dir)
            descriptor = descriptor_from_onnx(attrs, x.shape, w.shape) % (1 if b is not None else 0)
            desc = ref.Descriptor(descriptor)
            exact = ref.convolution(desc, x.astype(np.float64), w.astype(np.float64),
                                    None if b is None else b.astype(np.float64))
            magnitude, terms = ref.magnitude_and_terms(desc, x.astype(np.float64), w.astype(np.float64),
                                                       None if b is None else b.astype(np.float64))
            bitwise = np.array_equal(ref.to_bits("f32", ref.round_to("f32", exact)), y.view(np.uint32))
            arrays = {"src": save(out_dir, name, "src", x, "f32"), "weights": save(out_dir, name, "weights", w, "f32")}
            if b is not None:
                arrays["bias"] = save(out_dir, name, "bias", b, "f32")
            arrays["dst"] = save(out_dir, name, "dst", y, "f32")
            arrays["dst_f64"] = save(out_dir, name, "dst_f64", exact, "f64")
            arrays["magnitude"] = save(out_dir, name, "magnitude", magnitude, "f64")
            arrays["terms"] = save(out_dir, name, "terms", terms, "i64")
            dialect_attrs = {k: (v.decode() if isinstance(v, bytes) else (list(v) if not isinstance(v, int) else v))
                             for k, v in attrs.items()}
            cases.append({
                "name": name, "descriptor": descriptor, "dtype": "f32", "seed": 0, "fill": "external",
                "comparison": "bitwise" if bitwise else "bound",
                "source": f"ONNX {onnx.__version__} node test {name} (onnx/backend/test/case/node/conv.py)",
                "dialect": {"framework": "onnx", "attributes": dialect_attrs},
                "provenance": {"generated_by": f"onnx {onnx.__version__} test-case scripts (cmd_tools generate-data "
                                               f"--op_type Conv), .pb tensors converted by vectors/tools/onnx_import.py;"
                                               f" dst_f64/magnitude/terms by numpy_reference.py",
                               "verified_by": []},
                "arrays": arrays})
    manifest = {"format": "convcheck-vectors", "format_version": 1, "set": "onnx",
                "description": "ONNX's own Conv node tests (external set): inputs and expected outputs as ONNX "
                               "generates them, attributes converted to canonical descriptors.",
                "cases": cases}
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    print(f"onnx: {len(cases)} cases written to {out_dir}")
    return 0 if cases else 1


if __name__ == "__main__":
    sys.exit(main())
