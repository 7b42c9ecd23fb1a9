"""ONNX QDQ models as suites (ctest conformance_onnx_qdq_models; docs/suites.md, "ONNX models").

usage: onnx_qdq_check.py <convcheck> <plugin .so>...

Builds QDQ models with python3-onnx (onnx.helper): DequantizeLinear -> Conv -> [Relu | Clip ->] QuantizeLinear.
  - qdq.onnx: each such chain is one "qconv:" case with acc=f32 (the sum of the dequantized products is an f32 sum),
    bound mode only, with the model's scales and zero points; its descriptor is the one written here by hand from the
    ONNX operator texts (a per-axis y_scale and y_zero_point on the channel axis: dsc=a:b:..., dzp=a:b:..., one per
    output channel); every case passes on the first plugin (the reference), and on the others (optimized, onednn)
    passes, is declined in the plugin's words, or fails as backends.json declares it may, at least one passing on
    each;
  - qdq_skips.onnx: chains that are not one quantized convolution are skipped with their reasons (the Conv's output
    read by two nodes, a DequantizeLinear whose scale is a graph input, a per-axis src scale, a Conv output that is a
    graph output, a Conv after a DequantizeLinear of W only, a per-axis y_scale along a spatial axis), and counted;
    the one complete chain beside them runs.
"""
import json
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from cli_run import run_convcheck

convcheck, plugins = sys.argv[1], sys.argv[2:]
tmp = tempfile.mkdtemp(prefix="convcheck-onnx-qdq-")
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def run(args, expect):
    return run_convcheck(convcheck, args, expect)


NP = {TensorProto.FLOAT: np.float32, TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8,
      TensorProto.INT32: np.int32}


def const(name, value, elem):
    return numpy_helper.from_array(np.array(value, dtype=NP[elem]), name)


class Model:
    def __init__(self):
        self.nodes, self.inputs, self.outputs, self.inits = [], [], [], []

    def save(self, path):
        graph = helper.make_graph(self.nodes, "g", self.inputs, self.outputs, initializer=self.inits)
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)

    def qdq(self, name, x_shape, w_shape, x_elem, x_scale, x_zp, w_elem, w_scale, w_zp, y_elem, y_scale, y_zp,
            bias=None, activation=None, w_axis=None, runtime_x_scale=False, x_axis=None, conv_extra_reader=False,
            conv_is_output=False, x_float=False, y_axis=None, **attrs):
        """One chain; names are prefixed with `name`. bias: None, "f32" or "s32" (through DequantizeLinear)."""
        p = lambda s: f"{name}_{s}"
        m = w_shape[0]
        if x_float:  # X is a float graph input: no DequantizeLinear on X
            self.inputs.append(helper.make_tensor_value_info(p("xf"), TensorProto.FLOAT, x_shape))
        else:
            self.inputs.append(helper.make_tensor_value_info(p("xq"), x_elem, x_shape))
            if runtime_x_scale:
                self.inputs.append(helper.make_tensor_value_info(p("xs"), TensorProto.FLOAT, []))
            else:
                self.inits.append(const(p("xs"), x_scale, TensorProto.FLOAT))
            self.inits.append(const(p("xz"), x_zp, x_elem))
            self.nodes.append(helper.make_node("DequantizeLinear", [p("xq"), p("xs"), p("xz")], [p("xf")],
                                               **({"axis": x_axis} if x_axis is not None else {})))
        self.inits += [numpy_helper.from_array(np.ones(w_shape, NP[w_elem]), p("wq")),
                       const(p("ws"), w_scale, TensorProto.FLOAT), const(p("wz"), w_zp, w_elem)]
        self.nodes.append(helper.make_node("DequantizeLinear", [p("wq"), p("ws"), p("wz")], [p("wf")],
                                           **({"axis": w_axis} if w_axis is not None else {})))
        ins = [p("xf"), p("wf")]
        if bias == "f32":
            self.inits.append(numpy_helper.from_array(np.zeros([m], np.float32), p("b")))
            ins.append(p("b"))
        elif bias == "s32":  # int32 with scale x_scale * w_scale (per channel where w_scale is), zero point 0
            b_scale = (np.float32(x_scale) * np.array(w_scale, np.float32)).astype(np.float32)
            self.inits += [numpy_helper.from_array(np.zeros([m], np.int32), p("bq")),
                           numpy_helper.from_array(b_scale, p("bs"))]
            self.nodes.append(helper.make_node("DequantizeLinear", [p("bq"), p("bs")], [p("b")],
                                               **({"axis": 0} if b_scale.ndim else {})))
            ins.append(p("b"))
        self.nodes.append(helper.make_node("Conv", ins, [p("c")], name=name, **attrs))
        y_in = p("c")
        if conv_extra_reader:  # the float output is also read by another node
            self.nodes.append(helper.make_node("Sigmoid", [p("c")], [p("side")]))
            self.outputs.append(helper.make_tensor_value_info(p("side"), TensorProto.FLOAT, None))
        if conv_is_output:
            self.outputs.append(helper.make_tensor_value_info(p("c"), TensorProto.FLOAT, None))
        if activation == "relu":
            self.nodes.append(helper.make_node("Relu", [p("c")], [p("a")]))
            y_in = p("a")
        elif activation is not None:  # ("clip", lo, hi)
            self.inits += [const(p("lo"), activation[1], TensorProto.FLOAT), const(p("hi"), activation[2], TensorProto.FLOAT)]
            self.nodes.append(helper.make_node("Clip", [p("c"), p("lo"), p("hi")], [p("a")]))
            y_in = p("a")
        self.inits += [const(p("ys"), y_scale, TensorProto.FLOAT), const(p("yz"), y_zp, y_elem)]
        self.nodes.append(helper.make_node("QuantizeLinear", [y_in, p("ys"), p("yz")], [p("y")],
                                           **({"axis": y_axis} if y_axis is not None else {})))
        self.outputs.append(helper.make_tensor_value_info(p("y"), y_elem, None))


