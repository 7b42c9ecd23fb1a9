"""convcheck's Python backends: a backend file, run as `convcheck run --backend python:FILE.py`.

This module speaks the exec protocol (docs/exec-protocol.md) on stdin/stdout for a backend file that defines:

    describe() -> dict          what it claims: {"name": ..., "dtypes": ["f32", ...], ...} (the protocol's claims;
                                "operations" defaults to ["conv"], "passes" to the entry points the file defines)
    conv(desc, src, weights, bias) -> numpy array     the forward pass's dst (bias is None without one)

and, optionally:

    configure(options)          the --backend-option key=value items, as a dict, once at start (raise on a key
                                it does not know); a file without it refuses every option
    query(desc)                 None or True: it takes the case; a string, or raise Decline(reason): it declines
    conv_backward_data(desc, diff_dst, weights) -> diff_src
    conv_backward_weights(desc, src, diff_dst) -> diff_weights, or (diff_weights, diff_bias) with a bias
    qconv(desc, src, weights, bias) -> dst   a quantized case (desc.quantization: its scales, zero points and
                                output range); integer tensors as uint8, int8, int32 arrays; describe() claims
                                "u8", "s8", "s32" and may name its "requantization" rule and "integer_accumulator"
    conv_transposed(desc, src, weights, bias) -> dst   a transposed convolution (desc.output_padding; weights
                                [in_channels][out_channels / groups][kernel...] for "oix")

`desc` has the descriptor's fields as attributes (pass_, rank, batch, in_channels, out_channels, groups,
input_size, kernel_size, strides, dilations (1 = dense), pads_begin, pads_end, output_size, has_bias,
data_format, filter_format, dtypes, canonical). Arrays are numpy arrays in the case's layout (desc.data_format
"ncx" or "nxc", desc.filter_format "oix", "xio" or "oxi"), of dtype float32, float16 or float64; a bf16 tensor
comes as float32 holding bf16 values and a bf16 output must go back as float32 holding bf16 values
(round_to_bf16 rounds to nearest even). Outputs are never converted: an output of another dtype or shape is a
named failure of the case. An exception is the case's error, reported with its traceback's last line.

Runs on Debian's python3 with numpy. This file is both the module a backend imports (Decline, round_to_bf16) and
the program the runner starts (`python3 convcheck_backend.py FILE.py`).
"""

import importlib.util
import json
import mmap
import os
import sys
import traceback

import numpy as np

PROTOCOL = 1

# What the runner passed at the start: the --backend-option items and --threads (0: the backend's default).
options = {}
num_threads = 0


class Decline(Exception):
    """Raised by query() or conv(): the backend does not compute this case (the message is the reason)."""


def round_to_bf16(a):
    """float32 array -> float32 array of the nearest bf16 values (ties to even; NaN stays NaN)."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = (rounded & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), a, out)


_NUMPY = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "u8": np.uint8, "s8": np.int8, "s32": np.int32}
_PROTOCOL_DTYPE = {np.dtype(v): k for k, v in _NUMPY.items()}


class Fields:
    """A JSON object's fields as attributes (lists as tuples)."""

    def __init__(self, fields):
        self.fields = fields
        for key, value in fields.items():
            setattr(self, "pass_" if key == "pass" else key, tuple(value) if isinstance(value, list) else value)

    def __repr__(self):
        return json.dumps(self.fields)


class Descriptor(Fields):
    """The case's descriptor: the protocol's fields as attributes (`pass` is `pass_`); a quantized case's
    `quantization` object as attributes too (desc.quantization.src_scale, ...), None for a float case."""

    def __init__(self, fields):
        Fields.__init__(self, fields)
        self.quantization = Fields(fields["quantization"]) if fields.get("quantization") else None
        self.operation = fields.get("operation", "conv")

    def __repr__(self):
        return self.fields.get("canonical") or json.dumps(self.fields)


