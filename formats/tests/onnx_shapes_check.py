"""The shapes formats/onnx_conv_nodes.py gives Conv inputs that ONNX's shape inference leaves unknown
(formats/onnx_shapes.py), on tiny graphs built here with onnx.helper (ctest formats_onnx_shapes).

usage: onnx_shapes_check.py <onnx_conv_nodes.py>

One model (opset 15), x: FLOAT [1, 8, 6, 6], in which each Conv reads a tensor that only a shape-only evaluation of
the graph knows (ONNX 1.12's shape inference, with data propagation, leaves it unknown):
  - shuffle_split: the channel shuffle (Reshape to a shape from Shape -> Gather -> Div -> Unsqueeze -> Concat,
    Transpose, Reshape with 0 and -1) and an equal Split without the opset-13 `split` input;
  - shuffle_slice: the halves torch.onnx.export writes as Slice, `starts`/`ends` from Shape -> Gather -> Add -> Div;
  - slice_clamp: negative starts, ends past the end and before the start, a negative step, negative axes (the
    expected shape is numpy's slicing of an array of x's shape with the same numbers);
  - split_input: Split with its `split` input computed from x's shape ([2, 6]);
  - concat_resize: a Concat one of whose inputs is a Resize to `sizes` from Shape -> Slice -> Concat;
  - squeeze_unsqueeze: Unsqueeze, Transpose, Squeeze and elementwise broadcasting (Add, Mul, Where) after them;
  - symbolic_batch: a Slice of xs: [N, 8, 6, 6] at channels Shape(xs)[1] / 2: [N, 4, 6, 6], reshaped to
    [Shape(xs)[0], -1, 3, 12] (N cancels in -1): [N, 4, 3, 12] (N stays the model's symbol: such a Conv is skipped
    for it, not for an unknown dimension);
  - expand_range: Expand of a ConstantOfShape to [1, Shape(Range(0, c / 4, 1)), Shape(x, start=-2)], a Gather with
    a negative index (opset 15 for Shape's start);
and Conv inputs that truly cannot be known, each with its reason:
  - data_dependent: a Reshape to a shape taken from NonZero's output (its size depends on the data);
  - custom_op: the output of an operator of another domain (no shape rule);
  - declared_wrong: a declared shape the evaluation disagrees with (neither is taken).
A second model, opset 9, reads Slice, Split, Unsqueeze and Squeeze from their attributes (opset9_split_3/_5).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

converter = sys.argv[1]
failures = []
X = [1, 8, 6, 6]
INT64_MAX = np.iinfo(np.int64).max
OPSET = 15  # Shape's start and end; every other operator here reads as in opset 13

nodes, inits, value_info = [], [], []


def const(name, values, dtype=np.int64):
    inits.append(numpy_helper.from_array(np.array(values, dtype), name))
    return name


def node(op, inputs, outputs, **attrs):
    nodes.append(helper.make_node(op, inputs, outputs if isinstance(outputs, list) else [outputs], **attrs))
    return outputs


def hidden(name, values):
    """A constant ONNX's data propagation does not see through: Div(values, 1) (int64)."""
    return node("Div", [const(name + "_raw", values), const(name + "_one", [1] * len(values))], name)


def conv(name, x, c, o=2, k=1):
    inits.append(numpy_helper.from_array(np.ones((o, c, k, k), np.float32), name + "_w"))
    node("Conv", [x, name + "_w"], name + "_y", name=name)


const("one_dim_", [1])

# ---- shuffle_split: channel shuffle as torchvision's ShuffleNet writes it, then Split into two equal halves
node("Shape", ["x"], "s")
for i, d in enumerate("bchw"):
    node("Gather", ["s", const(f"i{d}", i)], d)  # scalar index: scalar output
    node("Unsqueeze", [d, const(f"ax_{d}", [0])], f"{d}1")