# backends.json without its coverage floors (they are for the built-in suites; here each case is checked below: the
# reference runs every one, a vendor passes, declines in its own words, or fails as its declared expected failures
# say, e.g. oneDNN's int8 without VNNI, finding OQ1)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "backends.json")) as f:
    declared = json.load(f)
for entry in declared["backends"].values():
    for floor in ("min_coverage", "min_coverage_on_cpu", "min_coverage_suites"):
        entry.pop(floor, None)
expectations = os.path.join(tmp, "backends-without-floors.json")
with open(expectations, "w") as f:
    json.dump(declared, f)


def cases_of(path, plugin):
    out = os.path.join(tmp, os.path.basename(path) + "." + os.path.basename(plugin) + ".jsonl")
    p = run(["run", "--backend", plugin, "--suite", path, "--threads", "2", "--no-shrink", "--expectations",
             expectations, "--json", out], 0)
    if not os.path.exists(out):
        return [], [], p
    with open(out) as f:
        records = [json.loads(line) for line in f]
    return [r for r in records if r["record"] == "case"], records, p


U8, S8 = TensorProto.UINT8, TensorProto.INT8
GEOMETRY = "n=1,c=4,o=8,g=1,in=6x6,k=3x3,s=1x1,d=1x1"

# ---- qdq.onnx: chains that are one quantized convolution each
qdq = Model()
# (name, chain, the descriptor written by hand: geometry from Conv, types from the quantized tensors, the scales and
# zero points of the three DequantizeLinear/QuantizeLinear nodes, bdt=f32 for any float B, acc=f32)
rows = [
    ("plain", dict(x_shape=[1, 4, 6, 6], w_shape=[8, 4, 3, 3], x_elem=U8, x_scale=0.02, x_zp=128, w_elem=S8,
                   w_scale=0.004, w_zp=0, y_elem=U8, y_scale=0.05, y_zp=10, bias="f32", pads=[1, 1, 1, 1]),
     f"qconv:{GEOMETRY},pb=1x1,pe=1x1,bias=1,data=ncx,wei=oix,dt=u8:s8:u8,bdt=f32,acc=f32,ssc=0.02,szp=128,"
     "wsc=0.004,wzp=0,dsc=0.05,dzp=10"),
    ("per_channel_relu", dict(x_shape=[1, 4, 6, 6], w_shape=[8, 4, 3, 3], x_elem=S8, x_scale=0.1, x_zp=-3, w_elem=S8,
                              w_scale=[0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08], w_zp=[0] * 8, w_axis=0,
                              y_elem=S8, y_scale=0.25, y_zp=-5, bias="s32", activation="relu", strides=[2, 2]),
     "qconv:n=1,c=4,o=8,g=1,in=6x6,k=3x3,s=2x2,d=1x1,pb=0x0,pe=0x0,bias=1,data=ncx,wei=oix,po=relu,dt=s8:s8:s8,bdt=f32,"
     "acc=f32,ssc=0.1,szp=-3,wsc=0.01:0.02:0.03:0.04:0.05:0.06:0.07:0.08,wzp=0,dsc=0.25,dzp=-5"),
    ("clip_u8_weights", dict(x_shape=[1, 4, 6, 6], w_shape=[8, 4, 3, 3], x_elem=U8, x_scale=0.03, x_zp=7, w_elem=U8,
                             w_scale=0.002, w_zp=120, y_elem=U8, y_scale=0.03, y_zp=0, activation=("clip", 0.0, 6.0),
                             pads=[1, 0, 1, 0]),
     f"qconv:{GEOMETRY},pb=1x0,pe=1x0,bias=0,data=ncx,wei=oix,po=clip:0:6,dt=u8:u8:u8,acc=f32,ssc=0.03,szp=7,"
     "wsc=0.002,wzp=120,dsc=0.03,dzp=0"),
    ("depthwise", dict(x_shape=[2, 6, 7, 7], w_shape=[6, 1, 3, 3], x_elem=U8, x_scale=0.5, x_zp=3, w_elem=S8,
                       w_scale=0.125, w_zp=0, y_elem=U8, y_scale=4.0, y_zp=128, group=6),
     "qconv:n=2,c=6,o=6,g=6,in=7x7,k=3x3,s=1x1,d=1x1,pb=0x0,pe=0x0,bias=0,data=ncx,wei=oix,dt=u8:s8:u8,acc=f32,"
     "ssc=0.5,szp=3,wsc=0.125,wzp=0,dsc=4,dzp=128"),
    # QuantizeLinear per axis on the channel axis (axis absent: ONNX's default 1): output channel oc's v / y_scale[oc]
    # rounded to even, + y_zero_point[oc]
    ("per_axis_dst", dict(x_shape=[1, 4, 6, 6], w_shape=[8, 4, 3, 3], x_elem=U8, x_scale=0.02, x_zp=128, w_elem=S8,
                          w_scale=0.004, w_zp=0, y_elem=U8, y_scale=[0.05, 0.1, 0.025, 0.5, 0.0625, 0.2, 0.03, 0.07],
                          y_zp=[10, 128, 0, 255, 100, 64, 7, 200], bias="f32", pads=[1, 1, 1, 1]),
     f"qconv:{GEOMETRY},pb=1x1,pe=1x1,bias=1,data=ncx,wei=oix,dt=u8:s8:u8,bdt=f32,acc=f32,ssc=0.02,szp=128,"
     "wsc=0.004,wzp=0,dsc=0.05:0.1:0.025:0.5:0.0625:0.2:0.03:0.07,dzp=10:128:0:255:100:64:7:200"),
    # axis -3 (1 - rank: the channel axis of [N, M, H, W]) with per-channel weights scales and a Relu; s8, one zero point
    ("per_axis_dst_relu", dict(x_shape=[1, 4, 6, 6], w_shape=[8, 4, 3, 3], x_elem=S8, x_scale=0.1, x_zp=-3, w_elem=S8,
                               w_scale=[0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08], w_zp=[0] * 8, w_axis=0,
                               y_elem=S8, y_scale=[0.25, 0.5, 1.0, 2.0, 0.125, 4.0, 0.75, 1.5], y_zp=[-5] * 8, y_axis=-3,
                               activation="relu", strides=[2, 2]),
     "qconv:n=1,c=4,o=8,g=1,in=6x6,k=3x3,s=2x2,d=1x1,pb=0x0,pe=0x0,bias=0,data=ncx,wei=oix,po=relu,dt=s8:s8:s8,"
     "acc=f32,ssc=0.1,szp=-3,wsc=0.01:0.02:0.03:0.04:0.05:0.06:0.07:0.08,wzp=0,dsc=0.25:0.5:1:2:0.125:4:0.75:1.5,dzp=-5"),
    ("relu_unit_dst", dict(x_shape=[1, 4, 6, 6], w_shape=[8, 4, 3, 3], x_elem=U8, x_scale=0.01, x_zp=5, w_elem=S8,
                           w_scale=0.02, w_zp=0, y_elem=U8, y_scale=1.0, y_zp=0, activation="relu"),
     f"qconv:{GEOMETRY},pb=0x0,pe=0x0,bias=0,data=ncx,wei=oix,po=relu,dt=u8:s8:u8,acc=f32,ssc=0.01,szp=5,wsc=0.02,"
     "wzp=0,dsc=1,dzp=0"),
]
for name, chain, _ in rows:
    qdq.qdq(name, **chain)