def _read(mm, t):
    count = int(np.prod(t["shape"], dtype=np.int64))
    if t["dtype"] == "bf16":
        raw = np.frombuffer(mm, dtype=np.uint16, count=count, offset=t["offset"])
        return (raw.astype(np.uint32) << 16).view(np.float32).reshape(t["shape"])
    return np.frombuffer(mm, dtype=_NUMPY[t["dtype"]], count=count, offset=t["offset"]).reshape(t["shape"]).copy()


def _returned(name, array, t):
    """What an output was returned as: (protocol dtype, shape); a bf16 output must hold bf16 values."""
    if not isinstance(array, np.ndarray):
        raise TypeError("%s: the backend returned a %s, not a numpy array" % (name, type(array).__name__))
    dtype = _PROTOCOL_DTYPE.get(array.dtype)
    if dtype is None:
        dtype = str(array.dtype)
    if t["dtype"] == "bf16" and dtype == "f32":
        low = np.ascontiguousarray(array).view(np.uint32) & 0xFFFF
        if np.any(low != 0) and not np.all(np.isnan(array[low != 0])):
            raise ValueError("%s: the case's %s is bf16 and the float32 array returned holds values that are not "
                             "bf16 (round them: convcheck_backend.round_to_bf16)" % (name, name))
        dtype = "bf16"
    return dtype, list(array.shape)


