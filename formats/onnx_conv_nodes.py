#!/usr/bin/python3
"""The convolution nodes of an ONNX model, with the shapes the model gives their tensors, as JSON.

    onnx_conv_nodes.py <model.onnx>      (JSON on stdout; exit 2 with one line on stderr on bad input)

`convcheck list/run --suite model.onnx` runs this script (conformance/runner/suite_onnx.cpp) and
turns each node into a case, or a skipped input with its reason. The script only reports what the
model says; every decision about convolution (the ONNX dialect's reading of the attributes, what
convcheck can run, what is skipped and why) is made on the C++ side, so that the dialect is the one
in reference/src/dialects/onnx.cpp. It is read by Debian's python3-onnx (onnx.load, then
onnx.shape_inference.infer_shapes, so a tensor whose shape is not declared gets the shape ONNX's own
shape inference gives it), and where that leaves a shape unknown, by the shape-only evaluation of the
graph in onnx_shapes.py (the values computed from shapes and constants folded: Shape, Gather, Slice,
Split, Concat, Reshape, ...).

Reported: every node (in the main graph and, recursively, in the subgraphs of If/Loop/Scan... nodes)
whose op_type is Conv, ConvTranspose, ConvInteger or QLinearConv, or contains "Conv" in another
domain; nodes of model-local functions are reported with the function's name (their shapes depend
on the call site). For each: its graph, index, name, op_type, domain, inputs and outputs, its
attributes with their ONNX types, the node as onnx.helper.printable_node writes it, and for every
input and output: the element type name (FLOAT, FLOAT16, ...) and the shape, each dimension an
integer, a symbolic name the model declares (dim_param; those ONNX's inference makes up, "unk__0",
are unknown) or null (unknown); a null shape when not even the rank is known; where the shape or a
dimension is unknown, "unknown_because" says why (the shape evaluation's reason: data computed at
run time, an operator without a shape rule, ...). Tensors are taken from the graph's inputs,
value_info, outputs and initializers and from the enclosing graphs'; initializer data is read only
for tensors of at most 1,024 elements (the shape evaluation's constants), external data never. An
initializer of at most 4,096 numbers also carries its "values" (flattened; QLinearConv's and
ConvInteger's scales and zero points), and every initializer "initializer": true.

The neighbourhood of a Conv, ConvTranspose, ConvInteger or QLinearConv node in its graph (what an ONNX QDQ model's
reading needs: DequantizeLinear -> Conv -> [Relu | Clip ->] QuantizeLinear): "producers" (input name -> the node that
writes it, reported like a convolution node), "consumers" (output name -> the nodes that read it, each with its own
"consumers" one level further, so two levels in all; a node of a subgraph that reads it appears as {"op_type":
"(subgraph)", "name": the node holding the subgraph}) and "graph_outputs" (its outputs that are outputs of the graph),
on the node and on each consumer.

Output: {"format": "convcheck-onnx-conv-nodes", "format_version": 1, "model": ..., "onnx_version": ...,
         "ir_version": ..., "opsets": {"": 13, ...}, "nodes": [...]}
"""

import json
import os
import sys
import warnings

CONV_OPS = ("Conv", "ConvTranspose", "ConvInteger", "QLinearConv")
# An initializer of at most this many numbers is reported with its values (QLinearConv's and ConvInteger's scales
# and zero points: scalars, or one per output channel).
MAX_VALUES = 4096


def numeric_count(init):
    """The element count of a numeric initializer held in the model (not external data), else None."""
    if init.data_location == onnx.TensorProto.EXTERNAL or init.data_type in (onnx.TensorProto.STRING,
                                                                              onnx.TensorProto.UNDEFINED):
        return None
    count = 1
    for d in init.dims:
        count *= d
    return count


def fail(message):
    print(f"onnx_conv_nodes.py: {message}", file=sys.stderr)
    sys.exit(2)


try:
    import onnx
    from onnx import helper, numpy_helper, shape_inference
    from google.protobuf.message import DecodeError
    import onnx_shapes  # next to this script
except ImportError as e:  # e.g. /usr/bin/python3 without python3-onnx
    fail(f"cannot import onnx ({e}): reading an ONNX model needs Debian's python3-onnx "
         f"(apt-get install python3-onnx)")