qdq_path = os.path.join(tmp, "qdq.onnx")
qdq.save(qdq_path)
listing = run(["list", "--suite", qdq_path], 0)
check("skipped" not in listing.stdout + listing.stderr, f"qdq.onnx: nothing is skipped:\n{listing.stdout}")
for plugin in plugins:
    cases, _, _ = cases_of(qdq_path, plugin)
    got = {(c["shape_name"], c["mode"]): c for c in cases}
    want = {(f"qdq.onnx/{name}", "bound"): descriptor for name, _, descriptor in rows}
    check(set(got) == set(want), f"qdq.onnx on {plugin}: cases {sorted(got)}, expected {sorted(want)} (bound mode only)")
    for key, descriptor in want.items():
        c = got.get(key)
        if c is None:
            continue
        check(c["descriptor"] == descriptor, f"{key}: descriptor\n  {c['descriptor']}, by hand\n  {descriptor}")
        # the reference runs every case; a vendor may decline one in its own words, or fail it as it declares
        ok = ("passed",) if plugin == plugins[0] else ("passed", "unsupported", "xfail")
        check(c["status"] in ok, f"{key} on {plugin}: {c['status']} {c['reason']} ({c['reproducer']})")
        check(c["features"]["dialect"] == "onnx", f"{key}: dialect {c['features']['dialect']}")
        print(f"{os.path.basename(plugin)} {key[0]}: {c['status']} {c['reason'] if c['status'] != 'passed' else ''}")
    check(any(c["status"] == "passed" for c in cases), f"qdq.onnx on {plugin}: no case ran")