node("Div", ["c1", const("two", [2])], "c_half")
node("Concat", ["b1", const("groups", [2]), "c_half", "h1", "w1"], "shape5", axis=0)
node("Reshape", ["x", "shape5"], "x5")  # [1, 2, 4, 6, 6]
node("Transpose", ["x5"], "x5t", perm=[0, 2, 1, 3, 4])  # [1, 4, 2, 6, 6]
node("Concat", [const("zero_dim", [0]), const("minus_one", [-1]), "h1", "w1"], "shape4", axis=0)
node("Reshape", ["x5t", "shape4"], "shuffled")  # 0 copies x5t's 1, -1 is 48 * 6 * 6 / (1 * 6 * 6): [1, 8, 6, 6]
node("Split", ["shuffled"], ["half_a", "half_b"], axis=1)  # opset 13, no `split`: two equal parts
conv("shuffle_split", "half_b", 4)

# ---- shuffle_slice: x[:, c/2 : c] with c/2 = (c + 1) / 2 * 1 from the shape, as torch.onnx.export writes chunk()
node("Add", ["c1", const("one", [1])], "c_plus")
node("Div", ["c_plus", "two"], "mid")
node("Mul", ["mid", const("also_two", [2])], "end")
node("Slice", ["shuffled", "mid", "end", const("axis1", [1])], "second_half")
conv("shuffle_slice", "second_half", 4)

# ---- slice_clamp: Slice's clamping, negative axes and steps, all from computed inputs
starts, ends, axes, steps = [-4, 5, 1], [INT64_MAX, -100, 100], [-2, -1, 1], [1, -2, 3]
node("Slice", ["x", hidden("starts", starts), hidden("ends", ends), hidden("axes", axes), hidden("steps", steps)],
     "clamped")
conv("slice_clamp", "clamped", 3)  # numpy: [:, 1:100:3, -4:MAX, 5:-100:-2] -> [1, 3, 4, 3]
clamped_shape = list(np.zeros(X)[:, 1:100:3, -4:INT64_MAX, 5:-100:-2].shape)

# ---- split_input: Split with `split` = [c / 4, c - c / 4] computed from the shape
node("Div", ["c1", const("four", [4])], "quarter")
node("Sub", ["c1", "quarter"], "rest")
node("Concat", ["quarter", "rest"], "split_sizes", axis=0)
node("Split", ["shuffled", "split_sizes"], ["part_2", "part_6"], axis=1)
conv("split_input_2", "part_2", 2)
conv("split_input_6", "part_6", 6)

# ---- concat_resize: DeepLabV3's pooling branch: Resize to sizes = Concat(Shape(p)[0:2], [6, 6]), then Concat
node("GlobalAveragePool", ["x"], "pooled")  # [1, 8, 1, 1]
node("Shape", ["pooled"], "ps")
node("Slice", ["ps", const("z0", [0]), const("z2", [2])], "ps_nc")
node("Concat", ["ps_nc", hidden("hw", [6, 6])], "sizes", axis=0)
node("Resize", ["pooled", "", "", "sizes"], "upsampled", mode="linear")
node("Concat", ["x", "upsampled"], "both", axis=1)  # [1, 16, 6, 6]
conv("concat_resize", "both", 16, k=3)

# ---- squeeze_unsqueeze: [1, 4, 6, 6] -> Unsqueeze(-1) -> [1, 4, 6, 6, 1] -> Transpose -> [1, 1, 6, 6, 4]
#      -> Squeeze([1]) -> [1, 6, 6, 4] -> Transpose -> [1, 4, 6, 6]; broadcasting with [4, 1, 1] and [6, 1]
node("Unsqueeze", ["second_half", hidden("ax_last", [-1])], "u")
node("Transpose", ["u"], "ut", perm=[0, 4, 2, 3, 1])
node("Squeeze", ["ut", hidden("ax1", [1])], "sq")
node("Transpose", ["sq"], "back", perm=[0, 3, 1, 2])
node("Add", ["back", const("bias", np.ones((4, 1, 1)), np.float32)], "added")
node("Mul", [const("scale", np.ones((6, 1)), np.float32), "added"], "scaled")  # [6, 1] * [1, 4, 6, 6]
node("Greater", [const("zero", 0, np.float32), "scaled"], "positive")
node("Where", ["positive", const("zeros", np.zeros((1, 1, 1, 6)), np.float32), "scaled"], "selected")
conv("squeeze_unsqueeze", "selected", 4)

