"""The shapes of an ONNX graph's tensors, by a shape-only evaluation of the graph from its declared input shapes.

ONNX's shape inference (onnx.shape_inference.infer_shapes) leaves a tensor's shape unknown where it would need a
value computed in the graph: the `ends` of a Slice that a Shape -> Gather -> Add -> Div -> Mul chain computes (the
channel shuffle of ShuffleNet as torch.onnx.export writes it), the `sizes` of a Resize from Shape -> Slice -> Concat
(DeepLabV3's pooling branch). This module walks the graph in its (topological) node order and computes, for every
tensor, its shape and, for small tensors, its value: the values a graph computes from shapes and constants (Shape,
Gather, Slice, Split, Concat, Reshape, Transpose, Unsqueeze, Squeeze, the elementwise ops, ...) are folded, so that
the shapes that depend on them are known. A node of another operator gets its output shapes from ONNX's own shape
inference of that one node, given its inputs' shapes and folded values (Conv, MaxPool, Resize, ...).

What it cannot know it says, and why: a tensor whose shape depends on the values of data the model computes at run
time (NonZero, a Reshape to a shape computed from activations, ...), an operator without an ONNX shape rule, a
shape ONNX's shape inference and this evaluation disagree on. Such a tensor keeps an unknown shape, or unknown
dimensions, and a reason; it is never given a guessed shape.

    evaluate(model, inferred_model) -> {graph: {tensor name: Tensor}}     (main graph: the key "main")

Each rule below quotes the ONNX operator specification (https://onnx.ai/onnx/operators/) where it matters.
A dimension is an int, a str (a symbolic dimension the model declares, e.g. "N") or None (unknown); a shape is a
list of dimensions, or None when not even the rank is known.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

# Values are folded only for tensors this small: the shape computations of a graph, never its weights.
VALUE_LIMIT = 1024


class Tensor:
    """What the evaluation knows of one tensor: its shape, element type, value (a numpy array, or None) and, where
    its shape or some dimension is unknown, why."""

    def __init__(self, shape, elem_type=0, value=None, why=None):
        self.shape = shape
        self.elem_type = elem_type
        if value is not None and not isinstance(value, np.ndarray):  # numpy's scalar of a Gather, a symbol "N"
            value = np.array(value, dtype=object if isinstance(value, str) else None)
        self.value = value if value is None or value.size <= VALUE_LIMIT else None
        self.why = why
        self.value_why = None  # why some entries of a value are unknown (None): a Shape of unknown dimensions

    def partial(self):
        """A value some of whose entries are unknown (None) or symbols: the Shape of a tensor not fully known."""
        return self.value is not None and self.value.dtype == object and \
            any(not isinstance(v, (int, np.integer)) for v in self.value.reshape(-1).tolist())


class Unknown(Exception):
    """A node's outputs cannot be known; the message says why."""


def tensor_of_array(array, elem_type):
    array = np.asarray(array)
    return Tensor(list(array.shape), elem_type, array if array.size <= VALUE_LIMIT else None)


def np_dtype(elem_type):
    """The numpy type of an ONNX element type (KeyError for one numpy has not, e.g. BFLOAT16)."""
    return onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type]


def int_dims(values):
    """The entries of a folded value as a list of ints, or None when one is not a known int."""
    out = []
    for v in np.asarray(values).reshape(-1).tolist():
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            return None
        out.append(int(v))
    return out


def dims_text(shape):
    return "(unknown rank)" if shape is None else "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


# ---------------------------------------------------------------------------------------------- the evaluation