def _write(mm, array, t):
    if t["dtype"] == "bf16":
        data = (np.ascontiguousarray(array, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        data = np.ascontiguousarray(array)
    view = np.frombuffer(mm, dtype=data.dtype, count=data.size, offset=t["offset"])
    view[...] = data.reshape(-1)
    del view


def _error_text(exc):
    """The traceback's last line, with where it was raised."""
    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        f = frames[-1]
        last += " (at %s:%d in %s)" % (os.path.basename(f.filename), f.lineno, f.name)
    return last


def not_computed(b, desc):
    """Why the backend file b cannot take this case whatever its query says (an entry point it lacks), or None."""
    if desc.quantization is not None and not callable(getattr(b, "qconv", None)):
        return "the backend defines no qconv(desc, src, weights, bias) for a quantized case"
    if desc.operation == "conv_transposed" and not callable(getattr(b, "conv_transposed", None)):
        return "the backend defines no conv_transposed(desc, src, weights, bias) for a transposed convolution"
    return None


def compute(b, desc, ins, outs):
    """The case's pass through the backend file b: {output name: array} for the outputs `outs` names (also
    convcheck_offline.py's)."""
    if desc.quantization is not None:
        return {"dst": b.qconv(desc, ins["src"], ins["weights"], ins.get("bias"))}
    if desc.operation == "conv_transposed":
        return {"dst": b.conv_transposed(desc, ins["src"], ins["weights"], ins.get("bias"))}
    if desc.pass_ == "forward":
        return {"dst": b.conv(desc, ins["src"], ins["weights"], ins.get("bias"))}
    if desc.pass_ == "backward_data":
        return {"diff_src": b.conv_backward_data(desc, ins["diff_dst"], ins["weights"])}
    if desc.pass_ == "backward_weights":
        got = b.conv_backward_weights(desc, ins["src"], ins["diff_dst"])
        if "diff_bias" in outs:
            if not isinstance(got, tuple) or len(got) != 2:
                raise TypeError("conv_backward_weights: the case has a bias: return (diff_weights, diff_bias)")
            return {"diff_weights": got[0], "diff_bias": got[1]}
        return {"diff_weights": got[0] if isinstance(got, tuple) else got}
    raise ValueError("pass %r: not one protocol %d knows" % (desc.pass_, PROTOCOL))


class _Server:
    def __init__(self, backend_path, stdin, stdout):
        self.path = backend_path
        self.stdin = stdin
        self.stdout = stdout
        self.backend = None

    def send(self, message):
        self.stdout.write(json.dumps(message) + "\n")
        self.stdout.flush()

    def load(self):
        spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(self.path))[0], self.path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not callable(getattr(module, "describe", None)) or not callable(getattr(module, "conv", None)):
            raise AttributeError("%s defines no describe() and conv(desc, src, weights, bias)" % self.path)
        return module

    def claims(self):
        b = self.backend
        c = dict(b.describe())
        c.setdefault("operations", ["conv"] + (["conv_transposed"] if callable(getattr(b, "conv_transposed", None)) else []))
        if "passes" not in c:
            c["passes"] = ["forward"] + [p for p, f in (("backward_data", "conv_backward_data"),
                                                        ("backward_weights", "conv_backward_weights"))
                                         if callable(getattr(b, f, None))]
        return c

    def hello(self, message):
        global options, num_threads
        if message.get("type") != "hello":
            raise ValueError("the first message is not a hello: %r" % message)
        options = dict(message.get("options", {}))
        num_threads = int(message.get("num_threads", 0))
        self.backend = self.load()
        if callable(getattr(self.backend, "configure", None)):
            self.backend.configure(dict(options))
        elif options:
            raise ValueError("%s takes no options (it defines no configure(options)); got %s"
                             % (os.path.basename(self.path), ", ".join(sorted(options))))
        return {"type": "hello", "protocol": PROTOCOL, "claims": self.claims()}

    def query(self, message):
        desc = Descriptor(message["descriptor"])
        why = not_computed(self.backend, desc)
        if why:
            return {"type": "declined", "reason": why}
        q = getattr(self.backend, "query", None)
        answer = q(desc) if callable(q) else None
        if answer is None or answer is True:
            return {"type": "supported"}
        return {"type": "declined", "reason": str(answer)}

    def conv(self, message):
        desc = Descriptor(message["descriptor"])
        shm = message["shm"]
        with open(shm["path"], "r+b") as f:
            mm = mmap.mmap(f.fileno(), shm["bytes"])
        try:
            ins = {name: _read(mm, t) for name, t in message["inputs"].items()}
            outs = message["outputs"]
            b = self.backend
            results = compute(b, desc, ins, outs)
            returned = {}
            for name, array in results.items():
                dtype, shape = _returned(name, array, outs[name])
                returned[name] = {"dtype": dtype, "shape": shape}
                if dtype == outs[name]["dtype"] and shape == list(outs[name]["shape"]):
                    _write(mm, array, outs[name])
            reply = {"type": "done", "outputs": returned}
            implementation = getattr(b, "implementation", None)
            if isinstance(implementation, str):
                reply["implementation"] = implementation
            return reply
        finally:
            mm.close()

    def serve(self):
        first = True
        for line in self.stdin:
            try:
                message = json.loads(line)
                kind = message.get("type")
                if first:
                    first = False
                    reply = self.hello(message)
                elif kind == "query":
                    reply = self.query(message)
                elif kind == "conv":
                    reply = self.conv(message)
                else:
                    reply = {"type": "error", "message": "unknown message type %r" % kind}
            except Decline as d:
                reply = {"type": "declined", "reason": str(d) or "(no reason given)"}
            except MemoryError as e:
                traceback.print_exc(file=sys.stderr)
                reply = {"type": "error", "code": "out_of_memory", "message": _error_text(e)}
            except Exception as e:  # the case's error, with the traceback's last line; the full one on stderr
                traceback.print_exc(file=sys.stderr)
                reply = {"type": "error", "message": _error_text(e)}
            self.send(reply)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: python3 convcheck_backend.py BACKEND.py (started by convcheck run --backend "
                         "python:BACKEND.py)\n")
        return 2
    # A backend file imports this module by name: let it find this copy, not a second one.
    sys.modules.setdefault("convcheck_backend", sys.modules[__name__])
    # The protocol owns stdout; the backend's own prints go to stderr.
    protocol_out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _Server(argv[1], sys.stdin, protocol_out).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