# ---- symbolic_batch: xs: [N, 8, 6, 6]; the channel count from Shape(xs) is known though N is not: [N, 4, 6, 6]
node("Shape", ["xs"], "xs_shape")
node("Gather", ["xs_shape", const("idx_c", [1])], "xs_c")
node("Div", ["xs_c", "two"], "xs_mid")
node("Slice", ["xs", "xs_mid", "xs_c", "axis1"], "xs_half")
node("Gather", ["xs_shape", const("idx_n", [0])], "xs_n")  # ["N"]
node("Concat", ["xs_n", "minus_one", const("to_3x12", [3, 12])], "xs_new_shape", axis=0)
node("Reshape", ["xs_half", "xs_new_shape"], "xs_reshaped")  # -1 = 4N * 6 * 6 / (3N * 12): N cancels, 4
conv("symbolic_batch", "xs_reshaped", 4)

# ---- expand_range: Range(0, c / 4, 1) = [0, 1]; Expand of a ConstantOfShape [1, 1, x[-2], 1] to
#      [1, Shape(range), Shape(x, start=-2)] = [1, 2, 6, 6] (Gather's negative index, Shape's start: opset 15)
node("Squeeze", ["quarter", const("ax0", [0])], "quarter_scalar")
node("Range", [const("r0", 0), "quarter_scalar", const("r1", 1)], "range")
node("Shape", ["range"], "range_shape")
node("Shape", ["x"], "hw_shape", start=-2)
node("Concat", ["one_dim_", "range_shape", "hw_shape"], "expand_to", axis=0)
node("Gather", ["s", const("idx_neg2", [-2])], "h_neg")
node("Concat", ["one_dim_", "one_dim_", "h_neg", "one_dim_"], "small_shape", axis=0)
node("ConstantOfShape", ["small_shape"], "small", value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.5]))
node("Expand", ["small", "expand_to"], "expanded")
conv("expand_range", "expanded", 2)

# ---- data_dependent: a Reshape to [1, n, -1, 6], n the count of NonZero(mask): not known before running
node("NonZero", ["mask"], "nz")
node("Shape", ["nz"], "nz_shape")
node("Gather", ["nz_shape", const("idx1", [1])], "count")
node("Concat", ["one_dim_", "count", "minus_one", const("six", [6])], "dd_shape", axis=0)
node("Reshape", ["x", "dd_shape"], "dd", name="reshape_by_data")
conv("data_dependent", "dd", 8)

# ---- custom_op: an operator ONNX has no shape rule for
node("Mystery", ["x"], "mystery", domain="com.example", name="mystery_op")
conv("custom_op", "mystery", 8)

# ---- declared_wrong: the model declares [1, 4, 6, 7] for a tensor the evaluation knows as [1, 4, 6, 6]
node("Slice", ["shuffled", "mid", "end", "axis1"], "wrong")
value_info.append(helper.make_tensor_value_info("wrong", TensorProto.FLOAT, [1, 4, 6, 7]))
conv("declared_wrong", "wrong", 4)

graph = helper.make_graph(nodes, "shapes",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, X),
                           helper.make_tensor_value_info("xs", TensorProto.FLOAT, ["N", 8, 6, 6]),
                           helper.make_tensor_value_info("mask", TensorProto.BOOL, [8])],
                          [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None)
                           for n in nodes if n.op_type == "Conv"],
                          initializer=inits, value_info=value_info)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("com.example", 1)])