class Graph:
    """One graph's evaluation: the tensors known so far (its own and those of the graphs around it)."""

    def __init__(self, graph, opsets, outer, inferred, symbols):
        self.graph = graph
        self.opsets = opsets
        self.opset = opsets.get("", opsets.get("ai.onnx", 1))
        self.known = dict(outer)
        self.inferred = inferred  # name -> (elem_type, shape) as ONNX's shape inference gives it
        self.symbols = symbols  # the symbolic dimensions the model itself declares
        self.producers = {}  # tensor name -> the node that computes it, described

    def need(self, name, node, role):
        """The input `name` of `node` as a Tensor whose shape is known (its rank at least)."""
        t = self.known.get(name)
        if t is None:
            raise Unknown(f"{describe(node)}: its {role} input '{name}' is not a tensor of the graph")
        if t.shape is None:
            raise Unknown(t.why or f"'{name}' has no known shape")
        return t

    def need_value(self, name, node, role):
        """The folded value of input `name`: a shape computation's result, never run-time data."""
        t = self.known.get(name)
        if t is not None and t.value is not None:
            return t.value
        why = (t.why or t.value_why) if t is not None else None
        if not why and name in self.producers:
            why = f"'{name}' is the output of {self.producers[name]}, whose values the shape evaluation does not " \
                  f"compute: data computed at run time, or an operator it only knows the shapes of"
        why = why or f"'{name}' is a graph input (data given at run time) or a tensor of over {VALUE_LIMIT} elements"
        raise Unknown(f"{describe(node)} takes its {role} from '{name}', whose value is not known before running the "
                      f"model ({why})")

    def run(self):
        for node in self.graph.node:
            self.node(node)
        return self.known

    def node(self, node):
        outputs = [o for o in node.output]
        try:
            if node.domain in ("", "ai.onnx") and node.op_type in RULES:
                inputs = [self.known.get(i) if i else None for i in node.input]
                results = RULES[node.op_type](self, node, inputs, attributes(node))
            elif any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
                raise Unknown(f"{describe(node)}: the shapes of a node with subgraphs are ONNX's inference's only")
            else:
                results = self.onnx_node_inference(node)
        except Unknown as e:
            results = [Tensor(None, why=str(e)) for _ in outputs]
        except Exception as e:  # a model this evaluation does not foresee: its outputs are unknown, and it says so
            results = [Tensor(None, why=f"the shape evaluation of {describe(node)} fails ({type(e).__name__}: {e})")
                       for _ in outputs]
        for name, t in zip(outputs, results):
            if (t.shape is None or None in t.shape) and t.why is None:  # an unknown input's reason moves on
                t.why = next((self.known[i].why for i in node.input if i in self.known and self.known[i].why), None)
            if (t.value is None or t.partial()) and t.value_why is None:  # the reason moves with the value
                t.value_why = next((self.known[i].value_why for i in node.input
                                    if i in self.known and self.known[i].value_why), None)
            if name:
                self.known[name] = self.merge(name, t, node)
                self.producers[name] = describe(node)

    def merge(self, name, t, node):
        """The evaluation's tensor, with what ONNX's shape inference (or the model's declaration) knows and it does not;
        two different sizes of one dimension leave the shape unknown (neither is taken for the other)."""
        elem_type, inferred = self.inferred.get(name, (0, None))
        t.elem_type = t.elem_type or elem_type
        if inferred is None:
            return t
        # a symbol ONNX's inference makes up ("unk__3") is an unknown dimension, not one the model names
        inferred = [d if not isinstance(d, str) or d in self.symbols else None for d in inferred]
        if t.shape is None:
            if all(d is not None for d in inferred):
                return Tensor(inferred, t.elem_type, None, None)
            return Tensor(inferred, t.elem_type, None, t.why)
        if len(t.shape) != len(inferred):
            return disagreement(name, node, inferred, t)
        shape = []
        for mine, theirs in zip(t.shape, inferred):
            if isinstance(mine, int) and isinstance(theirs, int) and mine != theirs:
                return disagreement(name, node, inferred, t)
            shape.append(mine if isinstance(mine, int) or theirs is None else theirs)  # a size over a symbol
        t.shape = shape
        if all(d is not None for d in shape):
            t.why = None
        elif t.why is None:
            t.why = f"ONNX shape inference of {describe(node)} leaves dimensions of '{name}' unknown"
        return t

    def onnx_node_inference(self, node):
        """ONNX's shape inference of this one node, its inputs given with the shapes and values known here."""
        outputs = list(node.output)
        # what ONNX's inference of the whole model already knows is not asked again
        if all(not o or (o in self.inferred and self.inferred[o][1] is not None and
                         all(isinstance(d, int) or d in self.symbols for d in self.inferred[o][1])) for o in outputs):
            return [Tensor(None) for _ in outputs]  # merged with the inferred shapes
        inputs, initializers = [], []
        for name in dict.fromkeys(i for i in node.input if i):
            t = self.known.get(name)
            if t is None or t.shape is None:
                why = t.why if t is not None and t.why else f"'{name}' has no known shape"
                raise Unknown(why)
            if numeric(t.value) is not None and t.elem_type in onnx.mapping.TENSOR_TYPE_TO_NP_TYPE:
                initializers.append(numpy_helper.from_array(numeric(t.value).astype(
                    np_dtype(t.elem_type)), name))
            else:
                inputs.append(helper.make_tensor_value_info(name, t.elem_type or onnx.TensorProto.FLOAT,
                                                            [d if d is not None else "" for d in t.shape]))
        graph = helper.make_graph([node], "node", inputs, [], initializer=initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in self.opsets.items()])
        try:
            inferred = shape_inference.infer_shapes(model, check_type=False, strict_mode=True, data_prop=True)
        except Exception as e:  # onnx raises its own InferenceError types
            message = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise Unknown(f"ONNX shape inference of {describe(node)} fails with the inputs' known shapes: {message}")
        found = {vi.name: value_info_shape(vi) for vi in inferred.graph.value_info}
        results = []
        for o in outputs:
            elem_type, shape = found.get(o, (0, None))
            shape = None if shape is None else [d if isinstance(d, int) or d in self.symbols else None for d in shape]
            why = None
            if shape is None:
                why = (f"{describe(node)}: ONNX has no shape rule for it" if onnx_schema(node, self.opsets) is None
                       else f"ONNX shape inference of {describe(node)} gives '{o}' no shape, even with its inputs' "
                            f"shapes and folded values")
            elif any(d is None for d in shape):
                why = (f"ONNX shape inference of {describe(node)} leaves dimensions of '{o}' unknown, even with its "
                       f"inputs' shapes and folded values (they depend on data computed at run time)")
            results.append(Tensor(shape, elem_type, None, why))
        return results


