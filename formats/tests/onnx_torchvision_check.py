"""Every Conv node of a torchvision model exported by torch.onnx.export is read with the shapes PyTorch gives its
convolutions (ctest formats_onnx_torchvision).

usage: onnx_torchvision_check.py <onnx_conv_nodes.py>

shufflenet_v2_x0_5 (random weights: weights=None, nothing is downloaded) at 1x3x64x64, opset 13: its channel
shuffle (Reshape, Transpose, Reshape) and the Slice halves torch.onnx.export writes for chunk() leave 39 of its 56
Conv inputs without a shape after ONNX's shape inference; formats/onnx_shapes.py must find all of them. The oracle
is PyTorch itself: forward hooks record each convolution's input and weight shapes, and the (X, W) shapes of the
ONNX Conv nodes must be the same multiset. Exported a second time with a symbolic batch (dynamic_axes, "N"), every
Conv input must be [N, ...] with PyTorch's other dimensions (the -1 of the shuffle's Reshape is found with N on both
sides). Exit 77 (skipped) where python3-torchvision does not import.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile
import warnings

converter = sys.argv[1]
try:
    import torch
    import torchvision
except ImportError as e:
    print(f"skipped: python3-torchvision does not import ({e})")
    sys.exit(77)

torch.manual_seed(0)
model = torchvision.models.shufflenet_v2_x0_5(weights=None).eval()
x = torch.randn(1, 3, 64, 64)
seen = collections.Counter()
convs = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
hooks = [m.register_forward_hook(lambda m, i, o: seen.update([(tuple(i[0].shape), tuple(m.weight.shape))]))
         for m in convs]
with torch.no_grad():
    model(x)
for h in hooks:
    h.remove()

_tmp = tempfile.TemporaryDirectory(prefix="convcheck-onnx-torchvision-")  # removed at exit
tmp = _tmp.name
failures = []


def check_export(name, dynamic_batch):
    """Export the model (with a symbolic batch "N" or not) and compare its Conv nodes' (X, W) shapes with PyTorch's."""
    path = os.path.join(tmp, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, x, path, opset_version=13, input_names=["x"],
                          dynamic_axes={"x": {0: "N"}} if dynamic_batch else None)
    p = subprocess.run(["/usr/bin/python3", converter, path], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"{converter} {path}: exit {p.returncode}\n{p.stderr}")
        return
    nodes = [n for n in json.loads(p.stdout)["nodes"] if n["op_type"] == "Conv"]
    read, unknown = collections.Counter(), []
    for n in nodes:
        x_facts, w_facts = (n["tensors"].get(t, {}) for t in n["inputs"][:2])
        xs, ws = x_facts.get("shape"), w_facts.get("shape")
        if xs is None or None in xs or ws is None:
            unknown.append(f"{n['name']}: X {xs} ({x_facts.get('unknown_because')})")
        else:
            # with a symbolic batch every X is [N, ...]: the rest must be PyTorch's
            read[(tuple(1 if dynamic_batch and i == 0 and d == "N" else d for i, d in enumerate(xs)), tuple(ws))] += 1
    if len(nodes) != len(convs) or len(convs) != 56:
        failures.append(f"{name}: {len(nodes)} Conv nodes, {len(convs)} Conv2d modules (expected 56)")
    if unknown:
        failures.append(f"{name}: {len(unknown)} of {len(nodes)} Conv inputs have no known shape:\n  " +
                        "\n  ".join(unknown))
    if read != seen:
        failures.append(f"{name}: the Conv shapes read are not PyTorch's: read only {dict(read - seen)}, "
                        f"PyTorch only {dict(seen - read)}")


check_export("shufflenet_v2_x0_5.onnx", dynamic_batch=False)
check_export("shufflenet_v2_x0_5_batch_n.onnx", dynamic_batch=True)
if failures:
    sys.exit("\n".join(["FAILED:"] + failures))
print("shufflenet_v2_x0_5: all 56 Conv nodes read with PyTorch's shapes, batch 1 and batch N")