# ---- qdq_skips.onnx: what is not one quantized convolution is skipped with its reason, never read as another
skips = Model()
base = dict(x_shape=[1, 4, 6, 6], w_shape=[8, 4, 3, 3], x_elem=U8, x_scale=0.02, x_zp=128, w_elem=S8, w_scale=0.004,
            w_zp=0, y_elem=U8, y_scale=0.05, y_zp=10)
skipped = {  # node -> words of its reason
    "two_readers": "is read by 2 nodes (Sigmoid, QuantizeLinear)",
    "runtime_scale": "QDQ: X's DequantizeLinear's x_scale (runtime_scale_xs) is not an initializer of the model",
    "per_axis_src": "x_scale has 4 values (per axis 1): a qconv: descriptor has one src scale",
    "float_output": "is also an output of the graph",
    "float_x": "QDQ: the Conv's X is not the output of a DequantizeLinear (a graph input or initializer)",
    "per_axis_dst_spatial": "QDQ: the QuantizeLinear has axis = 2 with 4 y_scale values: a per-axis output quantization "
                            "is read on the channel axis only",
}
skips.qdq("two_readers", conv_extra_reader=True, **base)
skips.qdq("runtime_scale", runtime_x_scale=True, **base)
skips.qdq("per_axis_src", **dict(base, x_scale=[0.02, 0.03, 0.04, 0.05], x_zp=[128] * 4), x_axis=1)
skips.qdq("float_output", conv_is_output=True, **base)
skips.qdq("float_x", x_float=True, **base)
# per axis along H (axis 2, 4 rows of the 4x4 output): a scale per row, not per output channel
skips.qdq("per_axis_dst_spatial", **dict(base, y_scale=[0.05, 0.06, 0.07, 0.08], y_zp=[10] * 4), y_axis=2)
skips.qdq("complete", **base)
skips_path = os.path.join(tmp, "qdq_skips.onnx")
skips.save(skips_path)
cases, records, p = cases_of(skips_path, plugins[0])
check([c["shape_name"] for c in cases] == ["qdq_skips.onnx/complete"],
      f"qdq_skips.onnx: cases {[c['shape_name'] for c in cases]}, expected the complete chain only")
check(all(c["status"] == "passed" for c in cases), f"qdq_skips.onnx: {[(c['status'], c['reason']) for c in cases]}")
skip_records = [r for r in records if r["record"] == "skipped"]
for node, words in skipped.items():
    mine = [r for r in skip_records if f"'{node}'" in r.get("source", "")]
    check(len(mine) == 1 and words in mine[0].get("reason", ""),
          f"qdq_skips.onnx: node {node} should be skipped for '{words}'; its records: {mine}")
check(records and records[-1].get("skipped_inputs") == len(skipped), f"qdq_skips.onnx: the summary says {records[-1]}")

# ---- dsc=a:b:... outside the general output's bound (an integer dst, integer accumulator, no post-ops): exit 2 naming dsc
p = run(["run", "--backend", plugins[0], "--case", "qconv:c=2,o=3,in=5,k=3,dt=u8:s8:u8,dsc=0.5:0.25:2", "--quiet"], 2)
check("dsc" in p.stderr and "general output" in p.stderr, f"dsc list on an exact case: {p.stderr}")

if failures:
    sys.exit("\n".join(["FAILED:"] + failures))
print(f"ONNX QDQ models: all checks passed on {len(plugins)} plugins ({tmp})")