def disagreement(name, node, inferred, t):
    return Tensor(None, t.elem_type, None,
                  f"the model's declared shapes with ONNX's shape inference give '{name}' (output of {describe(node)}) "
                  f"the shape {dims_text(inferred)}, the shape evaluation {dims_text(t.shape)}: neither is taken")


def onnx_schema(node, opsets):
    domain = node.domain or ""
    try:
        return onnx.defs.get_schema(node.op_type, opsets.get(domain, opsets.get("ai.onnx", 1)), domain)
    except Exception:
        return None


def describe(node):
    return f"{node.op_type} node '{node.name}'" if node.name else f"a {node.op_type} node"


def attributes(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def value_info_shape(vi):
    t = vi.type
    if not t.HasField("tensor_type"):
        return 0, None
    tt = t.tensor_type
    if not tt.HasField("shape"):
        return tt.elem_type, None
    return tt.elem_type, [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim]


def declared(graph, outer_inferred):
    """name -> (elem_type, shape) for every tensor the graph declares or ONNX's inference gives."""
    out = dict(outer_inferred)
    for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
        out[vi.name] = value_info_shape(vi)
    for init in graph.initializer:
        out[init.name] = (init.data_type, list(init.dims))
    return out


def initializer_tensor(init):
    shape = list(init.dims)
    value = None
    if int(np.prod(shape, dtype=np.int64)) <= VALUE_LIMIT and init.data_location != onnx.TensorProto.EXTERNAL:
        try:
            value = numpy_helper.to_array(init)
        except Exception:  # a type numpy cannot hold (bfloat16, ...): its shape is enough
            value = None
    return Tensor(shape, init.data_type, value)


def model_symbols(model):
    symbols = set()
    for vi in list(model.graph.input) + list(model.graph.output) + list(model.graph.value_info):
        _, shape = value_info_shape(vi)
        symbols.update(d for d in shape or [] if isinstance(d, str))
    return symbols


def evaluate_graph(graph, opsets, outer, outer_inferred, symbols, path, out):
    inferred = declared(graph, outer_inferred)
    start = dict(outer)
    for vi in graph.input:
        elem_type, shape = value_info_shape(vi)
        start[vi.name] = Tensor(shape, elem_type, None,
                                f"the graph input '{vi.name}' is declared without a shape" if shape is None else
                                f"the graph input '{vi.name}' is declared with unknown dimensions" if None in shape
                                else None)
    for init in graph.initializer:  # an initializer overrides an input of the same name (a default value)
        start[init.name] = initializer_tensor(init)
    known = Graph(graph, opsets, start, inferred, symbols).run()
    out[path] = known
    for index, node in enumerate(graph.node):
        label = node.name or f"#{index}"
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                evaluate_graph(a.g, opsets, known, inferred, symbols, f"{path}/{label}.{a.name}", out)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for i, g in enumerate(a.graphs):
                    evaluate_graph(g, opsets, known, inferred, symbols, f"{path}/{label}.{a.name}[{i}]", out)


def evaluate(model, inferred_model):
    """{graph path: {tensor name: Tensor}} for the main graph ("main") and its subgraphs ("main/if_0.then_branch"),
    the paths onnx_conv_nodes.py names them by. `inferred_model` is `model` after ONNX's shape inference."""
    opsets = {o.domain: o.version for o in model.opset_import}
    out = {}
    evaluate_graph(inferred_model.graph, opsets, {}, {}, model_symbols(model), "main", out)
    return out


# ---------------------------------------------------------------------------------------------- the operators
# Each rule: (graph, node, inputs: list of Tensor or None for an omitted one, attributes) -> list of output Tensors.


def norm_axis(axis, rank, node):
    """ONNX: "Negative value means counting dimensions from the back. Accepted range is [-r, r-1]"."""
    if not -rank <= axis < rank:
        raise Unknown(f"{describe(node)}: axis {axis} is outside [-{rank}, {rank - 1}] (an invalid model)")
    return axis + rank if axis < 0 else axis


def same_dim(a, b):
    """One dimension two inputs must share: the known one where the other is unknown."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if isinstance(a, str) and isinstance(b, int):
        return b
    if isinstance(b, str) and isinstance(a, int):
        return a
    return None  # two different symbols


def broadcast(shapes, node):
    """ONNX's multidirectional (Numpy-style) broadcasting: "the shapes are aligned from the right; each dimension is
    either equal or one of them is 1"."""
    rank = max(len(s) for s in shapes)
    out = []
    for axis in range(rank):
        dims = [s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0]
        known = {d for d in dims if isinstance(d, int) and d != 1}
        if len(known) > 1:
            raise Unknown(f"{describe(node)}: the shapes {', '.join(map(dims_text, shapes))} do not broadcast "
                          f"(an invalid model)")
        if known:
            out.append(known.pop())  # every other dimension is 1 or that size
        elif any(d is None for d in dims if d != 1):
            out.append(None)  # an unknown dimension against 1s: it is itself
        else:
            symbols = {d for d in dims if isinstance(d, str)}
            out.append(symbols.pop() if len(symbols) == 1 else (1 if not symbols else None))
    return out


def numeric(value):
    """A folded value as a numeric array: a Shape's entries are ints, symbols or None (unknown); only ints compute."""
    if value is None or value.dtype != object:
        return value
    entries = value.reshape(-1).tolist()
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in entries):
        return None
    return np.array(entries, np.int64).reshape(value.shape)


