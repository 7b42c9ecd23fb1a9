"""ONNX models as suites, end to end (ctest conformance_onnx_model_suites).

usage: onnx_suite_check.py <convcheck> <optimized plugin .so> <onnx_conv_nodes.py>

Builds small models with python3-onnx (onnx.helper) and checks `convcheck list/run --suite model.onnx`:
  - convs.onnx: Conv nodes over auto_pad NOTSET/SAME_UPPER/SAME_LOWER/VALID, groups, depthwise,
    dilation, asymmetric pads, bias and no bias, 1-D/2-D/3-D, f32/f16/bf16: each node is one case
    named after it, its descriptor is the one written here by hand AND the one `convcheck describe
    --dialect onnx` gives for the node's attributes (bias and dtype from the node), and every case
    passes on the optimized plugin;
  - inferred.onnx: Conv nodes whose inputs have no declared shape (after Relu, MaxPool, Reshape, a
    Constant weight): their shapes come from ONNX shape inference;
  - nested.onnx: Conv nodes in an If node's branches are cases, one in a model-local function is skipped;
  - transposed.onnx: ConvTranspose nodes over pads, output_padding, output_shape, auto_pad, group,
    dilations, strides, 1-D/3-D, bias, f16: each is one "deconv:" case whose descriptor is the one written
    here by hand AND the one `convcheck describe --dialect onnx_transpose` gives, and every case passes;
  - shuffle.onnx: a channel shuffle as torch.onnx.export writes it (Slice ends from Shape -> Gather -> Add -> Div ->
    Mul), whose Conv input only the converter's shape evaluation knows, is a passing case; a Conv after a Reshape to
    a shape from NonZero's output is skipped with the evaluation's reason;
  - skips.onnx: a ConvTranspose the ONNX transposed dialect refuses, a DOUBLE Conv and a Conv with a symbolic
    batch are skipped with their reasons (printed, counted) while the one plain Conv runs;
  - quantized.onnx: QLinearConv (u8 x, s8 w, a bias, dyadic scales: exact and bound mode; arbitrary scales: bound
    mode; per-channel w_scale carried as wsc=a:b:...) and ConvInteger (zero points) nodes are "qconv:" cases with
    the model's scales and zero points, each passing on the optimized plugin;
  - a garbage file, an empty file and python without python3-onnx: exit 2 with a clear message.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

convcheck, plugin, converter = sys.argv[1], sys.argv[2], sys.argv[3]
tmp = tempfile.mkdtemp(prefix="convcheck-onnx-suite-")
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def run(args, expect):
    p = subprocess.run([convcheck] + args, capture_output=True, text=True)
    check(p.returncode == expect, f"convcheck {' '.join(args)}: exit {p.returncode}, expected {expect}\n"
                                  f"{p.stdout}\n{p.stderr}")
    return p


NP = {TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16, TensorProto.DOUBLE: np.float64,
      TensorProto.UINT8: np.uint8}
DT = {TensorProto.FLOAT: "f32", TensorProto.FLOAT16: "f16", TensorProto.BFLOAT16: "bf16"}


def initializer(name, shape, elem):
    if elem == TensorProto.BFLOAT16:  # numpy has no bfloat16: raw bit patterns
        t = helper.make_tensor(name, elem, shape, vals=np.zeros(int(np.prod(shape)), np.uint16).tobytes(), raw=True)
        return t
    return numpy_helper.from_array(np.ones(shape, NP[elem]), name)


class Model:
    """A graph of independent nodes: each Conv reads its own graph input and writes its own output."""

    def __init__(self):
        self.nodes, self.inputs, self.outputs, self.inits = [], [], [], []

    def conv(self, name, x_shape, w_shape, bias=False, elem=TensorProto.FLOAT, op="Conv", y_elem=None, b_size=None,
             **attrs):
        x, w, y = f"{name}_x", f"{name}_w", f"{name}_y"
        self.inputs.append(helper.make_tensor_value_info(x, elem, x_shape))
        self.inits.append(initializer(w, w_shape, elem))
        ins = [x, w]
        if bias:
            self.inits.append(initializer(f"{name}_b", [b_size or w_shape[0]], elem))
            ins.append(f"{name}_b")
        self.nodes.append(helper.make_node(op, ins, [y], name=name, **attrs))
        self.outputs.append(helper.make_tensor_value_info(y, y_elem or elem, None))  # no declared shape

    def save(self, path, opset=13):
        graph = helper.make_graph(self.nodes, "g", self.inputs, self.outputs, initializer=self.inits)
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)


def describe(attributes, dialect="onnx"):
    p = subprocess.run([convcheck, "describe", "--dialect", dialect, "--json"] + attributes, capture_output=True,
                       text=True)
    check(p.returncode == 0, f"describe {attributes}: exit {p.returncode}\n{p.stderr}")
    return json.loads(p.stdout)["canonical"] if p.returncode == 0 else None


def with_bias_dtype(descriptor, bias, dt):
    return descriptor.replace("bias=0", f"bias={int(bias)}").replace("dt=f32", f"dt={dt}")


def check_model_cases(path, rows, dialect_name):
    """Every row (name, words for `describe --dialect`, elem, by-hand descriptor, expected from the dialect's
    reading) is one passing case of the model named after its node, in that dialect."""
    model = os.path.basename(path)
    listing = run(["list", "--suite", path], 0)
    check("skipped" not in listing.stdout + listing.stderr, f"{model}: nothing should be skipped:\n{listing.stdout}")
    cases, _ = run_cases(path)
    by_name = {c["shape_name"]: c for c in cases}
    check(len(cases) == len(rows), f"{model}: {len(cases)} cases, expected {len(rows)}")
    for name, words, by_hand, from_dialect in rows:
        c = by_name.get(f"{model}/{name}")
        if c is None:
            failures.append(f"{model}: no case named {model}/{name}")
            continue
        check(c["descriptor"] == by_hand, f"{name}: descriptor {c['descriptor']}, by hand {by_hand}")
        check(c["status"] == "passed", f"{name}: {c['status']} {c['reason']} ({c['reproducer']})")
        check(c["features"]["dialect"] == dialect_name, f"{name}: dialect {c['features']['dialect']}")
        # the dialect's reading of the same attributes, through `convcheck describe`
        dialect = describe(words, dialect_name)
        if dialect is not None:
            check(c["descriptor"] == from_dialect(dialect),
                  f"{name}: descriptor {c['descriptor']}, the {dialect_name} dialect reads {dialect} ({words})")


def attribute_words(attrs):
    return [f"{key}=" + ("x".join(map(str, v)) if isinstance(v, list) else str(v)) for key, v in attrs.items()]


def run_cases(model_path, expect_exit=0):
    out = os.path.join(tmp, os.path.basename(model_path) + ".jsonl")
    p = run(["run", "--backend", plugin, "--suite", model_path, "--threads", "2", "--no-shrink",
             "--json", out], expect_exit)
    if not os.path.exists(out):
        return [], p
    with open(out) as f:
        return [r for r in map(json.loads, f) if r["record"] == "case"], p


# ---- convs.onnx: every attribute family, checked against a hand-written and the dialect's descriptor
convs = Model()
# (name, x, w, bias, elem, attrs, expected descriptor written by hand from the ONNX spec)
table = [
    ("same_upper_s2_bias", [1, 3, 7, 7], [4, 3, 3, 3], True, TensorProto.FLOAT,
     dict(auto_pad="SAME_UPPER", strides=[2, 2]),
     "conv:n=1,c=3,o=4,g=1,in=7x7,k=3x3,s=2x2,d=1x1,pb=1x1,pe=1x1,bias=1,dt=f32,data=ncx,wei=oix"),
    # out = in/s; t = 6-1+4-6 = 3 -> SAME_LOWER puts 2 first; t = 5-1+2-5 = 1 -> 1 first
    ("same_lower_even_kernel", [2, 2, 6, 5], [3, 2, 4, 2], False, TensorProto.FLOAT,
     dict(auto_pad="SAME_LOWER"),
     "conv:n=2,c=2,o=3,g=1,in=6x5,k=4x2,s=1x1,d=1x1,pb=2x1,pe=1x0,bias=0,dt=f32,data=ncx,wei=oix"),
    ("valid_dilated", [1, 2, 9, 8], [2, 2, 3, 3], True, TensorProto.FLOAT,
     dict(auto_pad="VALID", dilations=[2, 3]),
     "conv:n=1,c=2,o=2,g=1,in=9x8,k=3x3,s=1x1,d=2x3,pb=0x0,pe=0x0,bias=1,dt=f32,data=ncx,wei=oix"),
    ("notset_asymmetric_pads", [1, 1, 5, 6], [2, 1, 3, 2], False, TensorProto.FLOAT,
     dict(pads=[1, 0, 2, 1], strides=[2, 1], kernel_shape=[3, 2]),
     "conv:n=1,c=1,o=2,g=1,in=5x6,k=3x2,s=2x1,d=1x1,pb=1x0,pe=2x1,bias=0,dt=f32,data=ncx,wei=oix"),
    ("grouped", [1, 4, 6, 6], [6, 2, 3, 3], True, TensorProto.FLOAT,
     dict(group=2, pads=[1, 1, 1, 1]),
     "conv:n=1,c=4,o=6,g=2,in=6x6,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=1,dt=f32,data=ncx,wei=oix"),
    ("depthwise", [1, 3, 5, 5], [3, 1, 3, 3], False, TensorProto.FLOAT,
     dict(group=3, auto_pad="SAME_UPPER"),
     "conv:n=1,c=3,o=3,g=3,in=5x5,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=f32,data=ncx,wei=oix"),
    # out = ceil(10/3) = 4, t = 3*3+4-10 = 3 -> SAME_UPPER: 1 first, 2 last
    ("conv1d", [1, 2, 10], [3, 2, 4], True, TensorProto.FLOAT,
     dict(auto_pad="SAME_UPPER", strides=[3]),
     "conv:n=1,c=2,o=3,g=1,in=10,k=4,s=3,d=1,pb=1,pe=2,bias=1,dt=f32,data=ncx,wei=oix"),
    # axis 0: out 3, t = 4+3-5 = 2 -> 1/1; axis 1: K = 3, out 4, t = 3+3-4 = 2 -> 1/1; axis 2: out 3, t = 4+3-6 = 1 -> 1/0
    ("conv3d", [1, 2, 5, 4, 6], [2, 2, 3, 2, 3], False, TensorProto.FLOAT,
     dict(auto_pad="SAME_LOWER", strides=[2, 1, 2], dilations=[1, 2, 1]),
     "conv:n=1,c=2,o=2,g=1,in=5x4x6,k=3x2x3,s=2x1x2,d=1x2x1,pb=1x1x1,pe=1x1x0,bias=0,dt=f32,data=ncx,wei=oix"),
    # ONNX's shape inference: (2 - 3) / 2 + 1 = 1 (C division): the window overhangs by 1, read as pe + 1
    ("valid_kernel_larger_than_input", [1, 1, 2, 2], [1, 1, 3, 3], False, TensorProto.FLOAT,
     dict(auto_pad="VALID", strides=[2, 2]),
     "conv:n=1,c=1,o=1,g=1,in=2x2,k=3x3,s=2x2,d=1x1,pb=0x0,pe=1x1,bias=0,dt=f32,data=ncx,wei=oix"),
    ("f16_bias", [1, 2, 5, 5], [2, 2, 3, 3], True, TensorProto.FLOAT16, dict(pads=[1, 1, 1, 1]),
     "conv:n=1,c=2,o=2,g=1,in=5x5,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=1,dt=f16,data=ncx,wei=oix"),
    ("bf16", [1, 2, 4, 4], [2, 2, 2, 2], False, TensorProto.BFLOAT16, dict(strides=[2, 2]),
     "conv:n=1,c=2,o=2,g=1,in=4x4,k=2x2,s=2x2,d=1x1,pb=0x0,pe=0x0,bias=0,dt=bf16,data=ncx,wei=oix"),
]
for name, x, w, bias, elem, attrs, _ in table:
    convs.conv(name, x, w, bias, elem, **attrs)
convs_path = os.path.join(tmp, "convs.onnx")
convs.save(convs_path)

check_model_cases(convs_path, [
    (name, [f"n={x[0]}", f"c={x[1]}", f"o={w[0]}", "in=" + "x".join(map(str, x[2:])), "k=" + "x".join(map(str, w[2:]))] +
     attribute_words(attrs), by_hand, lambda d, bias=bias, elem=elem: with_bias_dtype(d, bias, DT[elem]))
    for name, x, w, bias, elem, attrs, by_hand in table], "onnx")
for mode in ("exact", "probe"):  # the other contracts hold too
    out = run(["run", "--backend", plugin, "--suite", convs_path, "--mode", mode, "--quiet", "--threads", "2"], 0)

# ---- inferred.onnx: shapes only ONNX shape inference knows
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
w_b = numpy_helper.from_array(np.ones((6, 4, 3, 3), np.float32), "w_b_value")
nodes = [
    helper.make_node("Conv", ["x", "w_a"], ["a"], name="conv_a", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["a"], ["a_relu"]),
    helper.make_node("MaxPool", ["a_relu"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Constant", [], ["w_b"], value=w_b),  # a weight that is a node's output
    helper.make_node("Conv", ["pooled", "w_b", "b_b"], ["b"], name="conv_b", auto_pad="SAME_UPPER", strides=[2, 2]),
    helper.make_node("Reshape", ["b", "new_shape"], ["reshaped"]),
    helper.make_node("Conv", ["reshaped", "w_c"], ["y"], name="conv_c", auto_pad="VALID"),
]
inits = [numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w_a"),
         numpy_helper.from_array(np.ones((6,), np.float32), "b_b"),
         numpy_helper.from_array(np.array([1, 3, 4, 2], np.int64), "new_shape"),
         numpy_helper.from_array(np.ones((2, 3, 2, 1), np.float32), "w_c")]
inferred_path = os.path.join(tmp, "inferred.onnx")
onnx.save(helper.make_model(helper.make_graph(nodes, "g", [x], [y], initializer=inits),
                            opset_imports=[helper.make_opsetid("", 13)]), inferred_path)
expected = {
    "inferred.onnx/conv_a": "conv:n=1,c=3,o=4,g=1,in=8x8,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=f32,data=ncx,wei=oix",
    # after MaxPool: [1, 4, 4, 4]; SAME_UPPER s=2: out 2, t = 2+3-4 = 1 -> 0 first, 1 last
    "inferred.onnx/conv_b": "conv:n=1,c=4,o=6,g=1,in=4x4,k=3x3,s=2x2,d=1x1,pb=0x0,pe=1x1,bias=1,dt=f32,data=ncx,wei=oix",
    # conv_b gives [1, 6, 2, 2], reshaped to [1, 3, 4, 2]
    "inferred.onnx/conv_c": "conv:n=1,c=3,o=2,g=1,in=4x2,k=2x1,s=1x1,d=1x1,pb=0x0,pe=0x0,bias=0,dt=f32,data=ncx,wei=oix",
}
cases, _ = run_cases(inferred_path)
got = {c["shape_name"]: c["descriptor"] for c in cases}
check(got == expected, f"inferred.onnx: {json.dumps(got, indent=1)}\nexpected {json.dumps(expected, indent=1)}")
check(all(c["status"] == "passed" for c in cases), f"inferred.onnx: {[c['status'] for c in cases]}")

# ---- nested.onnx: Conv nodes in an If node's branches (reading a tensor of the main graph) are cases;
# a Conv inside a model-local function is skipped (its shapes depend on each call)
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 6, 6])
cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
branches = {}
for branch in ("then", "else"):
    out = helper.make_tensor_value_info(f"{branch}_y", TensorProto.FLOAT, None)
    conv = helper.make_node("Conv", ["x_relu", "w"], [f"{branch}_y"], name=f"conv_{branch}", pads=[1, 1, 1, 1])
    branches[f"{branch}_branch"] = helper.make_graph([conv], branch, [], [out])
function = helper.make_function("local", "block", ["a", "b"], ["c"], [helper.make_node("Conv", ["a", "b"], ["c"])],
                                [helper.make_opsetid("", 13)])
nodes = [helper.make_node("Relu", ["x"], ["x_relu"]),
         helper.make_node("If", ["cond"], ["y"], name="if_0", **branches),
         helper.make_node("block", ["x", "w"], ["z"], domain="local", name="call_block")]
graph = helper.make_graph(nodes, "g", [x, cond], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                                                  helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
                          initializer=[numpy_helper.from_array(np.ones((3, 2, 3, 3), np.float32), "w")])
nested_path = os.path.join(tmp, "nested.onnx")
onnx.save(helper.make_model(graph, functions=[function], opset_imports=[helper.make_opsetid("", 13),
                                                                        helper.make_opsetid("local", 1)]), nested_path)
listing = run(["list", "--suite", nested_path], 0)
nested_case = "conv:n=1,c=2,o=3,g=1,in=6x6,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=f32,data=ncx,wei=oix"
for branch in ("then", "else"):
    check(f"{nested_case}  # nested.onnx/if_0.{branch}_branch/conv_{branch}" in listing.stdout,
          f"nested.onnx: no case for conv_{branch}:\n{listing.stdout}")
check("skipped 1 input" in listing.stdout and "inside the model-local function local.block" in listing.stdout,
      f"nested.onnx: the function's Conv is not reported as skipped:\n{listing.stdout}")

# ---- shuffle.onnx: the second half of the channels, x[:, (c + 1) / 2 : (c + 1) / 2 * 2] with c from Shape (ONNX's
# shape inference leaves it unknown: the converter's shape evaluation folds the chain); and a Reshape to
# [1, count(NonZero(mask)), -1, 5], whose shape is not known before running the model
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 5, 5])
mask = helper.make_tensor_value_info("mask", TensorProto.BOOL, [3])
ints = {name: numpy_helper.from_array(np.array(v, np.int64), name)
        for name, v in (("i1", [1]), ("one", [1]), ("two", [2]), ("shape_head", [1]), ("shape_tail", [-1, 5]))}
nodes = [
    helper.make_node("Shape", ["x"], ["s"]),
    helper.make_node("Gather", ["s", "i1"], ["c"]),
    helper.make_node("Add", ["c", "one"], ["c_plus"]),
    helper.make_node("Div", ["c_plus", "two"], ["mid"]),
    helper.make_node("Mul", ["mid", "two"], ["end"]),
    helper.make_node("Slice", ["x", "mid", "end", "i1"], ["half"]),
    helper.make_node("Conv", ["half", "w_half"], ["y_half"], name="conv_half", pads=[1, 1, 1, 1]),
    helper.make_node("NonZero", ["mask"], ["nz"], name="nz"),
    helper.make_node("Shape", ["nz"], ["nz_shape"]),
    helper.make_node("Gather", ["nz_shape", "i1"], ["count"]),
    helper.make_node("Concat", ["shape_head", "count", "shape_tail"], ["dd_shape"], axis=0),
    helper.make_node("Reshape", ["x", "dd_shape"], ["dd"]),
    helper.make_node("Conv", ["dd", "w_dd"], ["y_dd"], name="conv_data_dependent"),
]
inits = list(ints.values()) + [numpy_helper.from_array(np.ones((3, 2, 3, 3), np.float32), "w_half"),
                               numpy_helper.from_array(np.ones((2, 4, 1, 1), np.float32), "w_dd")]
shuffle_path = os.path.join(tmp, "shuffle.onnx")
onnx.save(helper.make_model(helper.make_graph(nodes, "g", [x, mask],
                                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)
                                               for y in ("y_half", "y_dd")], initializer=inits),
                            opset_imports=[helper.make_opsetid("", 13)]), shuffle_path)
cases, p = run_cases(shuffle_path)
check([(c["shape_name"], c["descriptor"], c["status"]) for c in cases] ==
      [("shuffle.onnx/conv_half",
        "conv:n=1,c=2,o=3,g=1,in=5x5,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=f32,data=ncx,wei=oix", "passed")],
      f"shuffle.onnx: {[(c['shape_name'], c['descriptor'], c['status']) for c in cases]}")
DATA_DEPENDENT = ("X has unknown dimensions [1, ?, ?, 5]: ONNX shape inference of NonZero node 'nz' leaves "
                  "dimensions of 'nz' unknown")
check(DATA_DEPENDENT in p.stdout + p.stderr, f"shuffle.onnx: run does not report the skip:\n{p.stdout}\n{p.stderr}")
listing = run(["list", "--suite", shuffle_path], 0)
check("skipped 1 input" in listing.stdout and DATA_DEPENDENT in listing.stdout,
      f"shuffle.onnx: the data-dependent Conv is not skipped with its reason:\n{listing.stdout}")

# ---- transposed.onnx: ConvTranspose nodes, W [C, M/group, k...], read by the ONNX transposed dialect
transposed = Model()
# (name, x, w, group, bias, elem, attrs, expected descriptor written by hand from the ONNX spec)
ttable = [
    # out = 2 * (4 - 1) + 1 + 3 - 1 - 1 = 8
    ("pads_output_padding", [1, 2, 4, 4], [2, 3, 3, 3], 1, True, TensorProto.FLOAT,
     dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]),
     "deconv:n=1,c=2,o=3,g=1,in=4x4,k=3x3,s=2x2,d=1x1,pb=1x1,pe=1x1,op=1x1,bias=1,dt=f32,data=ncx,wei=oix"),
    # output_shape 8x7: total_padding = 2*3 + 3 - 8 = 1 -> NOTSET: 1 first; 2*3 + 3 - 7 = 2 -> 1/1
    ("output_shape", [1, 2, 4, 4], [2, 3, 3, 3], 1, False, TensorProto.FLOAT,
     dict(strides=[2, 2], output_shape=[8, 7]),
     "deconv:n=1,c=2,o=3,g=1,in=4x4,k=3x3,s=2x2,d=1x1,pb=1x1,pe=0x1,op=0x0,bias=0,dt=f32,data=ncx,wei=oix"),
    # SAME_UPPER: out = in * s = 8; total = 2*3 + 4 - 8 = 2 -> 1/1 (k 4)
    ("same_upper_grouped", [2, 4, 4, 4], [4, 1, 4, 4], 2, True, TensorProto.FLOAT,
     dict(auto_pad="SAME_UPPER", strides=[2, 2], group=2),
     "deconv:n=2,c=4,o=2,g=2,in=4x4,k=4x4,s=2x2,d=1x1,pb=1x1,pe=1x1,op=0x0,bias=1,dt=f32,data=ncx,wei=oix"),
    # SAME_LOWER, k 3, s 2: total = 2*4 + 3 - 10 = 1 -> the extra 1 first
    ("same_lower_1d", [1, 3, 5], [3, 2, 3], 1, False, TensorProto.FLOAT,
     dict(auto_pad="SAME_LOWER", strides=[2]),
     "deconv:n=1,c=3,o=2,g=1,in=5,k=3,s=2,d=1,pb=1,pe=0,op=0,bias=0,dt=f32,data=ncx,wei=oix"),
    # depthwise with dilation and output_padding below the dilation at stride 1
    ("depthwise_dilated", [1, 3, 5, 5], [3, 1, 3, 3], 3, False, TensorProto.FLOAT,
     dict(group=3, dilations=[2, 2], output_padding=[1, 0]),
     "deconv:n=1,c=3,o=3,g=3,in=5x5,k=3x3,s=1x1,d=2x2,pb=0x0,pe=0x0,op=1x0,bias=0,dt=f32,data=ncx,wei=oix"),
    ("valid_3d", [1, 2, 3, 2, 3], [2, 2, 2, 2, 2], 1, True, TensorProto.FLOAT,
     dict(auto_pad="VALID", strides=[2, 1, 2]),
     "deconv:n=1,c=2,o=2,g=1,in=3x2x3,k=2x2x2,s=2x1x2,d=1x1x1,pb=0x0x0,pe=0x0x0,op=0x0x0,bias=1,dt=f32,data=ncx,wei=oix"),
    ("f16", [1, 2, 3, 3], [2, 2, 2, 2], 1, True, TensorProto.FLOAT16, dict(strides=[2, 2]),
     "deconv:n=1,c=2,o=2,g=1,in=3x3,k=2x2,s=2x2,d=1x1,pb=0x0,pe=0x0,op=0x0,bias=1,dt=f16,data=ncx,wei=oix"),
]
for name, x, w, group, bias, elem, attrs, _ in ttable:
    transposed.conv(name, x, w, bias, elem, op="ConvTranspose", b_size=w[1] * group, **attrs)
transposed_path = os.path.join(tmp, "transposed.onnx")
transposed.save(transposed_path)
# the transposed dialect's words: c = W[0], o = W[1] * group, B's size
check_model_cases(transposed_path, [
    (name, [f"n={x[0]}", f"c={w[0]}", f"o={w[1] * group}", "in=" + "x".join(map(str, x[2:])),
            "k=" + "x".join(map(str, w[2:]))] + ([f"bias={w[1] * group}"] if bias else []) + attribute_words(attrs),
     by_hand, lambda d, elem=elem: d.replace("dt=f32", f"dt={DT[elem]}"))
    for name, x, w, group, bias, elem, attrs, by_hand in ttable], "onnx_transpose")

# ---- skips.onnx: nodes convcheck cannot run are skipped with their reasons, never approximated
skips = Model()
skips.conv("plain", [1, 2, 5, 5], [2, 2, 3, 3])
skips.conv("transposed", [1, 2, 3, 3], [2, 2, 3, 3], op="ConvTranspose", strides=[2, 2], output_padding=[2, 0])
skips.conv("double", [1, 2, 5, 5], [2, 2, 3, 3], elem=TensorProto.DOUBLE)
skips.conv("symbolic_batch", ["N", 2, 5, 5], [2, 2, 3, 3])
skips_path = os.path.join(tmp, "skips.onnx")
skips.save(skips_path)
listing = run(["list", "--suite", skips_path], 0)
check(listing.stdout.count("skips.onnx/") == 1 and "skips.onnx/plain" in listing.stdout,
      f"skips.onnx: list shows only the plain Conv:\n{listing.stdout}")
REFUSED = ("ONNX ConvTranspose refuses it: output_padding = 2x0: Each padding value in \"output_padding\" must be less "
           "than the corresponding stride/dilation dimension (axis 0: output_padding 2, stride 2, dilation 1)")
for reason in ("skipped 3 inputs", REFUSED,
               "X has the element type DOUBLE: convcheck runs FLOAT, FLOAT16 and BFLOAT16",
               "X has symbolic or unknown dimensions after ONNX shape inference",
               "symbolic_batch_x: FLOAT [N, 2, 5, 5]"):
    check(reason in listing.stdout, f"skips.onnx: list does not say '{reason}':\n{listing.stdout}")
cases, p = run_cases(skips_path)
check([c["shape_name"] for c in cases] == ["skips.onnx/plain"], f"skips.onnx ran {[c['shape_name'] for c in cases]}")
check(REFUSED in p.stdout + p.stderr,
      f"skips.onnx: run does not report skips:\n{p.stdout}\n{p.stderr}")
with open(os.path.join(tmp, "skips.onnx.jsonl")) as f:
    records = [json.loads(line) for line in f if line.strip()]
skipped = {r["source"]: r for r in records if r["record"] == "skipped"}
check(len(skipped) == 3, f"skips.onnx: {len(skipped)} skipped records, expected 3")
record = skipped.get("skips.onnx: graph main, node #1 'transposed'", {})
check(record.get("reason") == REFUSED and record.get("suite") == "skips" and
      record.get("input", "").startswith("%transposed_y = ConvTranspose[output_padding = [2, 0], strides = [2, 2]]"
                                         "(%transposed_x, %transposed_w)"),
      f"skips.onnx: the ConvTranspose's skipped record is {record}")
check(records[-1].get("skipped_inputs") == 3, f"skips.onnx: the summary says {records[-1]}")
strict = run(["run", "--backend", plugin, "--suite", skips_path, "--strict-benchdnn", "--quiet"], 2)
check("cannot be run exactly" in strict.stderr, f"skips.onnx --strict-benchdnn says\n{strict.stderr}")

# ---- quantized.onnx: QLinearConv and ConvInteger nodes are qconv: cases with the model's scales and zero points
def scalar(name, value, elem):
    return numpy_helper.from_array(np.array(value, dtype={TensorProto.FLOAT: np.float32, TensorProto.UINT8: np.uint8,
                                                          TensorProto.INT8: np.int8, TensorProto.INT32: np.int32}[elem]), name)


quantized = Model()
def qlinear(name, x_scale, w_scale, y_scale, bias=False, **attrs):
    ins = [f"{name}_x", f"{name}_xs", f"{name}_xz", f"{name}_w", f"{name}_ws", f"{name}_wz", f"{name}_ys", f"{name}_yz"]
    quantized.inputs.append(helper.make_tensor_value_info(ins[0], TensorProto.UINT8, [1, 4, 6, 6]))
    quantized.inits += [scalar(ins[1], x_scale, TensorProto.FLOAT), scalar(ins[2], 3, TensorProto.UINT8),
                        numpy_helper.from_array(np.ones([8, 4, 3, 3], np.int8), ins[3]),
                        scalar(ins[4], w_scale, TensorProto.FLOAT), scalar(ins[5], 0, TensorProto.INT8),
                        scalar(ins[6], y_scale, TensorProto.FLOAT), scalar(ins[7], 128, TensorProto.UINT8)]
    if bias:
        quantized.inits.append(numpy_helper.from_array(np.zeros([8], np.int32), f"{name}_b"))
        ins.append(f"{name}_b")
    quantized.nodes.append(helper.make_node("QLinearConv", ins, [f"{name}_y"], name=name, **attrs))
    quantized.outputs.append(helper.make_tensor_value_info(f"{name}_y", TensorProto.UINT8, None))


qlinear("dyadic", 0.5, 0.125, 64.0, bias=True, pads=[1, 1, 1, 1])
qlinear("arbitrary", 0.1, 0.03, 0.7, strides=[2, 2])
qlinear("per_channel", 0.5, [0.125] * 4 + [0.25] * 4, 64.0)
quantized.inputs.append(helper.make_tensor_value_info("ci_x", TensorProto.UINT8, [1, 3, 5, 5]))
quantized.inits += [numpy_helper.from_array(np.ones([2, 3, 3, 3], np.uint8), "ci_w"), scalar("ci_xz", 17, TensorProto.UINT8),
                    scalar("ci_wz", 120, TensorProto.UINT8)]
quantized.nodes.append(helper.make_node("ConvInteger", ["ci_x", "ci_w", "ci_xz", "ci_wz"], ["ci_y"], name="integer"))
quantized.outputs.append(helper.make_tensor_value_info("ci_y", TensorProto.INT32, None))
quantized_path = os.path.join(tmp, "quantized.onnx")
quantized.save(quantized_path)
listing = run(["list", "--suite", quantized_path], 0)
check("skipped" not in listing.stdout, f"quantized.onnx: nothing is skipped:\n{listing.stdout}")
cases, _ = run_cases(quantized_path)
got = {(c["shape_name"], c["mode"]): c for c in cases}
want = {("quantized.onnx/dyadic", "exact"): "qconv:n=1,c=4,o=8,g=1,in=6x6,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=1,data=ncx,"
                                            "wei=oix,dt=u8:s8:u8,ssc=0.5,szp=3,wsc=0.125,wzp=0,dsc=64,dzp=128",
        ("quantized.onnx/dyadic", "bound"): None,
        ("quantized.onnx/arbitrary", "bound"): "qconv:n=1,c=4,o=8,g=1,in=6x6,k=3x3,s=2x2,d=1x1,pb=0x0,pe=0x0,bias=0,"
                                               "data=ncx,wei=oix,dt=u8:s8:u8,ssc=0.1,szp=3,wsc=0.03,wzp=0,dsc=0.7,dzp=128",
        ("quantized.onnx/integer", "exact"): "qconv:n=1,c=3,o=2,g=1,in=5x5,k=3x3,s=1x1,d=1x1,pb=0x0,pe=0x0,bias=0,"
                                             "data=ncx,wei=oix,dt=u8:u8:s32,ssc=1,szp=17,wsc=1,wzp=120,dsc=1,dzp=0",
        ("quantized.onnx/integer", "bound"): None,
        ("quantized.onnx/per_channel", "exact"): "qconv:n=1,c=4,o=8,g=1,in=6x6,k=3x3,s=1x1,d=1x1,pb=0x0,pe=0x0,bias=0,"
                                                 "data=ncx,wei=oix,dt=u8:s8:u8,ssc=0.5,szp=3,"
                                                 "wsc=0.125:0.125:0.125:0.125:0.25:0.25:0.25:0.25,wzp=0,dsc=64,dzp=128",
        ("quantized.onnx/per_channel", "bound"): None}
check(set(got) == set(want), f"quantized.onnx: cases {sorted(got)}, expected {sorted(want)}")
for key, descriptor in want.items():
    c = got.get(key)
    if c is None:
        continue
    check(descriptor is None or c["descriptor"] == descriptor, f"{key}: descriptor {c['descriptor']}, expected {descriptor}")
    check(c["status"] == "passed", f"{key}: {c['status']} {c['reason']} ({c['reproducer']})")
    check(c["features"]["dialect"] == "onnx", f"{key}: dialect {c['features']['dialect']}")

# ---- bad input: exit 2 and a message that says what is wrong
for name, content in (("garbage.onnx", b"this is not an ONNX model\n"), ("empty.onnx", b""),
                      ("random.onnx", bytes(range(256)) * 3)):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(content)
    for command in (["list", "--suite", path], ["run", "--backend", plugin, "--suite", path, "--quiet"]):
        p = run(command, 2)
        check(f"{name}: not an ONNX model" in p.stderr, f"{name}: {' '.join(command)} says\n{p.stderr}")
p = subprocess.run(["/usr/bin/python3", "-S", converter, convs_path], capture_output=True, text=True)
check(p.returncode == 2 and "needs Debian's python3-onnx" in p.stderr,
      f"python without python3-onnx: exit {p.returncode}\n{p.stderr}")

if failures:
    sys.exit("\n".join(["FAILED:"] + failures))
print(f"ONNX model suites: all checks passed ({tmp})")