def elem_type_name(t):
    return onnx.TensorProto.DataType.Name(t) if t in onnx.TensorProto.DataType.values() else f"#{t}"


def shape_of(tensor_shape):
    dims = []
    for d in tensor_shape.dim:
        if d.HasField("dim_value"):
            dims.append(d.dim_value)
        elif d.HasField("dim_param"):
            dims.append(d.dim_param)
        else:
            dims.append(None)
    return dims


def value_info_facts(vi):
    t = vi.type
    if not t.HasField("tensor_type"):
        return {"elem_type": None, "shape": None, "kind": t.WhichOneof("value") or "unknown"}
    tt = t.tensor_type
    return {"elem_type": elem_type_name(tt.elem_type) if tt.elem_type else None,
            "shape": shape_of(tt.shape) if tt.HasField("shape") else None}


def graph_tensors(graph, outer, evaluated):
    """name -> facts, for every tensor this graph (and the graphs around it) declares, with the shapes the shape
    evaluation (`evaluated`: name -> onnx_shapes.Tensor) finds where ONNX's shape inference gives none."""
    tensors = dict(outer)
    for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
        tensors[vi.name] = value_info_facts(vi)
    for name, t in evaluated.items():
        if name not in tensors or tensors[name].get("kind"):
            continue
        facts = tensors[name]
        facts["shape"] = t.shape  # what ONNX's inference gives, completed (or, where they disagree, unknown)
        if t.why and (t.shape is None or None in t.shape):
            facts["unknown_because"] = t.why
    for name, t in evaluated.items():  # a tensor ONNX's inference gives no type at all
        if name not in tensors and t.shape is not None:
            tensors[name] = {"elem_type": elem_type_name(t.elem_type) if t.elem_type else None, "shape": t.shape}
        elif name not in tensors:
            tensors[name] = {"elem_type": elem_type_name(t.elem_type) if t.elem_type else None, "shape": None,
                             "unknown_because": t.why or "no shape is known"}
    for init in graph.initializer:
        tensors[init.name] = {"elem_type": elem_type_name(init.data_type), "shape": list(init.dims), "initializer": True}
        if numeric_count(init) is not None and numeric_count(init) <= MAX_VALUES:  # scales, zero points, ...
            tensors[init.name]["values"] = numpy_helper.to_array(init).flatten().tolist()
    for init in graph.sparse_initializer:
        tensors[init.values.name] = {"elem_type": elem_type_name(init.values.data_type), "shape": list(init.dims)}
    return tensors


ATTRIBUTE_TYPES = {onnx.AttributeProto.INT: "INT", onnx.AttributeProto.INTS: "INTS",
                   onnx.AttributeProto.STRING: "STRING", onnx.AttributeProto.FLOAT: "FLOAT",
                   onnx.AttributeProto.FLOATS: "FLOATS"}


def attribute_facts(a):
    kind = ATTRIBUTE_TYPES.get(a.type, onnx.AttributeProto.AttributeType.Name(a.type))
    if a.ref_attr_name:
        return {"type": kind, "ref_attr_name": a.ref_attr_name}
    if kind in ("INT", "INTS", "FLOAT", "FLOATS"):
        return {"type": kind, "value": helper.get_attribute_value(a)}
    if kind == "STRING":
        return {"type": kind, "value": a.s.decode("utf-8", errors="replace")}
    return {"type": kind}  # a graph, tensor, ...: no Conv attribute has such a type


def node_facts(node, graph_path, index, tensors, function=None):
    facts = {"graph": graph_path, "index": index, "name": node.name, "op_type": node.op_type,
             "domain": node.domain, "inputs": list(node.input), "outputs": list(node.output),
             "text": helper.printable_node(node),
             "attributes": {a.name: attribute_facts(a) for a in node.attribute},
             "tensors": {name: tensors[name] for name in list(node.input) + list(node.output)
                         if name and name in tensors}}
    if function is not None:
        facts["function"] = function
    return facts