def fold(inputs, compute):
    """The value of an elementwise node, where every input's value is known (numbers, not symbols)."""
    values = [numeric(t.value) if t is not None else None for t in inputs]
    if any(v is None for v in values):
        return None
    with np.errstate(all="ignore"):
        value = compute(*values)
    value = np.asarray(value)
    return value if value.size <= VALUE_LIMIT else None


def integer_div(a, b):
    """ONNX Div on integers truncates toward zero (as C and the reference implementation); division by zero is
    undefined, so it folds nothing."""
    if np.issubdtype(a.dtype, np.integer):
        if np.any(np.asarray(b) == 0):
            raise ValueError("integer division by zero")
        q = np.abs(a) // np.abs(b)
        return (np.sign(a) * np.sign(b) * q).astype(np.result_type(a, b))
    return np.divide(a, b)


def elementwise(compute, bool_output=False):
    def rule(g, node, inputs, attrs):
        present = [t for t, name in zip(inputs, node.input) if name]
        for name in node.input:
            if name:
                g.need(name, node, "an")
        shape = broadcast([t.shape for t in present], node)
        try:
            value = fold(present, compute) if compute else None
        except (ValueError, TypeError, ZeroDivisionError):
            value = None
        if value is not None and list(value.shape) != shape:
            value = None
        elem = onnx.TensorProto.BOOL if bool_output else present[0].elem_type
        return [Tensor(shape, elem, value)]
    return rule


def unary(compute=None):
    def rule(g, node, inputs, attrs):
        x = g.need(node.input[0], node, "X")
        value = None
        if compute is not None:
            try:
                value = fold([x], lambda v: compute(v, attrs))
            except (ValueError, TypeError):
                value = None
        return [Tensor(list(x.shape), x.elem_type, value)] + [Tensor(list(x.shape)) for _ in node.output[1:]]
    return rule


def rule_constant(g, node, inputs, attrs):
    if "value" in attrs:
        t = attrs["value"]
        return [Tensor(list(t.dims), t.data_type, numpy_helper.to_array(t) if np.prod(t.dims) <= VALUE_LIMIT else None)]
    for key, elem, dtype in (("value_int", onnx.TensorProto.INT64, np.int64),
                             ("value_ints", onnx.TensorProto.INT64, np.int64),
                             ("value_float", onnx.TensorProto.FLOAT, np.float32),
                             ("value_floats", onnx.TensorProto.FLOAT, np.float32)):
        if key in attrs:
            return [tensor_of_array(np.array(attrs[key], dtype), elem)]
    raise Unknown(f"{describe(node)}: a Constant of a kind the shape evaluation does not read "
                  f"({', '.join(attrs) or 'no value'})")


def rule_shape(g, node, inputs, attrs):
    """Shape (opset 15 adds start and end): "Optional attributes start and end can be used to compute a slice of the
    input tensor's shape ... out-of-range values are clamped to [0, r]; negative values count from the back"."""
    x = g.need(node.input[0], node, "data")
    rank = len(x.shape)
    start, end = attrs.get("start", 0), attrs.get("end", rank)
    start = min(max(start + rank if start < 0 else start, 0), rank)
    end = min(max(end + rank if end < 0 else end, 0), rank)
    dims = x.shape[start:end]
    value = np.array(dims, dtype=np.int64 if all(isinstance(d, int) for d in dims) else object)
    out = Tensor([len(dims)], onnx.TensorProto.INT64, value)
    if None in dims:
        out.value_why = x.why or f"'{node.input[0]}' has dimensions of unknown size"
    elif value.dtype == object:
        out.value_why = f"'{node.input[0]}' has the symbolic dimensions {dims_text(x.shape)} (give them values in " \
                        f"the model to run it)"
    return [out]