_tmp = tempfile.TemporaryDirectory(prefix="convcheck-onnx-shapes-")  # removed at exit
tmp = _tmp.name


def read_conv_inputs(model, name):
    """{Conv node name: the facts of its X} as the converter reads them."""
    path = os.path.join(tmp, name)
    onnx.save(model, path)
    p = subprocess.run(["/usr/bin/python3", converter, path], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAILED: {converter} {path}: exit {p.returncode}\n{p.stderr}")
    return {n["name"]: n["tensors"].get(n["inputs"][0], {}) for n in json.loads(p.stdout)["nodes"]}


read = read_conv_inputs(model, "shapes.onnx")

# ---- opset 9: Slice's starts/ends/axes, Split's split, Unsqueeze's and Squeeze's axes are attributes. x reshaped to a
#      shape computed from Shape(x) (unknown to ONNX's inference), sliced to [1, 8, 2:6, 6], split [3, 5] on axis 1,
#      unsqueezed at 0 and squeezed at 1: [1, 3, 4, 6] and [1, 5, 4, 6]
nodes, inits = [], []
node("Shape", ["x"], "s")
node("Div", ["s", const("ones4", [1, 1, 1, 1])], "same_shape")
node("Reshape", ["x", "same_shape"], "x_again")
node("Slice", ["x_again"], "rows", starts=[2, -100], ends=[6, 1000], axes=[2, 1])  # starts -100 -> 0, ends 1000 -> 8
node("Split", ["rows"], ["part_3", "part_5"], axis=1, split=[3, 5])
node("Unsqueeze", ["part_3"], "part_3u", axes=[0])
node("Squeeze", ["part_3u"], "part_3s", axes=[1])
conv("opset9_split_3", "part_3s", 3)
conv("opset9_split_5", "part_5", 5)
graph = helper.make_graph(nodes, "opset9", [helper.make_tensor_value_info("x", TensorProto.FLOAT, X)],
                          [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None)
                           for n in nodes if n.op_type == "Conv"], initializer=inits)
read.update(read_conv_inputs(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)]), "opset9.onnx"))

known = {"shuffle_split": [1, 4, 6, 6], "shuffle_slice": [1, 4, 6, 6], "slice_clamp": [1, 3, 4, 3],
         "split_input_2": [1, 2, 6, 6], "split_input_6": [1, 6, 6, 6], "concat_resize": [1, 16, 6, 6],
         "squeeze_unsqueeze": [1, 4, 6, 6], "symbolic_batch": ["N", 4, 3, 12], "expand_range": [1, 2, 6, 6],
         "opset9_split_3": [1, 3, 4, 6], "opset9_split_5": [1, 5, 4, 6]}
if clamped_shape != known["slice_clamp"]:
    failures.append(f"the test's own slice_clamp expectation {known['slice_clamp']} is not numpy's {clamped_shape}")
for name, shape in known.items():
    got = read.get(name, {})
    if got.get("shape") != shape or "unknown_because" in got:
        failures.append(f"{name}: X read as {got}, expected the shape {shape}")
unknown = {  # name: (shape, words its reason must hold)
    "data_dependent": ([1, None, None, 6], "NonZero node"),
    "custom_op": (None, "Mystery node 'mystery_op': ONNX has no shape rule for it"),
    "declared_wrong": (None, "give 'wrong' (output of a Slice node) the shape [1, 4, 6, 7], the shape evaluation "
                             "[1, 4, 6, 6]: neither is taken"),
}
for name, (shape, words) in unknown.items():
    got = read.get(name, {})
    if got.get("shape") != shape or words not in got.get("unknown_because", ""):
        failures.append(f"{name}: X read as {got}, expected the shape {shape} and a reason with '{words}'")

if failures:
    sys.exit("\n".join(["FAILED:"] + failures))
print(f"ONNX shape evaluation: all {len(known) + len(unknown)} Conv inputs as expected")