def is_conv(node):
    return (node.domain in ("", "ai.onnx") and node.op_type in CONV_OPS) or \
           (node.domain not in ("", "ai.onnx") and "Conv" in node.op_type)


def subgraph_inputs(node):
    """The names the subgraphs of `node` (If/Loop/Scan bodies, and theirs) read."""
    names = set()
    for a in node.attribute:
        graphs = [a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs) \
            if a.type == onnx.AttributeProto.GRAPHS else []
        for g in graphs:
            for n in g.node:
                names.update(n.input)
                names.update(subgraph_inputs(n))
    return names


def with_neighbours(node, graph, graph_path, index, tensors):
    """node_facts of a convolution node with its producers, consumers (two levels) and graph outputs."""
    outputs = {o.name for o in graph.output}
    nodes = list(graph.node)
    writer = {name: i for i, n in enumerate(nodes) for name in n.output if name}

    def around(i, depth):
        n = nodes[i]
        facts = node_facts(n, graph_path, i, tensors)
        facts["graph_outputs"] = [o for o in n.output if o in outputs]
        if depth == 0:
            return facts
        facts["consumers"] = {}
        for o in n.output:
            if not o:
                continue
            facts["consumers"][o] = [around(j, depth - 1) for j, r in enumerate(nodes) if o in r.input] + \
                [{"op_type": "(subgraph)", "name": r.name or f"#{j}"} for j, r in enumerate(nodes)
                 if o in subgraph_inputs(r)]
        return facts

    facts = around(index, 2)
    facts["producers"] = {name: node_facts(nodes[writer[name]], graph_path, writer[name], tensors)
                          for name in node.input if name in writer}
    return facts


def walk(graph, graph_path, outer, evaluated, out):
    tensors = graph_tensors(graph, outer, evaluated.get(graph_path, {}))
    for index, node in enumerate(graph.node):
        if is_conv(node):
            out.append(with_neighbours(node, graph, graph_path, index, tensors))
        for a in node.attribute:  # If/Loop/Scan bodies see the tensors of the graphs around them
            label = node.name or f"#{index}"
            if a.type == onnx.AttributeProto.GRAPH:
                walk(a.g, f"{graph_path}/{label}.{a.name}", tensors, evaluated, out)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for i, g in enumerate(a.graphs):
                    walk(g, f"{graph_path}/{label}.{a.name}[{i}]", tensors, evaluated, out)


def main():
    if len(sys.argv) != 2:
        fail("usage: onnx_conv_nodes.py <model.onnx>")
    path = sys.argv[1]
    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    try:
        with warnings.catch_warnings():  # protobuf warns before it raises on garbage: one message is enough
            warnings.simplefilter("ignore")
            model = onnx.load(path, load_external_data=False)
    except (DecodeError, RuntimeWarning, ValueError) as e:
        fail(f"{path}: not an ONNX model (protobuf ModelProto does not parse: {e})")
    except OSError as e:
        fail(f"{path}: cannot be read: {e}")
    # protobuf parses some garbage (an empty file, stray bytes that happen to be valid fields) as a
    # message: a model has an IR version and a graph with a name or nodes
    if model.ir_version < 1 or not model.HasField("graph") or not (model.graph.node or model.graph.name):
        fail(f"{path}: not an ONNX model (no ir_version or no graph; parsed as ir_version={model.ir_version}, "
             f"{len(model.graph.node)} nodes)")
    try:
        inferred = shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=True)
    except Exception as e:  # onnx raises its own InferenceError/ValidationError types
        fail(f"{path}: ONNX shape inference fails: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
    evaluated = onnx_shapes.evaluate(model, inferred)
    nodes = []
    walk(inferred.graph, "main", {}, evaluated, nodes)
    for function in inferred.functions:
        for index, node in enumerate(function.node):
            if is_conv(node):
                nodes.append(node_facts(node, f"function {function.domain}.{function.name}", index, {},
                                        function=f"{function.domain}.{function.name}"))
    result = {"format": "convcheck-onnx-conv-nodes", "format_version": 1, "model": path,
              "onnx_version": onnx.__version__, "ir_version": model.ir_version,
              "opsets": {o.domain: o.version for o in model.opset_import}, "nodes": nodes}
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