def rule_size(g, node, inputs, attrs):
    x = g.need(node.input[0], node, "data")
    dims = int_dims(np.array(x.shape, dtype=object))
    return [Tensor([], onnx.TensorProto.INT64, np.array(int(np.prod(dims)), np.int64) if dims is not None else None,
                   None)]


def rule_gather(g, node, inputs, attrs):
    """Gather: "output = data.shape[:axis] + indices.shape + data.shape[axis+1:]"; "All index values are expected to
    be within bounds [-s, s-1] along axis of size s"."""
    data = g.need(node.input[0], node, "data")
    indices = g.need(node.input[1], node, "indices")
    axis = norm_axis(attrs.get("axis", 0), len(data.shape), node)
    shape = data.shape[:axis] + indices.shape + data.shape[axis + 1:]
    value = None
    if data.value is not None and indices.value is not None:
        size = data.value.shape[axis]
        index = int_dims(indices.value)
        if index is not None and all(-size <= i < size for i in index):
            index = np.array([i + size if i < 0 else i for i in index], np.int64).reshape(np.shape(indices.value))
            value = np.take(data.value, index, axis=axis)
    return [Tensor(shape, data.elem_type, value)]


def slice_bounds(start, end, step, dim):
    """Slice: "If the value passed to start or end is larger than n (the number of elements in this dimension), it
    represents n. For slicing to the end of a dimension with unknown size, it is recommended to pass in INT_MAX ...
    If a negative value is passed for any of the start or end indices, it represents number of elements before the
    end of that dimension." Then (opset 13): "start is clamped to the range [0, dims[axes[i]]] for positive stepping
    and [0, dims[axes[i]]-1] for negative stepping; end ... [0, dims[axes[i]]] for positive stepping and
    [-1, dims[axes[i]]-1] for negative stepping"."""
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
        return start, end, max(0, -(-(end - start) // step))
    start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
    return start, end, max(0, -(-(start - end) // -step))


def rule_slice(g, node, inputs, attrs):
    """Slice: starts, ends, axes and steps are inputs from opset 10 (attributes before); "axes: If not present, will
    be treated as [0, 1, ..., len(starts) - 1]. Negative value means counting dimensions from the back"; "steps:
    default to 1s. ... cannot be 0"."""
    data = g.need(node.input[0], node, "data")
    rank = len(data.shape)

    def ints(i, role, default):
        if g.opset < 10:
            return attrs.get(role, default)
        if len(node.input) <= i or not node.input[i]:
            return default
        values = int_dims(g.need_value(node.input[i], node, role))
        if values is None:
            raise Unknown(f"{describe(node)}: its {role} are not all known")
        return values

    starts, ends = ints(1, "starts", None), ints(2, "ends", None)
    if starts is None or ends is None or len(starts) != len(ends):
        raise Unknown(f"{describe(node)}: starts and ends are missing or of different lengths (an invalid model)")
    axes = [norm_axis(a, rank, node) for a in ints(3, "axes", list(range(len(starts))))]
    steps = ints(4, "steps", [1] * len(starts))
    if len(axes) != len(starts) or len(steps) != len(starts) or 0 in steps or len(set(axes)) != len(axes):
        raise Unknown(f"{describe(node)}: axes {axes} and steps {steps} do not fit starts {starts} (an invalid model)")
    shape = list(data.shape)
    index = [slice(None)] * rank
    for start, end, axis, step in zip(starts, ends, axes, steps):
        dim = shape[axis]
        if not isinstance(dim, int):
            if not (start == 0 and step == 1 and end >= 2 ** 31 - 1):  # all of it (INT_MAX) keeps even a symbol
                shape[axis] = None  # clamping needs the size
            continue
        b, e, size = slice_bounds(start, end, step, dim)
        shape[axis] = size
        index[axis] = slice(b, e if e >= 0 else None, step)
    value = None
    if data.value is not None and all(d is not None for d in shape):
        value = data.value[tuple(index)]
    return [Tensor(shape, data.elem_type, value,
                   None if None not in shape else data.why or f"{describe(node)} slices a dimension of unknown size")]


def rule_split(g, node, inputs, attrs):
    """Split: "Split a tensor into a list of tensors, along the specified axis. Lengths of the parts can be specified
    using input 'split'. Otherwise, the tensor is split to equal sized parts" (opset 13: 'split' is an optional input,
    "Optional length of each output. Values should be >= 0. Sum of the values must be equal to the dim value at
    'axis' specified"; opsets 2-12: an attribute). Opset 18's num_outputs is beyond python3-onnx 1.12 (opset 17)."""
    x = g.need(node.input[0], node, "input")
    axis = norm_axis(attrs.get("axis", 0), len(x.shape), node)
    n = len(node.output)
    dim = x.shape[axis]
    if g.opset >= 13 and len(node.input) > 1 and node.input[1]:
        split = int_dims(g.need_value(node.input[1], node, "split"))
        if split is None:
            raise Unknown(f"{describe(node)}: its split sizes are not all known")
    else:
        split = attrs.get("split")
    if split is None:
        if not isinstance(dim, int):
            raise Unknown(f"{describe(node)} splits a dimension of unknown size ({dims_text(x.shape)}, axis {axis})")
        if dim % n:
            raise Unknown(f"{describe(node)}: {dim} does not split into {n} equal parts (an invalid model)")
        else:
            split = [dim // n] * n
    if len(split) != n or (isinstance(dim, int) and sum(split) != dim) or min(split) < 0:
        raise Unknown(f"{describe(node)}: split {split} does not fit {n} outputs of axis size {dim} (an invalid model)")
    results, offset = [], 0
    for size in split:
        shape = list(x.shape)
        shape[axis] = size
        value = None
        if x.value is not None:
            value = np.take(x.value, range(offset, offset + size), axis=axis)
        results.append(Tensor(shape, x.elem_type, value))
        offset += size
    return results


def rule_concat(g, node, inputs, attrs):
    """Concat: "All input tensors must have the same shape, except for the dimension size of the axis to concatenate
    on"; the output's is their sum."""
    xs = [g.need(name, node, "input") for name in node.input if name]
    rank = len(xs[0].shape)
    if any(len(x.shape) != rank for x in xs):
        raise Unknown(f"{describe(node)}: inputs of ranks {[len(x.shape) for x in xs]} (an invalid model)")
    axis = norm_axis(attrs["axis"], rank, node)
    shape = []
    for i in range(rank):
        dims = [x.shape[i] for x in xs]
        if i == axis:
            shape.append(sum(dims) if all(isinstance(d, int) for d in dims) else None)
        else:
            d = dims[0]
            for other in dims[1:]:
                d = same_dim(d, other)
            shape.append(d)
    value = None
    if all(x.value is not None for x in xs):
        value = np.concatenate([x.value.astype(object) if any(y.value.dtype == object for y in xs) else x.value
                                for x in xs], axis=axis)
    why = None
    if shape[axis] is None:
        unknown = next(x for x in xs if not isinstance(x.shape[axis], int))
        why = unknown.why or f"{describe(node)} concatenates a dimension of unknown size"
    return [Tensor(shape, xs[0].elem_type, value, why)]


def factors(dims):
    """A shape's size as (the product of its known sizes, its symbols sorted); None where a dimension is unknown."""
    if any(d is None for d in dims):
        return None
    return int(np.prod([d for d in dims if isinstance(d, int)], dtype=np.int64)), \
        sorted(d for d in dims if isinstance(d, str))


def rule_reshape(g, node, inputs, attrs):
    """Reshape: "At most one dimension of the new shape can be -1. In this case, the value is inferred from the size
    of the tensor and the remaining dimensions. A dimension could also be 0, in which case the actual dimension value
    is unchanged (i.e. taken from the input tensor). If 'allowzero' is set, and the new shape includes 0, the
    dimension will be set explicitly to zero"."""
    data = g.need(node.input[0], node, "data")
    target = np.asarray(g.need_value(node.input[1], node, "shape")).reshape(-1).tolist() if g.opset >= 5 else \
        list(attrs.get("shape", []))
    allowzero = attrs.get("allowzero", 0)
    shape = []
    for i, d in enumerate(target):
        if d == 0 and not allowzero and isinstance(d, (int, np.integer)):
            if i >= len(data.shape):
                raise Unknown(f"{describe(node)}: shape {target} copies dimension {i} of a rank-{len(data.shape)} "
                              f"input (an invalid model)")
            shape.append(data.shape[i])
        elif d is None or isinstance(d, str):
            shape.append(d)
        else:
            shape.append(int(d))
    if shape.count(-1) > 1:
        raise Unknown(f"{describe(node)}: shape {target} has more than one -1 (an invalid model)")
    if -1 in shape:
        # the size over the other dimensions; a symbol ("N") on both sides cancels: [N, 24, 2, 8, 8] -> [N, -1, 8, 8]
        total, rest = factors(data.shape), factors([d for d in shape if d != -1])
        i = shape.index(-1)
        if total is None or rest is None or total[1] != rest[1]:
            shape[i] = None
        else:
            if rest[0] == 0 or total[0] % rest[0]:
                raise Unknown(f"{describe(node)}: {dims_text(data.shape)} does not reshape to {target} "
                              f"(an invalid model)")
            shape[i] = total[0] // rest[0]
    value = None
    if data.value is not None and all(isinstance(d, int) for d in shape):
        value = data.value.reshape(shape) if data.value.size == int(np.prod(shape, dtype=np.int64)) else None
    why = None
    if any(d is None for d in shape):
        target_why = g.known[node.input[1]].value_why if g.opset >= 5 else None
        why = target_why or data.why or \
            f"{describe(node)}: the new shape's -1 or 0 entries read dimensions of unknown size"
    return [Tensor(shape, data.elem_type, value, why)]


def rule_transpose(g, node, inputs, attrs):
    """Transpose: "perm: A list of integers. By default, reverse the dimensions"."""
    x = g.need(node.input[0], node, "data")
    perm = attrs.get("perm", list(range(len(x.shape)))[::-1])
    if sorted(perm) != list(range(len(x.shape))):
        raise Unknown(f"{describe(node)}: perm {perm} is not a permutation of {len(x.shape)} axes (an invalid model)")
    value = np.transpose(x.value, perm) if x.value is not None else None
    return [Tensor([x.shape[p] for p in perm], x.elem_type, value, x.why)]


def axes_of(g, node, attrs, role_index):
    """Unsqueeze/Squeeze's axes: an input from opset 13, an attribute before."""
    if g.opset >= 13:
        if len(node.input) <= role_index or not node.input[role_index]:
            return None
        axes = int_dims(g.need_value(node.input[role_index], node, "axes"))
        if axes is None:
            raise Unknown(f"{describe(node)}: its axes are not all known")
        return axes
    return attrs.get("axes")


def rule_unsqueeze(g, node, inputs, attrs):
    """Unsqueeze: "Insert single-dimensional entries to the shape of an input tensor ... The rank of the output tensor
    (output_rank) is the rank of the input tensor (data) plus the number of values in axes. ... Negative value means
    counting dimensions from the back. Accepted range is [-r, r-1] where r = rank(expanded)"."""
    x = g.need(node.input[0], node, "data")
    axes = axes_of(g, node, attrs, 1)
    if axes is None:
        raise Unknown(f"{describe(node)} has no axes (an invalid model)")
    rank = len(x.shape) + len(axes)
    axes = sorted(norm_axis(a, rank, node) for a in axes)
    if len(set(axes)) != len(axes):
        raise Unknown(f"{describe(node)}: repeated axes (an invalid model)")
    shape, rest = [], iter(x.shape)
    for i in range(rank):
        shape.append(1 if i in axes else next(rest))
    value = x.value.reshape(shape) if x.value is not None else None
    return [Tensor(shape, x.elem_type, value, x.why)]


def rule_squeeze(g, node, inputs, attrs):
    """Squeeze: "Remove single-dimensional entries from the shape of a tensor. Takes an input axes with a list of axes
    to squeeze. If axes is not provided, all the single dimensions will be removed from the shape. If an axis is
    selected with shape entry not equal to one, an error is raised"."""
    x = g.need(node.input[0], node, "data")
    axes = axes_of(g, node, attrs, 1)
    rank = len(x.shape)
    if axes is None:
        if any(not isinstance(d, int) for d in x.shape):
            raise Unknown(f"{describe(node)} without axes removes the dimensions of size 1 of {dims_text(x.shape)}, "
                          f"some of whose sizes are not known")
        axes = [i for i, d in enumerate(x.shape) if d == 1]
    axes = [norm_axis(a, rank, node) for a in axes]
    if any(isinstance(x.shape[a], int) and x.shape[a] != 1 for a in axes):
        raise Unknown(f"{describe(node)}: squeezes axes {axes} of {dims_text(x.shape)} (an invalid model)")
    shape = [d for i, d in enumerate(x.shape) if i not in axes]
    value = x.value.reshape(shape) if x.value is not None and all(isinstance(d, int) for d in shape) else None
    return [Tensor(shape, x.elem_type, value, x.why)]


def rule_expand(g, node, inputs, attrs):
    """Expand: "Broadcast the input tensor following the given shape and the broadcast rule"."""
    x = g.need(node.input[0], node, "input")
    target = np.asarray(g.need_value(node.input[1], node, "shape")).reshape(-1).tolist()
    target = [int(d) if isinstance(d, (int, np.integer)) else d for d in target]
    shape = broadcast([x.shape, target], node)
    value = None
    if numeric(x.value) is not None and all(isinstance(d, int) for d in shape) and \
            int(np.prod(shape, dtype=np.int64)) <= VALUE_LIMIT:
        value = np.broadcast_to(numeric(x.value), shape).copy()
    return [Tensor(shape, x.elem_type, value, x.why or g.known[node.input[1]].value_why if None in shape else None)]


def rule_constant_of_shape(g, node, inputs, attrs):
    """ConstantOfShape: "Generate a tensor with given value and shape"; the value defaults to a float 0."""
    dims = np.asarray(g.need_value(node.input[0], node, "input")).reshape(-1).tolist()
    shape = [int(d) if isinstance(d, (int, np.integer)) else d for d in dims]
    fill = numpy_helper.to_array(attrs["value"]).reshape(-1) if "value" in attrs else np.zeros(1, np.float32)
    elem = attrs["value"].data_type if "value" in attrs else onnx.TensorProto.FLOAT
    value = None
    if all(isinstance(d, int) for d in shape) and int(np.prod(shape, dtype=np.int64)) <= VALUE_LIMIT:
        value = np.full(shape, fill[0], fill.dtype)
    return [Tensor(shape, elem, value, g.known[node.input[0]].value_why if None in shape else None)]


def rule_range(g, node, inputs, attrs):
    """Range: "number_of_elements = max( ceil( (limit - start) / delta ) , 0 )"."""
    start, limit, delta = (g.need_value(node.input[i], node, role)
                           for i, role in enumerate(("start", "limit", "delta")))
    start, limit, delta = numeric(start), numeric(limit), numeric(delta)
    if start is None or limit is None or delta is None or float(delta) == 0:
        raise Unknown(f"{describe(node)}: its start, limit or delta is not a known number")
    count = max(int(np.ceil((float(limit) - float(start)) / float(delta))), 0)
    value = np.arange(start, limit, delta, dtype=np.result_type(start, limit, delta)) if count <= VALUE_LIMIT else None
    return [Tensor([count], g.known[node.input[0]].elem_type, value)]


def rule_cast(g, node, inputs, attrs):
    x = g.need(node.input[0], node, "input")
    to = attrs["to"]
    value = None
    if numeric(x.value) is not None:
        try:
            value = numeric(x.value).astype(np_dtype(to))
        except (KeyError, TypeError, ValueError):
            value = None
    return [Tensor(list(x.shape), to, value, x.why)]


def rule_where(g, node, inputs, attrs):
    rule = elementwise(lambda c, a, b: np.where(c, a, b))
    out = rule(g, node, inputs, attrs)[0]
    out.elem_type = inputs[1].elem_type if inputs[1] is not None else 0
    return [out]


def np_mod(fmod):
    """Mod: "If the input type is floating point, then fmod attribute must be set to 1"; fmod=0 is the sign of the
    divisor (Python's %), fmod=1 the dividend's (C's fmod)."""
    return np.fmod if fmod else np.mod


def rule_mod(g, node, inputs, attrs):
    return elementwise(np_mod(attrs.get("fmod", 0)))(g, node, inputs, attrs)


RULES = {
    "Constant": rule_constant,
    "Shape": rule_shape,
    "Size": rule_size,
    "Gather": rule_gather,
    "Slice": rule_slice,
    "Split": rule_split,
    "Concat": rule_concat,
    "Reshape": rule_reshape,
    "Transpose": rule_transpose,
    "Unsqueeze": rule_unsqueeze,
    "Squeeze": rule_squeeze,
    "Expand": rule_expand,
    "ConstantOfShape": rule_constant_of_shape,
    "Range": rule_range,
    "Cast": rule_cast,
    "Where": rule_where,
    "Mod": rule_mod,
    # elementwise with multidirectional broadcasting
    "Add": elementwise(np.add),
    "Sub": elementwise(np.subtract),
    "Mul": elementwise(np.multiply),
    "Div": elementwise(integer_div),
    "Pow": elementwise(np.power),
    "Max": elementwise(np.maximum),
    "Min": elementwise(np.minimum),
    "Sum": elementwise(lambda *v: sum(v)),
    "Mean": elementwise(None),
    "PRelu": elementwise(None),
    "Equal": elementwise(np.equal, bool_output=True),
    "Less": elementwise(np.less, bool_output=True),
    "LessOrEqual": elementwise(np.less_equal, bool_output=True),
    "Greater": elementwise(np.greater, bool_output=True),
    "GreaterOrEqual": elementwise(np.greater_equal, bool_output=True),
    "And": elementwise(np.logical_and, bool_output=True),
    "Or": elementwise(np.logical_or, bool_output=True),
    "Xor": elementwise(np.logical_xor, bool_output=True),
    # elementwise, one input: the output has its shape
    "Identity": unary(lambda v, a: v),
    "Neg": unary(lambda v, a: np.negative(v)),
    "Abs": unary(lambda v, a: np.abs(v)),
    "Floor": unary(lambda v, a: np.floor(v)),
    "Ceil": unary(lambda v, a: np.ceil(v)),
    "Sqrt": unary(lambda v, a: np.sqrt(v)),
    "Not": unary(lambda v, a: np.logical_not(v)),
    "Relu": unary(lambda v, a: np.maximum(v, 0)),
    "Sign": unary(lambda v, a: np.sign(v)),
    "Reciprocal": unary(), "Exp": unary(), "Log": unary(), "Sigmoid": unary(), "Tanh": unary(), "Erf": unary(),
    "HardSigmoid": unary(), "HardSwish": unary(), "LeakyRelu": unary(), "Elu": unary(), "Selu": unary(),
    "Softplus": unary(), "Clip": unary(), "Dropout": unary(), "Round": unary(), "Sin": unary(), "Cos": unary(),
}
